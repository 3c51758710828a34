r"""The one redactor: every text written to disk or printed passes through `redact`.

A secret is found by its value (a provider's token shape, a PEM block, a token base64- or
hex-encoded), by its name (`DB_PASS=…`, `"password": …`, `password:…`, `--token …`,
`Authorization: …`, `aws configure set aws_secret_access_key …`), and through encodings: a
text holding JSON escapes (`\n`, `\/`, `\"`) or URL escapes (`%22`, `%3D`) is matched as the
string it encodes, and the match is mapped back onto the escaped text; a run of base64 or hex
that decodes to text is scanned as that text.

A text is scanned once, by one alternation (`re`) of the kinds whose hints (literal pieces
of their patterns) it holds; two passes follow only where their markers occur (a PEM END
line, a run that may encode text).
`scan` and `findings` report which kinds a text holds and where, without returning the
secrets. No rule crosses a newline, except a PEM block's own lines.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Span = tuple[str, int, int]  # (kind, start, end) of a secret

MARK = "[REDACTED]"
# Each pattern compiled on first use: a text with no escape, no PEM end and no encoded run
# never compiles the patterns that read them.
_rx = functools.cache(re.compile)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A relative path (`keys/id.pem`, `./conf/x`, `~/x`): what a secret-named key may hold and keep.
# An all-lowercase `a/b` or a last part with an extension: base64 secrets have capitals.
_PATH = (
    r"(?:(?:\.{1,2}|~)/[\w.\-/]*"
    r"|[\w.\-]+(?:/[\w.\-]+)*/[\w\-]*\.[A-Za-z0-9]{1,8}(?![\w+/=])"
    r"|[a-z0-9_.\-]+(?:/[a-z0-9_.\-]+)+/?(?![\w+/=]))"
)
_HASH_UUID_NUMBER = (
    r"(?:[0-9a-fA-F]{7,64}(?![\w+/=])"
    r"|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}(?![\w+/=])"
    r"|\d[\d,._]*(?![\w+/=]))"
)
# The words of a name that says secret. Strong ones count at the end of any word
# (`identitytoken`); weak ones only as a whole part of a name (`DB_PASS`, not `bypass`).
_STRONG = tuple(
    _words("password passwd passphrase secret token credential credentials apikey authorization")
)
_WEAK = ("pass", "pwd", "auth", "creds")  # and `key`, last, after a word that is no database's
# The first letters lead: one test rejects most positions before the words are tried.
_NAME_WORD = (
    r"(?=[ACKPSTackpst])(?:(?i:passw(?:or)?d|passphrase|secret|token|credentials?|apikey"
    r"|authorization)|(?:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z]))(?i:pass|pwd|key|auth|creds"
    r"|api[ _.\-]key|access[ _.\-]key|private[ _.\-]key))(?![a-z])"
)

_NAME_HINTS = ("secret", "pass", "pwd", "token", "key", "credential", "creds", "auth")

# (kind, hints, pattern). The hints are cheap substrings the pattern cannot match without
# (`re` then compiles and runs only the kinds a text may hold). They are looked for in the
# text with the letters `re` folds onto ASCII folded (`_AS_RE`) and lowered; one with a
# capital, as written (a Twilio key opens with `SK`, and `sk` is in every "task").
# Where a pattern has a group named `keep_<kind>`, that prefix survives.
# Every repetition that is tried at many starting points is bounded ({0,64}, {0,1024}): an
# unbounded one makes a long run like `a-a-a-…` quadratic, and a hook would miss its deadline.
_PATTERNS: list[tuple[str, tuple[str, ...], str]] = [
    # A PEM block: the BEGIN line, then only lines of base64 or headers (`Proc-Type: …`),
    # then the END line when it is there (a truncated block is redacted to its last body line).
    (
        "private_key",
        ("private key",),
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[ \t]*\r?\n[ \t]*(?:[A-Za-z0-9+/=]{1,128}"
        r"|(?:Proc-Type|DEK-Info|Version|Comment|Charset|Hash):[^\n]{0,256})?)*"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    # A PEM body without its BEGIN line: the DER of a private key opens the same way in
    # base64 (PKCS#1, PKCS#8, EC, Ed25519, encrypted PKCS#8, OpenSSH); its lines follow.
    (
        "pem_body",
        (
            "ibaa",
            "ibad",
            "migkagebbd",
            "mighageambmg",
            "mhccaqee",
            "mc4caqaw",
            "dbobgkqhkig9w0bbq0w",
            "b3blbnnzac1rzxktdje",
        ),
        r"\b(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA[AD]|MIGkAgEBBD|MIGHAgEAMBMG|MHcCAQEE|MC4CAQAw"
        r"|MII[A-Za-z0-9+/]{2}DBOBgkqhkiG9w0BBQ0w|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{8,128}"
        r"(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]{16,128}(?![^\n]))*"
        r"(?:[ \t]*\r?\n[ \t]*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    # The most distinctive openings need no word boundary before them: a token glued to a
    # letter or a digit (`xghp_…`, `2ghp_…`) is still one.
    ("anthropic", ("sk-ant-",), r"sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_\-]{16,}"),
    ("openai_project", ("sk-",), r"sk-(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_\-]{16,}"),
    ("openai", ("sk-",), r"\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?"),
    (
        "stripe",
        ("_live_", "_test_", "whsec_"),
        r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
    ),
    (
        "github",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{30,})",
    ),
    (
        "gitlab",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-"),
        r"gl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_\-]{20,}",
    ),
    ("huggingface", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}"),
    ("npm", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi", ("pypi-age",), r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    (
        "slack_webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
    ),
    ("slack", ("xox", "xapp-"), r"xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}"),
    (
        "discord_webhook",
        ("/api/webhooks/",),
        r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+",
    ),
    ("google_api", ("aiza",), r"\bAIza[0-9A-Za-z_\-]{35}"),
    (
        "google_oauth",
        ("ya29.", "gocspx-"),
        r"\bya29\.[0-9A-Za-z_\-]{20,}|\bGOCSPX-[A-Za-z0-9_\-]{20,}",
    ),
    # STS session tokens run to a thousand characters: too long for a generic `KEY=value`.
    (
        "aws_session_token",
        ("fwogzxivyxdz", "iqojb3jpz2lux2vj"),
        r"\b(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj)[A-Za-z0-9+/=]{100,}",
    ),
    (
        "aws_access_key",
        ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa"),
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",
    ),
    ("azure_storage", ("accountkey=",), r"AccountKey=[A-Za-z0-9+/=]{40,}"),
    ("sendgrid", ("sg.",), r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    ("twilio", ("SK",), r"\bSK[0-9a-f]{32}\b"),
    ("digitalocean", ("_v1_",), r"\bdo[poa]_v1_[a-f0-9]{64}\b"),
    (
        "shopify",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
    ),
    ("mailgun", ("key-",), r"\bkey-[0-9a-f]{32}\b"),
    ("telegram", (":aa",), r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    ("square", ("sq0atp-", "sq0csp-"), r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"),
    ("linear", ("lin_api_", "lin_oauth_"), r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    ("notion", ("ntn_", "secret_"), r"\bntn_[A-Za-z0-9]{40,}|\bsecret_[A-Za-z0-9]{43}\b"),
    ("doppler", ("dp.",), r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("docker_hub", ("dckr_pat_",), r"\bdckr_pat_[A-Za-z0-9_\-]{27,}"),
    ("groq", ("gsk_",), r"\bgsk_[A-Za-z0-9]{48,}"),
    ("xai", ("xai-",), r"\bxai-[A-Za-z0-9]{70,}"),
    ("replicate", ("r8_",), r"\br8_[A-Za-z0-9]{37}\b"),
    ("perplexity", ("pplx-",), r"\bpplx-[A-Za-z0-9]{40,}"),
    ("postman", ("pmak-",), r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("new_relic", ("nrak-",), r"\bNRAK-[A-Z0-9]{27}\b"),
    (
        "grafana",
        ("glsa_", "glc_"),
        r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}",
    ),
    ("databricks", ("dapi",), r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("alibaba", ("ltai",), r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    ("age", ("age-secret-key-1",), r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    ("mapbox", ("sk.eyj",), r"\bsk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}"),
    # A PEM block base64-encoded again (kubeconfig `client-key-data`, Kubernetes secrets).
    ("pem_base64", ("ls0tls1crudjti",), r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}"),
    ("azure_sas", ("sig=",), r"(?P<keep_azure_sas>[?&]sig=)[A-Za-z0-9%+/=]{20,}"),
    (
        "netrc",
        ("machine",),
        r"\b(?P<keep_netrc>machine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+)\S+",
    ),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_\-]{5,1024}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer", ("bearer",), r"\b(?P<keep_bearer>(?i:bearer)[ \t]+)[A-Za-z0-9._~+/\-]{16,}=*"),
    # `token X` in prose: X is a token unless it is a hash, a UUID, a number or a path.
    (
        "token_word",
        ("token",),
        r"\b(?P<keep_token_word>(?i:token)[ \t]+)(?!" + _HASH_UUID_NUMBER + "|" + _PATH + r")"
        r"[A-Za-z0-9._~+/\-]{16,}=*",
    ),
    ("basic_auth", ("basic",), r"\b(?P<keep_basic_auth>(?i:basic)[ \t]+)[A-Za-z0-9+/]{16,}={0,2}"),
    # scheme://user:password@host; the password may hold any character but `@` and spaces,
    # and a port (`host:8080/path@x`) is not one.
    (
        "url_credentials",
        ("://",),
        r"\b(?P<keep_url_credentials>[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://[^\s:/@\"'<>]{0,256}:)"
        r"(?![0-9]{1,5}/|(?i:password|passwd|pass|pw|token|secret|x+|\*+)@)[^\s@\"'<>]{1,256}(?=@)",
    ),
    # `curl -u user:pw`, `--user user:pw` (a numeric `uid:gid` is not a password).
    (
        "cli_user",
        ("-u", "--user"),
        r"(?P<keep_cli_user>(?=-)(?<![\w\-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"'$]{1,256}:)"
        r"(?![0-9]+(?:[\s\"']|$))[^\s\"']{1,256}",
    ),
    # `mysql -pPW`: the password glued to `-p` (a client of the MySQL family only).
    (
        "mysql",
        ("mysql", "mariadb"),
        r"\b(?P<keep_mysql>(?i:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]{0,256}?"
        r"[ \t]-p[\"']?)[^\s\"']{1,256}",
    ),
    # A password given to a short option, only after the programs where it means one:
    # `sshpass -p PW`, `docker login -p PW`, `redis-cli -a PW`, `htpasswd -b FILE USER PW`
    # (`-nb USER PW`). `ssh -p 22`, `docker run -p 8080:80` and a `$VAR` are no password.
    (
        "cli_password",
        ("sshpass", "docker", "podman", "nerdctl", "buildah", "skopeo", "redis-cli", "htpasswd"),
        r"\b(?P<keep_cli_password>(?:sshpass(?:[ \t]+-[vhe]|[ \t]+-[fdP][ \t]*[^\s\-]\S*)*"
        r"[ \t]+-p[ \t]*"
        r"|(?:docker|podman|nerdctl|buildah|skopeo)[ \t]+login\b"
        r"[^\n|;&]{0,256}?[ \t]-p(?:[ \t]+|=)?"
        r"|redis-cli\b[^\n|;&]{0,256}?[ \t]-a[ \t]+"
        r"|htpasswd(?=(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?){0,8}?[ \t]+-[A-Za-z]*b)"
        r"(?:[ \t]+-(?:[A-Za-z]*(?P<htpasswd_n>n)[A-Za-z]*|[A-Za-z]+)(?:[ \t]+\d+)?){1,8}"
        r"(?(htpasswd_n)|[ \t]+[^\s\-]\S*)[ \t]+[^\s\-]\S*[ \t]+)[\"']?)"
        r"(?![\-$])[^\s\"']{1,256}",
    ),
    # A value under a name that says secret: `NAME=value`, `name: value`, `"name": "value"`,
    # `--name value`, `Authorization: Bearer value`. The match starts at the word that says
    # secret (`AWS_` of `AWS_SECRET…` stays outside it); `_assignment` reads the whole name
    # and the value and decides (a path, a placeholder or code is no secret).
    (
        "assignment",
        _NAME_HINTS,
        r"(?P<keep_assignment>"
        + _NAME_WORD
        + r"[\w.\-]{0,64}[\"'`]?[ \t]*(?P<sep>:=|=>|(?<![=!<>])=(?![=~])|:(?=[ \t\"'`])"
        r"|(?<=[\"'`])[:,]|(?P<glued>:)(?=[^\s\"'`:/\\=?+\-]))[ \t]*"
        r"(?P<scheme>(?i:bearer|basic|token|digest|negotiate|apikey)[ \t]+)?)"
        r"(?:(?P<q>[\"'`])(?P<qv>[^\n]{0,1024}?)(?:(?P=q)|(?=\r?\n|$))|(?P<uv>[^\s\"'`<>=][^\s\"'`<>]{0,1023}))",
    ),
    # `--password PW`, `--api-key PW`: an option that says secret, its value after a space.
    (
        "option",
        _NAME_HINTS,
        r"\b(?P<keep_option>(?<=-)" + _NAME_WORD + r"[\w.\-]{0,64}[ \t]+)"
        r"(?:(?P<oq>[\"'])(?P<oqv>[^\n]{0,1024}?)(?P=oq)|(?P<ouv>[^\s\"'`<>\-=:][^\s\"'`<>]{0,1023}))",
    ),
    # A `.pgpass` line: `host:port:database:user:password`, wherever it is quoted.
    (
        "pgpass",
        (":",),
        r"(?<![^\s\"'`>(\[,;])(?P<keep_pgpass>[A-Za-z0-9*\[][^\s:\"'`,{}]{0,255}:(?:\d{1,5}|\*)"
        r":[^\s:\"'`,\[\]{}]{1,256}:[^\s:\"'`,\[\]{}]{1,256}:)[^\s:\"'`]{1,256}(?![^\s\"'`])",
    ),
    # A secret set through a tool's config command: `aws configure set aws_secret_access_key
    # V`, `npm config set //registry/:_authToken V`, `git config --global github.token V`.
    (
        "cli_config",
        ("config",),
        r"\b(?P<keep_cli_config>(?:aws[ \t]+configure[ \t]+set|(?:npm|pnpm|yarn)[ \t]+config"
        r"[ \t]+set|git[ \t]+config)(?:[ \t]+--[\w\-]+)*[ \t]+[\w.\-/:@]{0,128}?"
        r"(?i:secret|token|passw(?:or)?d|_key|auth)[\w.\-/:@]{0,128}[ \t]+[\"']?)"
        r"(?![\-$])[^\s\"']{1,256}",
    ),
    # `.netrc` over several lines: `password PW` alone on its line, or PW holds a digit.
    (
        "netrc_line",
        ("passw",),
        r"\b(?P<keep_netrc_line>(?=[Pp])(?:(?<![\s\S])|(?<=\n)|(?<=\n[ \t])|(?<=\n  )|(?<=\n    )"
        r"|(?<=\n\t\t))(?i:passw(?:or)?d)[ \t]+)"
        r"(?:\S{1,256}(?=[ \t]*(?:\r?\n|$))|(?=[^\s\d]{0,256}\d)\S{1,256})",
    ),
]
# Kinds whose match `_assignment` may turn down (then what it holds is scanned again).
_CHECKED = {"assignment", "option"}

_BY_KIND = {kind: pat for kind, _, pat in _PATTERNS}
_KEEP = {kind: f"keep_{kind}" for kind, _, pat in _PATTERNS if f"keep_{kind}" in pat}
_LOWER = [*dict.fromkeys(h for _, hs, _ in _PATTERNS for h in hs if h == h.lower())]  # in `low`
_CASED = [*dict.fromkeys(h for _, hs, _ in _PATTERNS for h in hs if h != h.lower())]  # as written


@functools.lru_cache(maxsize=1024)  # few sets of kinds recur
def _compiled(kinds: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation of `kinds`; the patterns that open with a word boundary share a single
    `\\b`, so the many prefix kinds cost one test, not one each, at a position inside a word."""
    bounded = [f"(?P<{k}>{_BY_KIND[k][2:]})" for k in kinds if _BY_KIND[k].startswith(r"\b")]
    branches: list[str] = []
    for kind in kinds:
        if not _BY_KIND[kind].startswith(r"\b"):
            branches.append(f"(?P<{kind}>{_BY_KIND[kind]})")
        elif bounded:  # the first of them stands for all, in their order
            branches.append(r"\b(?:" + "|".join(bounded) + ")")
            bounded = []
    return re.compile("|".join(branches))


def _kinds_in(text: str) -> tuple[str, ...]:
    """The kinds whose hints `text` holds (each hint looked for once, one with a capital as
    written), in the patterns' order."""
    odd = not text.isascii() and any(chr(c) in text for c in _AS_RE)
    low = (text.translate(_AS_RE) if odd else text).lower()
    found = {*filter(low.__contains__, _LOWER), *filter(text.__contains__, _CASED)}
    return tuple(kind for kind, hints, _ in _PATTERNS if not found.isdisjoint(hints))


# --- names that say secret --------------------------------------------------------------------


# A last part that makes the name about a secret, not the secret (its file, length, header...).
_META = _words("""
    user users username login email model models file files path paths dir directory folder
    location loc url urls uri endpoint host hostname port env var header headers name names
    manager count counts length len size type types kind id ids arn limit limits max min ttl
    expiry expires expiration expire timeout format method methods provider providers mode
    scheme strategy enabled enable disabled required version field fields prefix hint label
    prompt policy rotation server realm scope scopes usage budget index num number position
    offset source src store storage backend helper cmd command stdin template pattern regex
    bits algorithm alg algo ref reference date at time timestamp created updated valid
    validity lifetime duration interval seconds secs ms days hours minutes retries attempts
    strength error errors message msg status state flag check verified reset changed rules
    schema class module service plugin handler callback fn func function hook
""")
# `*_KEY` names that are not secret: a database's, a cache's, a public one.
_NOT_SECRET_KEY = _words("""
    primary foreign sort partition cache hash range public publishable idempotency object
    routing lookup row unique composite shortcut hot modifier dedup dedupe group message
    cursor dict map i18n translation storage s3
""")
# `MAX_TOKEN`, `CHARS_PER_TOKEN`: the tokens a model counts.
_COUNTED = _words("max min num per total input output prompt completion context cached chars")
_NAME_PARTS = r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+"


def _name_words(name: str) -> list[str]:
    """The words of a name, lowered, without numbers (`DB_PASS`, `apiKey`, `HTTPServer2`:
    `http`, `server`)."""
    return [p.lower() for p in _rx(_NAME_PARTS).findall(name.translate(_AS_RE)) if not p.isdigit()]


# The letters `re` reads as ASCII ones in the names' case-insensitive patterns (`paſsword`).
_AS_RE = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "I", "\u212a": "K"})


@functools.lru_cache(maxsize=4096)
def secret_name(name: str) -> bool:
    """Whether a key or variable name says its value is secret (`DB_PASS`, `apiKey`,
    `X-Vault-Token`, `identitytoken`), not a name about one (`token_count`, `SECRET_FILE`)."""
    if name in ("PWD", "OLDPWD"):  # the shell's working folder
        return False
    parts = _name_words(name)
    if not parts or parts[-1] in _META or parts[0] == "no":  # `no-hardcoded-credentials`
        return False
    for i, part in enumerate(parts):
        if part == "token" and _COUNTED.intersection(parts[:i]):  # a model's tokens, counted
            return False
        pair = parts[i - 1] + part if i else ""
        if part.endswith(_STRONG) or part in _WEAK or pair in ("apikey", "accesskey", "privatekey"):
            return True
        if part == "key" and i == len(parts) - 1 and i and parts[i - 1] not in _NOT_SECRET_KEY:
            return True
    return False


def _strong_name(name: str) -> bool:
    """A name whose last word says password, secret, token or credential (`password`,
    `DB_PASS`, `apiToken`): what may take its value glued to a colon (`password:PW`)."""
    parts = _name_words(name)
    return bool(parts) and (parts[-1].endswith(_STRONG) or parts[-1] in ("pass", "pwd"))


_CODE_WORDS = _words("""
    str bytes int bool float none null nil true false undefined optional string secretstr
    secretbytes secret any object dict list callable self this required
""")
# `$VAR`, `{{ x }}`, `<token>`, `***`, `sk-...` (three dots a person typed: `…` is a clip
# mark, and what it ends is redacted), an earlier `[REDACTED]`, `your_key`, `xxxxxx`.
_PLACEHOLDER = (
    r"\$(?:[{(]|[A-Za-z_]\w*(?:[:.\-}]|$))|%(?:\(|\w+%)|\{\{|<[^>]*>$|\*{3}"
    r"|[\w\-]{0,16}\.{3}$|…$|\[REDACTED\]|(?i:your[_\-])|x{6,}$"
)
# Values that stand for a secret without being one (`.env.example`, CI permissions).
_PLACEHOLDER_WORDS = _words("""
    changeme change-me change_me changeit replaceme replace-me replace_me todo tbd
""")
# Literals, CI permissions, and an auth scheme with nothing after it.
_LITERALS = _words("""
    none null nil true false undefined read write bearer basic digest negotiate
""")
_IDENT_CALL = r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(|\[)"
# `self.token`, `os.environ`, `args.password`: where code keeps a secret, not the secret.
_ATTRIBUTE = (
    r"(?:self|this|cls|os|config|conf|cfg|settings|args|opts|options|params"
    r"|env|process|request|req|ctx|context|app|secrets|kwargs|creds"
    r"|credentials|auth|data|values|user|client|props|state)"
    r"(?:\.[A-Za-z_]\w*)+[,;)]*"
)


def _value_kept(value: str, name: str, quoted: bool) -> bool:
    """A value under a secret name that holds no secret: empty, a placeholder, a relative path,
    and (unquoted) code: a type, a literal, a call, an attribute, the name passed on."""
    if (
        not value
        or _rx(_PLACEHOLDER).match(value)
        or value.lower() in _PLACEHOLDER_WORDS
        or _rx(_PATH).fullmatch(value)
    ):
        return True
    if quoted:
        return False
    low = value.rstrip(",;:)]}").lower()
    if low in _LITERALS or value.startswith(("{", "[")):
        return True
    if "-" in name:  # a header or an option: no code names it
        return False
    if low in _CODE_WORDS or _rx(_IDENT_CALL).match(value) or _rx(_ATTRIBUTE).fullmatch(value):
        return True
    last = name.lower().rsplit(".", 1)[-1]
    return low.replace("_", "") == last.replace("_", "")


_NAME_BEFORE = r"[\w.\-]{0,64}\Z"
_NAME_REST = r"[\w.\-]*"
_QUOTES = ('"', "'", "`")
_SCHEME = r"(?i:bearer|basic|token|digest|negotiate)[ \t]+"


def _assignment(m: re.Match[str], kind: str) -> tuple[int, int] | None:
    """The span of a secret-named value to redact, or None when this is no secret."""
    text = m.string
    start = m.start()
    before = _rx(_NAME_BEFORE).search(text, max(0, start - 64), start)
    head = before.group() if before else ""
    name_start = start - len(head)
    rest = _rx(_NAME_REST).match(text, start, m.end(f"keep_{kind}"))
    name_end = rest.end() if rest else start
    name = text[name_start:name_end]
    bare_name = name.strip("-")
    option = name.startswith("-")
    uv, qv = ("uv", "qv") if kind == "assignment" else ("ouv", "oqv")
    if kind == "option" and not option:
        return None
    if kind == "assignment" and m.group("sep") == "," and not option:
        return None  # only `["--password", "…"]` makes a comma part a name and its value
    if not secret_name(bare_name):
        return None
    if m.group("glued") and (
        not _strong_name(bare_name)
        or text[name_start - 1 : name_start] in ("/", "@", "{")  # a tag, a path, `${X:?}`
        # The value, up to where it ends, a hash, a UUID or a number:
        or _rx(_HASH_UUID_NUMBER + r"(?=[\s\"'`<>,;)\]}]|\Z)").match(text, m.end())
    ):
        return None  # `key:value` glued: only a name that says password, secret or token
    closing = text[name_end : name_end + 1]
    if closing in _QUOTES and text[name_start - 1 : name_start] != closing:
        return None  # `"invalid token": …` is a quoted phrase, not a name
    if m.group(uv) is not None:
        value, s = m.group(uv), m.start(uv)
        if text[name_start - 1 : name_start] in ("?", "&"):  # a URL's query
            value = value.split("&", 1)[0]
        if option and value.startswith("-"):
            return None
        if bare_name.lower() == "pass" and value.isdigit():  # `pass: 12` of a test run
            return None
        if _value_kept(value, bare_name, quoted=False):
            return None
        trimmed = value.rstrip(",;)]}")
        return (s, s + len(trimmed)) if trimmed else None
    value, s = m.group(qv), m.start(qv)
    if scheme := _rx(_SCHEME).match(value):  # `"Bearer …"`: the scheme stays
        value, s = value[scheme.end() :], s + scheme.end()
    if _value_kept(value, bare_name, quoted=True):
        return None
    return s, m.end(qv)


# --- encodings --------------------------------------------------------------------------------

_ESCAPE = r"\\(?:u[0-9a-fA-F]{4}|[nrtbf\"/\\])"
_PERCENT = r"%[0-7][0-9A-Fa-f]"  # an ASCII character; any other byte's escape stays
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", '"': '"', "/": "/", "\\": "\\"}


def _decoded(text: str, escape: str) -> tuple[str, list[int], list[int]]:
    """The text with its JSON escapes (`_ESCAPE`) or URL escapes (`_PERCENT`) decoded, where
    each escape sits in it, and the extra characters the escapes before it took, to map a span
    in the decoded text back."""
    parts: list[str] = []
    where: list[int] = []
    extra: list[int] = [0]
    pos = 0
    for m in _rx(escape).finditer(text):
        seq = m.group()  # `\n`, `\u00e9` or `%3D`
        char = _SIMPLE.get(seq[1]) or chr(int(seq[2:] if seq[1] == "u" else seq[1:], 16))
        s, e = m.span()
        parts += (text[pos:s], char)
        where.append(s - extra[-1])
        extra.append(extra[-1] + e - s - 1)
        pos = e
    parts.append(text[pos:])
    return "".join(parts), where, extra


_URLSAFE_IN = str.maketrans("-_", "+/")
_B64_RUN = r"[A-Za-z0-9+/_\-]{16,}={0,2}"
_HEX_RUN = r"(?:[0-9a-fA-F]{2}){8,}"


def _encoded_spans(text: str) -> list[Span]:
    """Runs of base64 or hex that decode to a text holding a secret (a token encoded again,
    `password=…` or a URL with its password in base64, a token in hex). A run that decodes
    to anything but printable text (a hash, a random id) is passed at once."""
    if len(text) < 16:
        return []
    import binascii

    out = []
    for m in _rx(_HEX_RUN).finditer(text):
        if _decodes_to_secret(binascii.unhexlify(m.group())):
            out.append(("hex", m.start(), m.end()))
    for m in _rx(_B64_RUN).finditer(text):
        run = m.group()
        if any(s <= m.start() < e for _, s, e in out) or (run.isalpha() and run.islower()):
            continue  # inside a hex run, or a plain lower-case word
        body = run.rstrip("=").translate(_URLSAFE_IN)
        try:
            decoded = binascii.a2b_base64(body + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            continue
        if _decodes_to_secret(decoded):
            out.append(("base64", m.start(), m.end()))
    return out


def _decodes_to_secret(data: bytes) -> bool:
    """Whether decoded bytes are text (ASCII, printable but for line breaks) holding a
    secret."""
    if len(data) < 8 or not data.isascii():
        return False
    text = data.decode("ascii")
    if not text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable():
        return False
    return bool(findings(text, nested=True))


_PEM_END = r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_BODY_LINE = r"[ \t]*[A-Za-z0-9+/=]{16,128}[ \t]*\r?"
_BODY_TAIL = r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/=]{16,128}[ \t]*\r?\Z"


def _pem_end_spans(text: str) -> list[Span]:
    """A PEM body without its BEGIN line: the lines of base64 just above an END line (read
    upwards from each END line, so a long run of such lines costs one pass)."""
    if "PRIVATE KEY" not in text:
        return []
    out = []
    for m in _rx(_PEM_END).finditer(text):
        start = line = text.rfind("\n", 0, m.start()) + 1
        if text[line : m.start()].strip():
            continue  # the END line holds more than the marker
        while line > 0:
            above = text.rfind("\n", 0, line - 1) + 1
            if not _rx(_BODY_LINE).fullmatch(text, above, line - 1):
                tail = _rx(_BODY_TAIL).search(text, above, line - 1)  # `key: MIIE…` opens the body
                start = tail.start() if tail else start
                break
            start = line = above
        if start < m.start():
            out.append(("pem_end", start, m.end()))
    return out


# --- finding and redacting --------------------------------------------------------------------


def _spans(view: str, nested: bool = False) -> list[Span]:
    """(kind, start, end) of every secret in `view`, in order, the kept prefixes left out."""
    out: list[Span] = []
    if kinds := _kinds_in(view):
        _scan(kinds, view, 0, len(view), out)
    out.extend(_pem_end_spans(view))
    if not nested:
        out.extend(_encoded_spans(view))
    out.sort(key=lambda t: t[1])
    return out


def _redacted_already(view: str, start: int, end: int) -> bool:
    """Whether a value is only what redaction wrote in its place (`-p[REDACTED]`,
    `https://u:[REDACTED]@host`): no secret, for any rule, so `scan(redact(x))` is empty. A
    mark a clip cut short (`-p[REDA … [90 chars cut]`) is one too."""
    value = view[start:end]
    rest = value.replace(MARK, "")
    if MARK in value and not rest.strip(_MARK_AROUND):
        return True
    tail = rest.strip(" \t\"'`")
    return len(tail) >= 2 and MARK.startswith(tail)


_MARK_AROUND = " \t\"'`,;:()[]{}<>"


def _scan(kinds: tuple[str, ...], view: str, start: int, stop: int, out: list[Span]) -> None:
    """The matches of `kinds` in [start, stop). A match `_assignment` turns down is scanned
    again from its second character, so nothing inside it is missed."""
    for m in _compiled(kinds).finditer(view, start, stop):
        kind = m.lastgroup or ""  # the group that closed last: the kind's, around the rest
        if kind in _CHECKED:
            span = _assignment(m, kind)
            if span is None:
                _scan(kinds, view, m.start() + 1, m.end(), out)
                continue
            out.append((_value_kind(view[span[0] : span[1]]) or kind, *span))
        else:
            keep = _KEEP.get(kind)
            s = m.end(keep) if keep and m.group(keep) else m.start()
            if not _redacted_already(view, s, m.end()):
                out.append((kind, s, m.end()))


def _value_kind(value: str) -> str | None:
    """The kind a secret-named value is by itself (`TOKEN = "ghp_…"` holds a github token),
    so a report names it; None when only its name says secret (the kind stays "assignment").
    Kinds found by their context (a `keep_` prefix) are not kinds of a value alone."""
    kinds = tuple(k for k in _kinds_in(value) if k not in _KEEP and k not in _CHECKED)
    m = _compiled(kinds).search(value) if kinds else None
    return m.lastgroup if m else None


def findings(text: str, nested: bool = False, depth: int = 0) -> list[Span]:
    """(kind, start, end) of each secret in `text`: where it is, for a report that names the
    line without printing the secret. (`nested`, `depth`: a decoded text scanned again.)"""
    escape = _ESCAPE if "\\" in text else _PERCENT if "%" in text else None
    view, where, extra = _decoded(text, escape) if escape and depth < 3 else (text, [], [])
    if not where:
        return _spans(text, nested)
    import bisect  # here, as binascii below: most texts a hook redacts have no escape

    # Matched in the decoded text (decoded again while escapes remain: JSON inside JSON, a
    # URL escape inside JSON), each position taken back by adding what the escapes before it
    # took.
    found = [
        (kind, s + extra[bisect.bisect_left(where, s)], e + extra[bisect.bisect_left(where, e)])
        for kind, s, e in findings(view, nested, depth + 1)
    ]
    if "\\" in text:
        return found
    # A URL escape may be part of what it is in (`p%40ss` in a URL's password): the text as
    # written is scanned too.
    return sorted({*found, *_spans(text, nested)}, key=lambda t: (t[1], -t[2]))


# Terminal control: an escape sequence whole (OSC `ESC ] … BEL` such as a clipboard write or a
# window title, CSI `ESC [ … m`, DCS/APC/PM/SOS strings, their 8-bit forms), then any other C0
# or C1 character but a newline and a tab.
_CONTROL_CHAR = r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"
_CONTROL = (
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]{0,4096}(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]{0,4096}(?:\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]{0,64}[ -/]{0,8}[@-~]?"
    r"|\x1b[ -/]{0,8}[0-~]?|" + _CONTROL_CHAR
)


def one_line(text: str, limit: int) -> str:
    """`text` on one line (white space runs made one space), "…" where cut to `limit`."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def printable(text: str) -> str:
    """`text` without terminal control: no escape sequence, no C0 or C1 character but `\\n` and
    `\\t`. `redact` applies it, so nothing baker prints or hands an agent can set the
    clipboard, the title or the colours of the terminal that shows it."""
    if text.isprintable() or not _rx(_CONTROL_CHAR).search(text):  # most texts answer at once
        return text
    return _rx(_CONTROL).sub("", text)


def redact(text: str) -> str:
    """Return `text` with every secret the patterns know replaced by `[REDACTED]`, and without
    terminal control (`printable`)."""
    if not text:
        return text
    text = printable(text)
    parts: list[str] = []
    pos = 0
    for _, s, e in findings(text):
        if e > pos:  # one mark for overlapping spans
            parts += (text[pos : max(s, pos)], MARK)
            pos = e
    return "".join(parts) + text[pos:]


def scan(text: str) -> list[str]:
    """The kinds of secret `text` holds, without the secrets. Empty when clean."""
    return sorted({kind for kind, _, _ in findings(text)}) if text else []


def secret_option(arg: Any) -> bool:
    """Whether a command-line argument is an option whose next argument is a secret."""
    return (
        isinstance(arg, str)
        and arg.startswith("-")
        and "=" not in arg
        and secret_name(arg.lstrip("-"))
    )


def redact_obj(value: Any, *, under_secret: bool = False) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists, strings). A value under a
    key that says secret (`password`, `env: {AWS_SECRET_ACCESS_KEY: …}`) goes whole, whatever
    it looks like, but for a relative path; so do the scalars of a structure under one."""
    if isinstance(value, str):
        if under_secret and value and value != MARK and not _rx(_PATH).fullmatch(value):
            return MARK
        return redact(value)
    if isinstance(value, dict):
        return {
            (redact(k) if isinstance(k, str) else k): redact_obj(
                v, under_secret=under_secret or (isinstance(k, str) and secret_name(k))
            )
            for k, v in value.items()
        }
    if isinstance(value, list):  # an argument list: `["--password", "…"]`
        return [
            redact_obj(v, under_secret=under_secret or (i > 0 and secret_option(value[i - 1])))
            for i, v in enumerate(value)
        ]
    if under_secret and isinstance(value, (int, float)) and not isinstance(value, bool):
        return MARK
    return value
