"""The redactor's needles: the cheap substrings each kind of secret holds, with no `re`.

`continuity_core.redact` scans a text only for the kinds whose needles it holds. The same
table lets a hook tell, without importing the redactor (its patterns need `re`, about a bare
interpreter start), that a text cannot hold anything it would change (`clean`): then the text
is written as it is. One table, read by both.
"""

from __future__ import annotations

BY_KIND: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",),
    "anthropic": ("sk-ant-",),
    "openai_project": ("sk-",),
    "openai": ("sk-",),
    "stripe": ("_live_", "_test_", "whsec_"),
    "github": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab": ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-"),
    "huggingface": ("hf_",),
    "npm": ("npm_",),
    "pypi": ("pypi-age",),
    "slack_webhook": ("hooks.slack.com",),
    "slack": ("xox", "xapp-"),
    "discord_webhook": ("/api/webhooks/",),
    "google_api": ("aiza",),
    "google_oauth": ("ya29.", "gocspx-"),
    "aws_session_token": ("fwogzxivyxdz", "iqojb3jpz2lux2vj"),
    "aws_access_key": ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa"),
    "azure_storage": ("accountkey=",),
    "sendgrid": ("sg.",),
    "twilio": ("SK",),
    "digitalocean": ("_v1_",),
    "shopify": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "mailgun": ("key-",),
    "telegram": (":aa",),
    "square": ("sq0atp-", "sq0csp-"),
    "linear": ("lin_api_", "lin_oauth_"),
    "notion": ("ntn_", "secret_"),
    "doppler": ("dp.",),
    "docker_hub": ("dckr_pat_",),
    "groq": ("gsk_",),
    "xai": ("xai-",),
    "replicate": ("r8_",),
    "perplexity": ("pplx-",),
    "postman": ("pmak-",),
    "new_relic": ("nrak-",),
    "grafana": ("glsa_", "glc_"),
    "databricks": ("dapi",),
    "alibaba": ("ltai",),
    "age": ("age-secret-key-1",),
    "mapbox": ("sk.eyj",),
    "pem_base64": ("ls0tls1crudjti",),
    "azure_sas": ("sig=",),
    "netrc": ("machine",),
    "jwt": ("eyj",),
    "bearer": ("bearer",),
    "token_word": ("token",),
    "basic_auth": ("basic",),
    "url_credentials": ("://",),
    "assignment": ("secret", "pass", "pwd", "token", "key", "credential", "creds", "auth"),
    "pem_body": (
        "ibaa",
        "ibad",
        "migkagebbd",
        "mighageambmg",
        "mhccaqee",
        "mc4caqaw",
        "dbobgkqhkig9w0bbq0w",
        "b3blbnnzac1rzxktdje",
    ),
    "cli_user": ("-u", "--user"),
    "option": ("pass", "pwd", "secret", "token", "key", "credential", "creds", "auth"),
    "netrc_line": ("passw",),
    "mysql": ("mysql", "mariadb"),
    "cli_password": (
        "sshpass",
        "docker",
        "podman",
        "nerdctl",
        "buildah",
        "skopeo",
        "redis-cli",
        "htpasswd",
    ),
}
ALL = tuple(dict.fromkeys(n for kind in BY_KIND.values() for n in kind))
# A needle with a capital letter is looked for as written (a Twilio key opens with `SK`; `sk`
# is in every "task"), the others in the lowered text.
EXACT = tuple(n for n in ALL if n != n.lower())
FOLDED = tuple(n for n in ALL if n == n.lower())
# What opens a token that base64 may hide (`redact` decodes a run holding one of these).
BASE64_OPENINGS = (
    "sk-ant-",
    "sk-proj-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xapp-",
    "AKIA",
    "sk_live_",
    "-----BEGIN",
    '{"auths"',
    '"auth":',
)
_URLSAFE_OUT = str.maketrans("+/", "-_")


def base64_needles() -> tuple[str, ...]:
    """What a known token's opening looks like once base64-encoded, at each of the three
    alignments (the characters that depend on the opening alone): `BASE64_NEEDLES`, which a
    test checks against this."""
    import binascii

    out: set[str] = set()
    for opening in BASE64_OPENINGS:
        raw = opening.encode()
        for pad in range(3):
            enc = binascii.b2a_base64(b"\0" * pad + raw, newline=False).decode()
            piece = enc[-(-pad * 8 // 6) : (pad + len(raw)) * 8 // 6]
            if len(piece) >= 4:
                out.add(piece)
                out.add(piece.translate(_URLSAFE_OUT))
    return tuple(sorted(out))


# `base64_needles()`, written out: computing it needs binascii, which a hook need not import.
BASE64_NEEDLES = (
    "0tLS0tQkVHSU",
    "4YXBwL",
    "4b3hiL",
    "4b3hwL",
    "7ImF1dGhzI",
    "BS0lB",
    "FLSU",
    "ImF1dGgiO",
    "JhdXRoIj",
    "LS0tLS1CRUdJT",
    "NrLWFudC",
    "NrLXByb2ot",
    "NrX2xpdmVf",
    "QUtJQ",
    "Z2hvX",
    "Z2hwX",
    "Z2hzX",
    "Z2l0aHViX3BhdF",
    "Z2xwYXQt",
    "c2stYW50L",
    "c2stcHJvai",
    "c2tfbGl2ZV",
    "dob1",
    "doc1",
    "docF",
    "dpdGh1Yl9wYXRf",
    "dscGF0L",
    "eG94Yi",
    "eG94cC",
    "eGFwcC",
    "eyJhdXRocy",
    "hhcHAt",
    "hveGIt",
    "hveHAt",
    "iYXV0aCI6",
    "naG9f",
    "naHBf",
    "naHNf",
    "naXRodWJfcGF0X",
    "nbHBhdC",
    "siYXV0aHMi",
    "tLS0tLUJFR0lO",
    "za19saXZlX",
    "zay1hbnQt",
    "zay1wcm9qL",
)


def clean(text: str) -> bool:
    """True when `redact.redact(text)` is sure to return `text` unchanged: no terminal control,
    no escape (`\\`), no needle of any kind, no PEM end line, no base64 of a known opening.
    False means "ask the redactor", not "holds a secret"."""
    if not text:
        return True
    if "\\" in text or "PRIVATE KEY" in text:
        return False
    if not text.isprintable() and not text.replace("\n", "").replace("\t", "").isprintable():
        return False
    low = text.lower()
    if any(n in low for n in FOLDED) or any(n in text for n in EXACT):
        return False
    return len(text) < 16 or not any(n in text for n in BASE64_NEEDLES)
