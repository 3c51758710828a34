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


# --- the context of everyday-word needles ----------------------------------------------------
# Three kinds have needles that are everyday words (`token`, `key`, `pass`, `auth`): a text
# holds one far more often than a secret, and each false alarm costs a hook `re` and the
# patterns' compile (~8 ms, more than half a bare start). `MAY` holds a necessary condition of
# each one's pattern, tested at every place one of its needles occurs in the lowered text:
# False means the pattern cannot match there, so the kind is not looked for.

# What ends the rest of a name (`[\w.\-]*`, which holds none of these): skipping up to one
# of them, not over word characters, keeps the test sound where lowering changed a letter.
_NAME_END = frozenset(" \t\r\n\"'`:=,")
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._~+/-")
_KEY_LEAD = 9  # `private-key`: the name's word starts this far before its needle at most
_NAME_MAX = 2 * (64 + 9) + 1


# `re` matches `ſ` as `s`, and `ı` and `İ` as `i`, in the patterns' case-insensitive parts;
# `str.lower` keeps the first two and makes the third an `i` and a combining dot (U+0307).
_ODD = ("\u017f", "\u0131", "\u0307")


def fold(low: str) -> str:
    """A lowered text as its needles are looked for: those three letters as `re` reads them."""
    if not any(c in low for c in _ODD):
        return low
    return low.replace("\u017f", "s").replace("\u0131", "i").replace("\u0307", "")


_PLACES_MAX = 1000  # past this many, the pattern itself is the cheaper test


class _Many(Exception):
    """A needle occurs more than `_PLACES_MAX` times: the kind is looked for."""


def _places(low: str, needle: str) -> list[int]:
    out: list[int] = []
    at = low.find(needle)
    while at >= 0:
        if len(out) == _PLACES_MAX:
            raise _Many
        out.append(at)
        at = low.find(needle, at + 1)
    return out


class _NameEnds:
    """Where the rest of a name starting at each of increasing positions ends: the first of
    `_NAME_END` within `_NAME_MAX` characters, else -1 (the patterns take 64 after a name's
    word, which is at most 9 longer than its needle). Each character is read once, however
    many needles a long run without a blank holds."""

    __slots__ = ("low", "scanned", "stop")

    def __init__(self, low: str) -> None:
        self.low = low
        self.scanned = 0  # no name end lies in [the last position asked, scanned)
        self.stop = -1  # the name end found last

    def past(self, at: int) -> int:
        low = self.low
        if self.stop < at:
            i, limit = max(at, self.scanned), min(len(low), at + _NAME_MAX)
            while i < limit and low[i] not in _NAME_END:
                i += 1
            self.scanned = i
            if i < limit or i == len(low):
                self.stop = i
            else:
                return -1
        if self.stop - at < _NAME_MAX or (self.stop == len(low) and self.stop - at <= _NAME_MAX):
            return self.stop
        return -1


def _past_blanks(low: str, at: int) -> int:
    end = len(low)
    while at < end and low[at] in " \t":
        at += 1
    return at


def _assignment_may(low: str) -> bool:
    """`NAME = …`, `NAME: …`, `"NAME": …`: after a needle, the rest of a name, a quote,
    blanks, then `:`, `=` or `,`."""
    for needle in BY_KIND["assignment"]:
        ends = _NameEnds(low)
        for at in _places(low, needle):
            i = ends.past(at + len(needle))
            if i < 0:
                continue
            if low[i : i + 1] in ('"', "'", "`"):
                i += 1
            i = _past_blanks(low, i)
            if low[i : i + 1] in (":", "=", ","):
                return True
    return False


def _option_may(low: str) -> bool:
    """`--NAME VALUE`: a dash just before the name's word, the rest of the name, a blank."""
    for needle in BY_KIND["option"]:
        ends = _NameEnds(low)
        for at in _places(low, needle):
            if low.rfind("-", max(0, at - _KEY_LEAD), at) < 0:
                continue
            i = ends.past(at + len(needle))
            if i >= 0 and low[i : i + 1] in (" ", "\t"):
                return True
    return False


def _token_word_may(low: str) -> bool:
    """`token VALUE` in prose: blanks, then 16 characters a token is made of."""
    for at in _places(low, "token"):
        i = _past_blanks(low, at + 5)
        if i == at + 5:
            continue
        run = i
        while run < len(low) and run - i < 16 and low[run] in _TOKEN_CHARS:
            run += 1
        if run - i >= 16:
            return True
    return False


MAY = {"assignment": _assignment_may, "option": _option_may, "token_word": _token_word_may}


def may(kind: str, low: str) -> bool:
    """False when the lowered text `low` cannot hold a match of `kind`'s pattern although it
    holds one of its needles (see `MAY`); True for every other kind."""
    check = MAY.get(kind)
    if check is None or any(c in low for c in _ODD):
        return True
    try:
        return check(low)
    except _Many:
        return True


def found(text: str, low: str) -> list[str]:
    """The needles `text` holds (`low` is `text.lower()`): the folded ones in `low` as `re`
    reads its letters, the exact ones in `text` as written."""
    look = fold(low)
    return [n for n in FOLDED if n in look] + [n for n in EXACT if n in text]


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
    if found(text, text.lower()):
        return False
    return len(text) < 16 or not any(n in text for n in BASE64_NEEDLES)
