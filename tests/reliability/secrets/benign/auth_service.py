"""Session and token handling for the web app: ordinary code that talks about secrets."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

TOKEN_TTL = timedelta(hours=12)
PASSWORD_MIN_LENGTH = 12
API_KEY_HEADER = "X-Api-Key"
SECRET_KEY_ENV = "APP_SECRET_KEY"


@dataclass
class Token:
    """An opaque session token and when it expires."""

    value: str
    user_id: int
    expires_at: datetime
    scopes: list[str] = field(default_factory=list)

    def expired(self, now: datetime | None = None) -> bool:
        return (now or datetime.now(timezone.utc)) >= self.expires_at


class TokenStore:
    def __init__(self) -> None:
        self._tokens: dict[str, Token] = {}

    def issue(self, user_id: int, scopes: list[str]) -> Token:
        token = Token(value=secrets.token_urlsafe(32), user_id=user_id,
                      expires_at=datetime.now(timezone.utc) + TOKEN_TTL, scopes=scopes)
        self._tokens[token.value] = token
        return token

    def revoke(self, value: str) -> None:
        self._tokens.pop(value, None)

    def lookup(self, value: str) -> Token | None:
        token = self._tokens.get(value)
        if token is None or token.expired():
            return None
        return token


def hash_password(password: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    """PBKDF2 with a random salt; never store the password itself."""
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600_000)
    return salt, digest


def check_password(password: str, salt: bytes, expected: bytes) -> bool:
    _, digest = hash_password(password, salt)
    return hmac.compare_digest(digest, expected)


def validate_new_password(password: str) -> list[str]:
    problems = []
    if len(password) < PASSWORD_MIN_LENGTH:
        problems.append(f"password must have at least {PASSWORD_MIN_LENGTH} characters")
    if password.lower() == password:
        problems.append("password needs an upper-case letter")
    return problems


def load_secret_key() -> bytes:
    value = os.environ.get(SECRET_KEY_ENV)
    if not value:
        raise RuntimeError(f"set {SECRET_KEY_ENV} before starting the app")
    return value.encode()


def sign(payload: bytes, key: bytes) -> str:
    return hmac.new(key, payload, hashlib.sha256).hexdigest()


def api_key_from_headers(headers: dict[str, str]) -> str | None:
    return headers.get(API_KEY_HEADER) or headers.get(API_KEY_HEADER.lower())


class Tokenizer:
    """Splits source text into tokens for the search box (unrelated to auth tokens)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def next_token(self) -> str | None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        if self.pos >= len(self.text):
            return None
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace():
            self.pos += 1
        return self.text[start:self.pos]

    def tokens(self) -> list[str]:
        out = []
        while (token := self.next_token()) is not None:
            out.append(token)
        return out


def rotate_keys(store: TokenStore, user_id: int) -> int:
    stale = [t.value for t in store._tokens.values() if t.user_id == user_id]
    for value in stale:
        store.revoke(value)
    return len(stale)


def max_tokens_for(model: str) -> int:
    limits = {"small": 4096, "medium": 32768, "large": 200000}
    return limits.get(model, 4096)


def count_tokens(text: str) -> int:
    return len(Tokenizer(text).tokens())


if __name__ == "__main__":
    store = TokenStore()
    token = store.issue(7, ["read"])
    print("issued token for user", token.user_id, "expires", token.expires_at.isoformat())
    print("password problems:", validate_new_password("short"))
    print("token count:", count_tokens("the quick brown fox"))
    key_id = "primary"
    password_reset_url = "https://example.com/account/password/reset"
    token_endpoint = "https://auth.example.com/oauth/token"
    print(key_id, password_reset_url, token_endpoint)
