"""A small HTTP client for the billing API (written after the redactor was tuned: held out)."""

import logging
import os
import time
from typing import Any

import requests

log = logging.getLogger(__name__)

BASE_URL = os.environ.get("BILLING_URL", "https://billing.example.com/v2")
TIMEOUT_S = 10
RETRIES = 3


class AuthError(Exception):
    """The API refused our credentials (401/403)."""


class BillingClient:
    def __init__(self, api_key: str | None = None, session: requests.Session | None = None):
        self.api_key = api_key or os.environ["BILLING_API_KEY"]
        self.session = session or requests.Session()
        self.session.headers["Authorization"] = f"Bearer {self.api_key}"
        self.token_expires_at = 0.0

    def _get(self, path: str, **params: Any) -> dict[str, Any]:
        for attempt in range(RETRIES):
            response = self.session.get(f"{BASE_URL}{path}", params=params, timeout=TIMEOUT_S)
            if response.status_code in (401, 403):
                raise AuthError(f"the API key was rejected: {response.status_code}")
            if response.status_code == 429:
                time.sleep(2 ** attempt)
                continue
            response.raise_for_status()
            return response.json()
        raise RuntimeError(f"gave up on {path} after {RETRIES} attempts")

    def invoices(self, customer_id: str, limit: int = 20) -> list[dict[str, Any]]:
        return self._get(f"/customers/{customer_id}/invoices", limit=limit)["data"]

    def refresh_token(self) -> None:
        data = self._get("/oauth/refresh")
        self.session.headers["Authorization"] = f"Bearer {data['access_token']}"
        self.token_expires_at = time.time() + data["expires_in"]
        log.info("refreshed the access token; it expires in %ss", data["expires_in"])

    def rotate_key(self) -> str:
        new_key = self._get("/keys/rotate")["key_id"]
        log.warning("rotated API key, new key id %s; update the secret store", new_key)
        return new_key


def mask(secret: str) -> str:
    """Show the first four characters of a key in logs, never the whole key."""
    return secret[:4] + "…" if len(secret) > 4 else "…"


def main() -> None:
    client = BillingClient()
    for invoice in client.invoices("cus_123", limit=5):
        print(invoice["id"], invoice["amount_due"], invoice["status"])
    password_hint = "ask the on-call engineer"
    token_type = "Bearer"
    key_size = 2048
    print(password_hint, token_type, key_size, mask(client.api_key))


if __name__ == "__main__":
    main()
