"""The one redactor: every text written to disk or printed passes through `redact`.

A text is scanned once, by one alternation of the kinds whose needles (cheap substrings) it
contains. `scan` reports which kinds a text holds without returning the secrets themselves.
"""

from __future__ import annotations

import functools
import re
from typing import Any

MARK = "[REDACTED]"

# (kind, pattern). Where a pattern has a group named `keep_<kind>`, that prefix survives.
# Every repetition that is tried at many starting points is bounded ({0,64}, {0,1024}): an
# unbounded one makes a long run like `a-a-a-…` quadratic, and a hook would miss its deadline.
_PATTERNS: list[tuple[str, str]] = [
    ("private_key",
     r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
     r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"),
    ("anthropic", r"\bsk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_\-]{16,}"),
    ("openai_project", r"\bsk-(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_\-]{16,}"),
    ("openai", r"\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?"),
    ("stripe", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"),
    ("github", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{30,})"),
    ("gitlab", r"\bgl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_\-]{20,}"),
    ("huggingface", r"\bhf_[A-Za-z0-9]{30,}"),
    ("npm", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+"),
    ("slack", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("discord_webhook", r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+"),
    ("google_api", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("google_oauth", r"\bya29\.[0-9A-Za-z_\-]{20,}|\bGOCSPX-[A-Za-z0-9_\-]{20,}"),
    # STS session tokens run to a thousand characters: too long for a generic `KEY=value`.
    ("aws_session_token", r"\b(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj)[A-Za-z0-9+/=]{100,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
    ("azure_storage", r"AccountKey=[A-Za-z0-9+/=]{40,}"),
    ("sendgrid", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    ("twilio", r"\bSK[0-9a-f]{32}\b"),
    ("digitalocean", r"\bdo[poa]_v1_[a-f0-9]{64}\b"),
    ("shopify", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("mailgun", r"\bkey-[0-9a-f]{32}\b"),
    ("telegram", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    ("square", r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"),
    ("linear", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    ("notion", r"\bntn_[A-Za-z0-9]{40,}|\bsecret_[A-Za-z0-9]{43}\b"),
    ("doppler", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("docker_hub", r"\bdckr_pat_[A-Za-z0-9_\-]{27,}"),
    ("groq", r"\bgsk_[A-Za-z0-9]{48,}"),
    ("xai", r"\bxai-[A-Za-z0-9]{70,}"),
    ("replicate", r"\br8_[A-Za-z0-9]{37}\b"),
    ("perplexity", r"\bpplx-[A-Za-z0-9]{40,}"),
    ("postman", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("new_relic", r"\bNRAK-[A-Z0-9]{27}\b"),
    ("grafana", r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}"),
    ("databricks", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("alibaba", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    ("age", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    ("mapbox", r"\bsk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}"),
    # A PEM block base64-encoded again (kubeconfig `client-key-data`, Kubernetes secrets).
    ("pem_base64", r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}"),
    ("azure_sas", r"(?P<keep_azure_sas>[?&]sig=)[A-Za-z0-9%+/=]{20,}"),
    ("netrc", r"(?P<keep_netrc>\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+)\S+"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{5,1024}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer", r"(?P<keep_bearer>\b(?i:bearer|token)\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
    ("basic_auth", r"(?P<keep_basic_auth>\b(?i:basic)\s+)[A-Za-z0-9+/]{16,}={0,2}"),
    ("url_credentials",
     r"(?P<keep_url_credentials>\b[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://[^\s:/@\"'<>]{0,256}:)"
     r"[^\s@/\"'<>]{1,256}(?=@)"),
    # KEY=value, key: value, "key": "value" for names that say secret.
    ("assignment",
     # The match starts at the word that says secret (`AWS_` of `AWS_SECRET…` stays outside
     # it): a scan for a name prefix at every word start would cost 64 tries per position.
     r"(?P<keep_assignment>"
     r"(?i:secret|passw(?:or)?d|passwd|pwd|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
     r"|credentials?|auth[_\-]?key|session[_\-]?key)"
     # A name for something about a secret (its file, URL, header, variable) holds none.
     r"(?![\w.\-]{0,64}?(?i:file|path|url|uri|endpoint|env|header|name|manager)[\"']?\s*[:=])"
     # `key: value` needs a space or a quote at the colon: `file.py:3:code` is not one.
     # Quotes may come JSON-escaped (`\\"`): the text of a log line or of a tool's JSON output.
     r"[\w.\-]{0,64}\\*[\"']?\s*(?::=|=|:(?=\\?[\s\"'])|(?<=[\"']):)\s*\\*[\"']?)"
     # Not a value: a PEM block (left whole to `private_key`), a $VARIABLE, a URL (credentials
     # in URLs have their own pattern), a path, a placeholder (`your-…`, `sk-...`).
     r"(?![\"']?\s)(?!-----BEGIN|[$]|[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://|\.{0,2}/[\w.\-]{1,64}/"
     r"|(?i:your)[_\-])"
     r"(?![^\s\"',;\\]{0,64}\.\.\.)(?=[^\s\"',;\\]{0,1024}[A-Za-z])"
     r"(?=[^\s\"',;\\]{0,1024}[0-9/+_\-])"
     # ...and not code that goes on after it (`self._tokens.get(`).
     r"[^\s\"',;(){}\[\]<>\\]{6,1024}(?![\w(]|\.[\w(])"),
]



def _combined(patterns: list[tuple[str, str]]) -> re.Pattern[str]:
    """One alternation; the patterns that open with a word boundary share a single `\\b`, so
    the many prefix kinds cost one test, not one each, at a position inside a word."""
    bounded = [f"(?P<{kind}>{pat[2:]})" for kind, pat in patterns if pat.startswith(r"\b")]
    branches: list[str] = []
    for kind, pat in patterns:
        if not pat.startswith(r"\b"):
            branches.append(f"(?P<{kind}>{pat})")
        elif bounded:  # the first of them stands for all, in their order
            branches.append(r"\b(?:" + "|".join(bounded) + ")")
            bounded = []
    return re.compile("|".join(branches))


# For each kind, lowercase strings of which every match holds at least one. A text runs only
# the kinds whose needles it contains: a substring test costs microseconds, a regex branch
# tried at every position far more (tests check every kind has needles that its matches hold).
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",), "anthropic": ("sk-ant-",), "openai_project": ("sk-",),
    "openai": ("sk-",), "stripe": ("_live_", "_test_", "whsec_"),
    "github": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab": ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-"), "huggingface": ("hf_",),
    "npm": ("npm_",), "pypi": ("pypi-age",), "slack_webhook": ("hooks.slack.com",),
    "slack": ("xox",), "discord_webhook": ("/api/webhooks/",), "google_api": ("aiza",),
    "google_oauth": ("ya29.", "gocspx-"),
    "aws_session_token": ("fwogzxivyxdz", "iqojb3jpz2lux2vj"),
    "aws_access_key": ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa"),
    "azure_storage": ("accountkey=",), "sendgrid": ("sg.",), "twilio": ("sk",),
    "digitalocean": ("_v1_",), "shopify": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "mailgun": ("key-",), "telegram": (":aa",), "square": ("sq0atp-", "sq0csp-"),
    "linear": ("lin_api_", "lin_oauth_"), "notion": ("ntn_", "secret_"), "doppler": ("dp.",),
    "docker_hub": ("dckr_pat_",), "groq": ("gsk_",), "xai": ("xai-",), "replicate": ("r8_",),
    "perplexity": ("pplx-",), "postman": ("pmak-",), "new_relic": ("nrak-",),
    "grafana": ("glsa_", "glc_"), "databricks": ("dapi",), "alibaba": ("ltai",),
    "age": ("age-secret-key-1",), "mapbox": ("sk.eyj",), "pem_base64": ("ls0tls1crudjti",),
    "azure_sas": ("sig=",), "netrc": ("machine",), "jwt": ("eyj",),
    "bearer": ("bearer", "token"), "basic_auth": ("basic",), "url_credentials": ("://",),
    "assignment": ("secret", "passw", "pwd", "token", "key", "credential"),
}
_BY_KIND = dict(_PATTERNS)
_KEEP = {kind: f"keep_{kind}" for kind, pat in _PATTERNS if f"keep_{kind}" in pat}
KINDS = tuple(kind for kind, _ in _PATTERNS)


def _kinds_in(text: str) -> tuple[str, ...]:
    low = text.lower()
    return tuple(k for k in KINDS if any(n in low for n in _NEEDLES[k]))


@functools.lru_cache(maxsize=1024)
def _compiled(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return _combined([(k, _BY_KIND[k]) for k in kinds])


def _replace(m: re.Match[str]) -> str:
    kind = m.lastgroup or ""
    keep_group = _KEEP.get(kind)
    keep = m.group(keep_group) if keep_group else ""
    return f"{keep or ''}{MARK}"


def redact(text: str) -> str:
    """Return `text` with every secret the patterns know replaced by `[REDACTED]`."""
    kinds = _kinds_in(text) if text else ()
    return _compiled(kinds).sub(_replace, text) if kinds else text


def scan(text: str) -> list[str]:
    """The kinds of secret `text` holds, without the secrets. Empty when clean."""
    kinds = _kinds_in(text)
    return sorted({m.lastgroup or "" for m in _compiled(kinds).finditer(text)}) if kinds else []


def redact_obj(value: Any) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists, strings)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_obj(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_obj(v) for v in value]
    return value
