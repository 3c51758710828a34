from __future__ import annotations

import pytest

from continuity_core.redact import MARK, redact, redact_obj, scan

SECRETS = {
    "anthropic": "sk-ant-api03-FAKE-NOT-A-REAL-KEY-0123456789abcdefXYZ",
    "openai_project": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "openai": "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
    "github": "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123",
    "gitlab": "glpat-AbCdEfGhIjKlMnOpQrSt",
    "huggingface": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "npm": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "stripe": "sk_live_AbCdEfGhIjKlMnOpQrSt1234",
    "slack": "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
    "slack_webhook": "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX",
    "google_api": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_provider_key_is_redacted(kind: str) -> None:
    secret = SECRETS[kind]
    out = redact(f"here it is: {secret} — use it")
    assert secret not in out
    assert MARK in out
    assert scan(secret)


@pytest.mark.parametrize(
    ("text", "secret", "kept"),
    [
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "AWS_SECRET_ACCESS_KEY="),
        ("password: hunter2xyz", "hunter2xyz", "password: "),
        ('{"password": "hunter2xyz"}', "hunter2xyz", '"password": "'),
        ("git clone https://deploy:Sup3rS3cretPw@registry.example.com/x", "Sup3rS3cretPw", "https://deploy:"),
        ("Authorization: Bearer abcdefghijklmnop1234567890", "abcdefghijklmnop1234567890", "Bearer "),
    ],
)
def test_assignments_keep_their_names(text: str, secret: str, kept: str) -> None:
    out = redact(text)
    assert secret not in out
    assert kept in out


def test_private_key_block_even_when_truncated() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfakeFAKE\n-----END RSA PRIVATE KEY-----"
    assert "MIIEow" not in redact(f"key:\n{pem}\nafter")
    assert "after" in redact(f"key:\n{pem}\nafter")
    assert "MIIEow" not in redact("-----BEGIN OPENSSH PRIVATE KEY-----\nMIIEowIBAAK")


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 4096",
        "token = get_token()",
        "the password is in the vault",
        "def parse_invoice(path: str) -> Invoice:",
        "git commit -m 'Add GET /rooms endpoint'",
        "https://example.com/path?q=1",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text
    assert scan(text) == []


def test_scan_names_kinds_without_the_secret() -> None:
    kinds = scan(f"a {SECRETS['github']} and {SECRETS['aws_access_key']}")
    assert kinds == ["aws_access_key", "github"]
    assert all(SECRETS["github"] not in k for k in kinds)


def test_redact_obj_walks_json() -> None:
    value = {"a": [SECRETS["npm"], 3, {"b": SECRETS["slack"]}], "n": None}
    out = redact_obj(value)
    assert out == {"a": [MARK, 3, {"b": MARK}], "n": None}


def test_needles_never_skip_a_secret() -> None:
    """Running only the kinds whose needles occur gives what running every kind gives."""
    import json
    from pathlib import Path

    from continuity_core import redact as r

    assert set(r._NEEDLES) == {kind for kind, _ in r._PATTERNS}
    shapes = json.loads((Path(__file__).parents[1] / "reliability" / "secrets" / "shapes.json").read_text())
    texts = [s["planted"] for s in shapes] + [f"x {v} y" for v in SECRETS.values()]
    for text in texts:
        for variant in (text, text.upper(), text.lower()):
            needled = r._spans(variant)
            r._kinds_in, saved = (lambda _text: tuple(k for k, _ in r._PATTERNS)), r._kinds_in
            try:
                assert needled == r._spans(variant), variant[:60]
            finally:
                r._kinds_in = saved
