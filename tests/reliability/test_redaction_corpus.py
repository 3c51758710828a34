"""Secrets planted everywhere Continuity reads never reach anything it writes or prints.

`secrets/shapes.json` holds fake secrets of 250+ shapes (every provider `redact.py` knows and
more, the names that say secret, command lines, headers, URLs, PEM bodies, base64 and JSON
escapes), and `TOOL_INPUT` secrets that only their keys mark. They are planted into real
transcripts of all three agents (the captured S5 sessions,
moved to a scratch project, with the prompt and the tool output replaced by the corpus), the
note, probe output, traps and the hook payloads; then the real `baker` commands run as
processes and every byte they print or store is searched for any fragment of any secret.
`secrets/benign/` is ordinary code, prose, git logs, grep output, paths, hashes, UUIDs and token
counts: the share of its lines redaction changes is the damage rate.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shlex
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from continuity_core.redact import redact
from tests.conftest import FIXTURES, copy_tree, git, run_baker

HERE = Path(__file__).parent / "secrets"
SHAPES: list[dict[str, str]] = json.loads((HERE / "shapes.json").read_text())
FRAGMENT = 12  # a leaked run this long of any secret fails the test
# Where the S5 (fake secrets) sessions were captured, and their known prompt and tool output.
S5_CWD = "/home/dev/src/deploy-scripts"
S5_PROMPT = "The staging deploy fails with 403 Forbidden"
S5_OUTPUT = "# staging deploy settings"
CLAUDE_S5 = "projects/-home-dev-src-deploy-scripts/9f8408e8-e777-4088-8023-c3ed9c3a5209.jsonl"
CODEX_S5 = (
    "sessions/2026/11/30/rollout-2026-11-30T03-57-48-01a22a9a-0a8d-7d11-be12-ec74fa38e31d.jsonl"
)
GEMINI_S5 = "tmp/deploy-scripts/chats/session-2026-11-30T03-59-7fd7aaf9.jsonl"
SESSION = {
    "claude": "5ec7e75a-0000-4000-8000-00000000c1a0",
    "codex": "01a22a9a-5ec7-7000-8000-00000000c0de",
    "gemini": "5ec7e75a-0000-4000-8000-0000000063e1",
}
DAMAGE_BOUND = 0  # lines of secrets/benign/ redaction may change: what was measured
HELD_OUT = {"api_client.py", "compose.yaml", "Makefile"}


def planted_block() -> str:
    return "\n".join(s["planted"] for s in SHAPES)


# Terminal control planted beside the secrets: a clipboard write (OSC 52), a window title, a
# screen clear, an 8-bit CSI, a bell. None of it may reach what baker prints or stores.
CONTROL = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\x07\r"
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\\u00(?:1b|07|9b)")
PROMPT = (
    "The deploy fails again." + CONTROL + " This is everything CI printed:\n\n" + planted_block()
)
TOOL_OUTPUT = "# deploy settings\n" + CONTROL + planted_block() + "\n"


def fragments(secret: str) -> Iterator[str]:
    """Runs of the secret that must not survive: every piece whole when short, else its
    start, end and consecutive chunks (a leak of 2 * FRAGMENT characters always holds one)."""
    for piece in re.split(r"\s+|\\n", secret):
        if len(piece) <= FRAGMENT:
            if len(piece) >= 6:
                yield piece
            continue
        yield piece[-FRAGMENT:]
        for i in range(0, len(piece) - FRAGMENT + 1, FRAGMENT):
            yield piece[i : i + FRAGMENT]


# Secrets that only their names mark, in the structured input of a tool call (a shell call's
# environment, an MCP server's settings, an HTTP tool's headers, a command's argument list).
TOOL_INPUT: dict[str, Any] = {
    "password": "Vq7mXc2LpR9t",
    "env": {
        "AWS_SECRET_ACCESS_KEY": "Jd8sK2mQ9xVb4NcW7eRt5YuI1oP3aSdF6gHjK0lZ",
        "DB_PASS": "Hn4bV7cX1zLk",
        "PATH": "/usr/local/bin:/usr/bin",
    },
    "headers": {"Authorization": "Bearer Tq5wE8rY2uIo6pAs", "X-Api-Key": "Mz3xC6vB9nQw"},
    "mcp": {
        "api_token": "7c0e3b1a-54d2-4f6e-9a8b-2d1c0f9e8a7b",
        "auth": {"username": "ci-bot", "passphrase": "Rk6tY9uJ3hGf"},
    },
    "argv": ["deploy", "--password", "Wx2eD5rF8tGy", "--env", "staging"],
}


def _leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if i and value[i - 1] == "--password":
                yield from _leaves(v, f"{path}[{i}]")
    elif path.rsplit(".", 1)[-1] not in ("PATH", "username"):
        yield path, value.removeprefix("Bearer ")  # the scheme is no secret, and is kept


TOOL_SECRETS = dict(_leaves(TOOL_INPUT, "tool_input"))
FRAGMENTS = [(s["kind"], f) for s in SHAPES for f in fragments(s["secret"])] + [
    (where, f) for where, secret in TOOL_SECRETS.items() for f in fragments(secret)
]


def leaks(text: str, *, fold: bool = False) -> list[str]:
    """The kinds of secret some fragment of which occurs in `text`."""
    hay = text.lower() if fold else text
    return sorted({kind for kind, f in FRAGMENTS if (f.lower() if fold else f) in hay})


# --- planting ---------------------------------------------------------------------------------


def replant(value: Any, project: str, sid: str, old_sid: str) -> Any:
    """The record with the S5 project, session, prompt and tool output swapped for ours."""
    if isinstance(value, dict):
        out = {k: replant(v, project, sid, old_sid) for k, v in value.items()}
        if "command" in out and "description" in out:  # a shell call's input (claude, gemini)
            out.update(TOOL_INPUT)
        if isinstance(out.get("arguments"), str) and '"cmd"' in out["arguments"]:  # codex's
            out["arguments"] = json.dumps({**json.loads(out["arguments"]), **TOOL_INPUT})
        return out
    if isinstance(value, list):
        return [replant(v, project, sid, old_sid) for v in value]
    if not isinstance(value, str):
        return value
    if S5_PROMPT in value:
        return PROMPT
    if S5_OUTPUT in value:
        value = value[: value.index(S5_OUTPUT)] + TOOL_OUTPUT
    return value.replace(S5_CWD, project).replace(old_sid, sid)


def plant_transcript(src: Path, dst: Path, project: Path, sid: str, old_sid: str) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(replant(json.loads(line), str(project), sid, old_sid))
        for line in src.read_text().splitlines()
        if line.strip()
    ]
    dst.write_text("\n".join(lines) + "\n")
    text = dst.read_text()
    assert "sk-ant-api03-FAKE" in text and str(project) in text and "Rk6tY9uJ3hGf" in text


def plant_homes(tmp: Path, project: Path) -> tuple[dict[str, str], dict[str, Path]]:
    """Copies of the fixture homes with one secret-laden session each for `project`."""
    claude = copy_tree(FIXTURES / "claude" / ".claude", tmp / "claude")
    codex = copy_tree(FIXTURES / "codex" / ".codex", tmp / "codex")
    gemini_home = tmp / "gemini-home"
    gemini = copy_tree(FIXTURES / "gemini" / ".gemini", gemini_home / ".gemini")
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    paths = {
        "claude": claude / "projects" / slug / f"{SESSION['claude']}.jsonl",
        "codex": codex
        / "sessions/2026/11/30"
        / f"rollout-2026-11-30T05-00-00-{SESSION['codex']}.jsonl",
        "gemini": gemini
        / "tmp"
        / "secret-proj"
        / "chats"
        / "session-2026-11-30T05-00-5ec7e75a.jsonl",
    }
    plant_transcript(
        claude / CLAUDE_S5,
        paths["claude"],
        project,
        SESSION["claude"],
        "9f8408e8-e777-4088-8023-c3ed9c3a5209",
    )
    plant_transcript(
        codex / CODEX_S5,
        paths["codex"],
        project,
        SESSION["codex"],
        "01a22a9a-0a8d-7d11-be12-ec74fa38e31d",
    )
    plant_transcript(
        gemini / GEMINI_S5,
        paths["gemini"],
        project,
        SESSION["gemini"],
        "7fd7aaf9-4feb-470d-82ac-00f895454892",
    )
    (paths["gemini"].parent.parent / ".project_root").write_text(str(project))
    registry = json.loads((gemini / "projects.json").read_text())
    registry["projects"][str(project)] = "secret-proj"
    (gemini / "projects.json").write_text(json.dumps(registry, indent=2))
    env = {
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(codex),
        "GEMINI_CLI_HOME": str(gemini_home),
    }
    return env, paths


def payload(agent: str, name: str, project: Path, transcript: Path, **extra: Any) -> str:
    """A real captured hook payload of `agent`, pointed at our project and session."""
    value = json.loads((FIXTURES / agent / "hook_payloads" / name).read_text())
    value.update(cwd=str(project), session_id=SESSION[agent], transcript_path=str(transcript))
    value.update(extra)
    return json.dumps(value)


def plant_note(project: Path) -> None:
    """The agent writes the note itself, raw: secrets land in its sections."""
    note = project / "memory" / "hot.md"
    text = note.read_text()
    lines = [s["planted"] for s in SHAPES if "\n" not in s["planted"]]
    pems = [s["planted"] for s in SHAPES if "\n" in s["planted"]]
    text = text.rstrip("\n") + "\n\n## Gotchas\n" + "".join(f"- {line}\n" for line in lines)
    note.write_text(text + "\n## Open questions\n" + "\n".join(pems) + "\n")


def plant_probes(project: Path) -> None:
    """One shell probe per secret, echoing it (half on stdout, half on stderr of a failure)."""
    probes = []
    for i, s in enumerate(SHAPES):
        echo = f"printf '%s\\n' {shlex.quote(s['planted'])}"
        command = echo if i % 2 else f"{echo} >&2; exit 3"
        probes.append({"name": f"probe-{s['kind']}", "command": command, "timeout_s": 10})
    (project / ".baker" / "probes.json").write_text(json.dumps({"probes": probes}))


RAW_TRAP = {
    "id": "feedc0de",
    "pattern": "deploy.sh",
    "kind": "path",
    "created_at": "2026-11-30T05:00:00Z",
    "why": "raw: "
    + CONTROL
    + " ".join(s["planted"] for s in SHAPES[-30:] if "\n" not in s["planted"]),
}


def plant_traps(project: Path, env: dict[str, str]) -> None:
    singles = [s["planted"] for s in SHAPES if "\n" not in s["planted"]]
    for i in range(0, len(singles), 32):  # three processes; each why is short once redacted
        why = "deploy.sh failed with " + " ; ".join(singles[i : i + 32])
        result = run_baker("trap", "add", "deploy.sh", why, cwd=project, env=env)
        assert result.returncode == 0, result.stderr
    # A traps file written by hand (or by an older baker) is redacted when it is shown.
    with (project / ".baker" / "traps.jsonl").open("a") as f:
        f.write(json.dumps(RAW_TRAP) + "\n")


# --- reading back ------------------------------------------------------------------------------


def tree_bytes(root: Path, skip: Iterable[Path] = ()) -> dict[str, str]:
    skipped = {p.resolve() for p in skip}
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.resolve() not in skipped:
            out[str(p.relative_to(root.parent))] = p.read_bytes().decode("utf-8", "replace")
    return out


def test_no_planted_secret_reaches_any_output_or_store(
    repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    project = repo
    env, transcripts = plant_homes(tmp_path, project)
    assert run_baker("init", cwd=project, env=env).returncode == 0
    (project / "deploy.sh").write_text("#!/bin/sh\necho deploy\n")
    git(project, "add", "deploy.sh")
    git(project, "commit", "-qm", "deploy script")
    plant_note(project)
    plant_probes(project)
    plant_traps(project, env)

    outputs: dict[str, str] = {}

    def run(label: str, *args: str, stdin: str | None = None, ok: bool = True) -> str:
        result = run_baker(*args, cwd=project, env=env, input=stdin, timeout=120)
        assert "Traceback" not in result.stderr, (label, result.stderr)
        if ok:
            assert result.returncode == 0, (label, result.stdout, result.stderr)
        outputs[label] = result.stdout + result.stderr
        return result.stdout

    stops = {"claude": "Stop.json", "codex": "Stop.json", "gemini": "AfterAgent.json"}
    starts = {
        "claude": "SessionStart.startup.json",
        "codex": "SessionStart.startup.json",
        "gemini": "SessionStart.startup.json",
    }
    pretools = {
        "claude": ("PreToolUse.Edit.json", "file_path"),
        "codex": ("PreToolUse.apply_patch.json", None),
        "gemini": ("BeforeTool.replace.json", "file_path"),
    }
    for agent in ("claude", "codex", "gemini"):
        t = transcripts[agent]
        stop = payload(
            agent,
            stops[agent],
            project,
            t,
            last_assistant_message=PROMPT,
            prompt=PROMPT,
            prompt_response=PROMPT,
        )
        run(f"checkpoint {agent}", "checkpoint", "--agent", agent, stdin=stop)
        start = payload(agent, starts[agent], project, t, session_id="another-session")
        run(f"pickup {agent}", "pickup", "--agent", agent, stdin=start)
        name, key = pretools[agent]
        tool = json.loads(payload(agent, name, project, t))
        if key:  # an edit that writes every shape, with the secret-named inputs beside it
            tool["tool_input"][key] = str(project / "deploy.sh")
            tool["tool_input"].update(TOOL_INPUT, new_string=TOOL_OUTPUT)
        else:
            added = "".join(f"+{line}\n" for line in TOOL_OUTPUT.splitlines())
            tool["tool_input"] = {
                "command": "*** Begin Patch\n*** Update File: deploy.sh\n"
                f"@@\n-echo deploy\n+echo deployed\n{added}"
                "*** End Patch\n"
            }
        run(f"pretool {agent}", "pretool", "--agent", agent, stdin=json.dumps(tool))
        run(f"handoff --from {agent}", "handoff", "--from", agent)
    run("handoff --json", "handoff", "--json")
    status = run("status --json", "status", "--json", ok=False)  # planted probes fail: exit 1
    run("trap list", "trap", "list")
    run("trap list --json", "trap", "list", "--json")
    run("recall --index", "recall", "--index")
    run("recall query", "recall", "deploy", ok=False)
    run("recall --show", "recall", "--show", SESSION["claude"], ok=False)

    # The secrets were really there, and really went through every path.
    for agent in ("claude", "codex", "gemini"):
        assert leaks(transcripts[agent].read_text()), agent
    checkpoints = sorted((project / ".baker" / "checkpoints").glob("*.json"))
    agents_seen = {
        json.loads(p.read_text())["session"]["agent"]
        for p in checkpoints
        if json.loads(p.read_text()).get("session")
    }
    assert agents_seen == {"claude", "codex", "gemini"}, agents_seen
    for agent in ("claude", "codex", "gemini"):
        assert "[REDACTED]" in outputs[f"handoff --from {agent}"], agent
        assert "[REDACTED]" in outputs[f"pretool {agent}"], agent
        assert "[REDACTED]" in outputs[f"pickup {agent}"], agent
    probes = (
        json.loads(status)["environment"]["probes"]
        if "environment" in json.loads(status)
        else json.loads(status)["probes"]
    )
    redacted = [p for p in probes if "[REDACTED]" in (p.get("detail") or "")]
    assert len(redacted) >= len(SHAPES) * 0.9, [p.get("detail") for p in probes][:5]

    # Nothing leaked: printed output, every file in .baker/ (except the probes.json we wrote),
    # the user store (~/.baker, the recall archive among it) read as raw bytes.
    found: dict[str, list[str]] = {}
    for label, text in outputs.items():
        if kinds := leaks(text):
            found[label] = kinds
    stores = {
        **tree_bytes(project / ".baker", skip=[project / ".baker" / "probes.json"]),
        **tree_bytes(isolated_home / ".baker"),
    }
    assert any("archive.sqlite" in name for name in stores), sorted(stores)
    raw_trap = json.dumps(RAW_TRAP)
    cursors: dict[str, list[str]] = {}
    for name, text in stores.items():
        # The FTS index keeps terms lower-cased: fold case when reading the archive.
        if kinds := leaks(text.replace(raw_trap, ""), fold="archive.sqlite" in name):
            (cursors if "/cursors/" in name else found)[name] = kinds
    assert not found, found
    assert not cursors, cursors  # reader state keeps digests and redacted facts only
    written = {name: text.replace(raw_trap, "") for name, text in stores.items()}
    controls = {
        name: CONTROL_CHARS.findall(text)[:3]
        for name, text in {**outputs, **written}.items()
        if not name.endswith((".sqlite", ".msgpack")) and CONTROL_CHARS.search(text)
    }
    assert not controls, controls
    # The sequences went whole, their payloads with them, from the binary stores too.
    everything = "".join(outputs.values()) + "".join(written.values()).lower()
    assert "cm0gLXJmIH4K".lower() not in everything.lower() and "pwned" not in everything


def generated_benign() -> list[str]:
    """Ordinary lines built from deterministic data: commit hashes, UUIDs, paths, URLs
    without credentials and token counts, in the forms logs, git and agents print them."""
    rng = random.Random(2030)
    words = [
        "fix",
        "add",
        "tests",
        "parser",
        "retry",
        "cache",
        "docs",
        "config",
        "limits",
        "brief",
        "handoff",
        "worker",
        "queue",
        "index",
        "token",
        "key",
        "secret",
        "pass",
    ]
    dirs = ["src", "tests", "packages/core/src", "docs", "scripts", ".github/workflows", "lib"]
    exts = ["py", "ts", "md", "toml", "json", "yaml", "rs", "go"]
    hosts = ["github.com", "docs.python.org", "pypi.org", "example.com", "registry.npmjs.org"]
    lines: list[str] = []
    for i in range(1000):
        sha = hashlib.sha1(f"commit {i}".encode(), usedforsecurity=False).hexdigest()
        sha256 = hashlib.sha256(f"blob {i}".encode()).hexdigest()
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        w1, w2 = rng.choice(words), rng.choice(words)
        path = f"{rng.choice(dirs)}/{w1}_{w2}.{rng.choice(exts)}"
        url = f"https://{rng.choice(hosts)}/{w1}/{w2}?page={i % 7}&ref={sha[:7]}#L{i % 300}"
        n_in, n_out = rng.randrange(1, 200_000), rng.randrange(1, 20_000)
        forms = [
            f"{sha} {w1.capitalize()} {w2} in {path}",
            f"commit {sha}",
            f"Merge: {sha[:7]} {sha256[:7]}",
            f"session {uid} resumed at 2026-12-0{i % 9 + 1}T0{i % 10}:1{i % 6}:00Z",
            f'{{"id": "{uid}", "parent": "{sha}", "path": "{path}"}}',
            f"{path}:{i % 400 + 1}: {w1} = {w2}({i})",
            f"see {url}",
            f"input_tokens={n_in} output_tokens={n_out} cache_read_input_tokens={n_in // 3}",
            f"Tokens: {n_in:,} in, {n_out:,} out ({n_in + n_out:,} total)",
            f"max_tokens: {n_out}",
            f"sha256:{sha256}  {path}",
            f"key {i}: {w1}, value {i * 3}: {w2}",
            f"token count {n_in} for {uid}",
            f"  - {path} ({i % 50} lines changed)",
            f"GET {url} 200 {n_out}ms",
            f"docker pull ghcr.io/acme/{w1}:{sha[:12]}",
            f"{uid},{w1},{w2},{n_in},{sha[:10]}",
            f"pass {i} of 12: {w1} ok",
            f"HEAD is now at {sha[:7]} {w1} {w2}",
            f"./{path}",
            # Compact JSON as a checkpoint writes it: times full of colons beside numbers.
            f'{{"failed":false,"timestamp":"2026-11-30T0{i % 10}:5{i % 6}:2{i % 10}.313Z"}}],'
            f'"commands_total":{i % 9},"usage":{{"context_tokens":{n_in}}}',
        ]
        lines.append(forms[i % len(forms)])
        if i % 2 == 0:
            lines.append(forms[(i * 7 + 3) % len(forms)])
    return lines


def test_damage_rate_on_ordinary_code_and_prose() -> None:
    """Ordinary code, config, prose, git logs, grep output, paths, hashes, UUIDs and token
    counts that say token/password/key innocently pass through untouched, line by line and
    as whole files (a rule that crossed a newline would damage the line after a `token`).
    Measured: 0 damaged lines of 3,005 (1,505 written, 1,500 generated from commit hashes,
    UUIDs, paths, URLs and token counts); the bound is that measurement. The files in
    HELD_OUT were written after the patterns were tuned on the others."""
    counts = {"tuned": [0, 0], "held out": [0, 0]}
    changed: list[str] = []
    for path in sorted((HERE / "benign").iterdir()):
        group = counts["held out" if path.name in HELD_OUT else "tuned"]
        text = path.read_text()
        whole = redact(text).splitlines()
        for i, line in enumerate(text.splitlines()):
            group[1] += 1
            after = redact(line)
            if after != line or whole[i] != line:
                group[0] += 1
                changed.append(
                    f"{path.name}: {line.strip()} -> {(after if after != line else whole[i]).strip()}"
                )
    counts["generated"] = [0, 0]
    generated = generated_benign()
    whole = redact("\n".join(generated)).splitlines()
    for i, line in enumerate(generated):
        counts["generated"][1] += 1
        after = redact(line)
        if after != line or whole[i] != line:
            counts["generated"][0] += 1
            changed.append(f"generated: {line} -> {after if after != line else whole[i]}")
    total = sum(n for _, n in counts.values())
    print(
        f"\nredaction damage: {len(changed)}/{total} lines = {len(changed) / total:.2%} ("
        + ", ".join(f"{k} {c}/{n} = {c / n:.2%}" for k, (c, n) in counts.items())
        + ")"
    )
    for line in changed:
        print("  ", line)
    assert total >= 2000 and counts["held out"][1] >= 100
    assert len(changed) <= DAMAGE_BOUND, changed


def test_every_shape_is_redacted_alone_and_in_context() -> None:
    """Each planted shape alone, inside a sentence, inside JSON and inside JSON inside JSON
    leaves no fragment."""
    assert len(SHAPES) >= 250 and len({s["kind"] for s in SHAPES}) == len(SHAPES)
    for s in SHAPES:
        for text in (
            s["planted"],
            f"see ({s['planted']}) above.",
            json.dumps({"x": s["planted"]}),
            json.dumps({"y": json.dumps({"x": s["planted"]})}),
        ):
            assert not leaks(redact(text)), (s["kind"], redact(text)[:200])


def test_what_redaction_writes_is_never_a_secret() -> None:
    """`scan(redact(x))` is empty for every shape, alone and in context: a placeholder never
    counts as a secret (the push check scans text that was already redacted)."""
    from continuity_core.redact import scan

    for s in SHAPES:
        for text in (
            s["planted"],
            f"see ({s['planted']}) above.",
            json.dumps({"x": s["planted"]}),
            json.dumps({"y": json.dumps({"x": s["planted"]})}),
        ):
            once = redact(text)
            assert scan(once) == [], (s["kind"], once[:200])
            assert redact(once) == once, s["kind"]


def test_redaction_runs_in_bounded_time_on_a_large_text() -> None:
    """The one alternation stays linear on a transcript-sized text full of near misses. The
    long runs were quadratic before the repetitions were bounded: 20 KB of `a-a-…` took 77 s."""
    import time

    near_misses = "password = x\n" + "token " + "a" * 15 + " \n" + "sk-" + "b" * 19 + "\n"
    pem_lines = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n" * 5_000 + "-----END PRIVATE KEY-----"
    for text in (
        near_misses * 5_000,
        "a-" * 20_000,
        "a." * 20_000,
        "token=x" * 6_000 + "(",
        "eyJ-" * 10_000,
        "a+b" * 15_000 + "://",
        pem_lines,
        'password: "' * 20_000,
        "--password " * 20_000,
        "\\" * 40_000,
        "\\\\n" * 10_000,
        ("Z2hwX" + "A" * 30 + " ") * 3_000,
        "mysql " * 20_000 + " -p",
        "docker login " * 10_000 + " -p",
        "redis-cli " * 10_000 + " -a",
        "htpasswd" + " -b" * 20_000,
        "sshpass" + " -v" * 20_000 + " -p",
    ):
        start = time.perf_counter()
        redact(text)
        assert time.perf_counter() - start < 5, text[:20]


def test_no_planted_secret_reaches_a_push_or_an_mcp_result(
    repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """The secrets planted in every adapter's transcript are in no object `baker push` sent
    (the brief, the checkpoint, the snapshot) and in no result the MCP tools return."""
    import asyncio
    import os
    import subprocess

    import pytest

    pytest.importorskip("mcp", reason="the `mcp` extra is not installed")
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from tests.conftest import BAKER

    project = repo
    env, transcripts = plant_homes(tmp_path, project)
    assert run_baker("init", cwd=project, env=env).returncode == 0
    stops = {"claude": "Stop.json", "codex": "Stop.json", "gemini": "AfterAgent.json"}
    for agent, name in stops.items():
        stop = payload(agent, name, project, transcripts[agent], last_assistant_message=PROMPT)
        done = run_baker("checkpoint", "--agent", agent, cwd=project, env=env, input=stop)
        assert done.returncode == 0, done.stderr
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(project, "remote", "add", "origin", str(bare))
    pushed = run_baker("push", cwd=project, env=env)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=bare,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    assert "[REDACTED]" in objects  # the planted secrets went into the brief, redacted
    assert not leaks(objects), leaks(objects)

    calls: list[tuple[str, dict[str, Any]]] = [
        ("recall", {"query": "deploy"}),
        ("handoff", {}),
        *(("handoff", {"agent": agent}) for agent in stops),
        ("sessions", {}),
        ("note", {}),
        ("traps", {}),
        ("resume_check", {}),
    ]

    async def session() -> list[Any]:
        params = StdioServerParameters(
            command=BAKER, args=["mcp"], cwd=str(project), env={**os.environ, **env}
        )
        async with Client(params) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    results = asyncio.run(asyncio.wait_for(session(), timeout=120))
    text = "\n".join(getattr(c, "text", "") for r in results for c in r.content)
    assert "[REDACTED]" in text
    assert not leaks(text), leaks(text)


COPILOT_SOURCE = "session-state/91c9647b-f8d6-4e10-8ce7-e289e56d3f1b"
COPILOT_SESSION = "5ec7e75a-0000-4000-8000-00000000c0b1"


def plant_copilot(tmp: Path, project: Path) -> tuple[Path, Path]:
    """A copy of the captured Copilot CLI home whose notes session ran in `project`, its
    request and its tool's output replaced by every planted shape."""
    home = copy_tree(FIXTURES / "copilot" / ".copilot", tmp / "copilot")
    src = home / COPILOT_SOURCE
    dst = home / "session-state" / COPILOT_SESSION
    dst.mkdir()
    old_sid = src.name
    lines = []
    for line in (src / "events.jsonl").read_text().splitlines():
        record = json.loads(line.replace("/home/dev/src/notes", str(project)))
        data = record.get("data", {})
        if record.get("type") == "user.message":
            data["content"] = data["transformedContent"] = PROMPT
        if record.get("type") == "tool.execution_complete" and "result" in data:
            data["result"] = {"content": TOOL_OUTPUT, "detailedContent": TOOL_OUTPUT}
        lines.append(json.dumps(record).replace(old_sid, COPILOT_SESSION))
    (dst / "events.jsonl").write_text("\n".join(lines) + "\n")
    (dst / "workspace.yaml").write_text(
        (src / "workspace.yaml")
        .read_text()
        .replace("/home/dev/src/notes", str(project))
        .replace(old_sid, COPILOT_SESSION)
    )
    assert "sk-ant-api03-FAKE" in (dst / "events.jsonl").read_text()
    return home, dst / "events.jsonl"


def test_no_planted_secret_reaches_any_output_or_store_from_copilot(
    repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """The same shapes in a Copilot CLI session (its request and a tool's output), through its
    hooks, the brief and the archive."""
    import pytest

    pytest.importorskip("continuity_copilot")
    project = repo
    home, transcript = plant_copilot(tmp_path, project)
    env = {"COPILOT_HOME": str(home)}
    assert run_baker("init", cwd=project, env=env).returncode == 0
    outputs: dict[str, str] = {}

    def run(label: str, *args: str, stdin: str | None = None) -> None:
        result = run_baker(*args, cwd=project, env=env, input=stdin, timeout=120)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        outputs[label] = result.stdout + result.stderr

    def hook(name: str, **extra: Any) -> str:
        value = json.loads((FIXTURES / "copilot" / "hook_payloads" / name).read_text())
        value.update(
            sessionId=COPILOT_SESSION, cwd=str(project), transcriptPath=str(transcript), **extra
        )
        return json.dumps(value)

    run("checkpoint", "checkpoint", "--agent", "copilot", stdin=hook("agentStop.json"))
    run("pickup", "pickup", "--agent", "copilot", stdin=hook("sessionStart.json"))
    run("handoff", "handoff", "--from", "copilot")
    run("handoff --json", "handoff", "--json")
    run("recall", "recall", "--index")
    assert "[REDACTED]" in outputs["handoff"]
    found = {label: kinds for label, text in outputs.items() if (kinds := leaks(text))}
    stores = {**tree_bytes(project / ".baker"), **tree_bytes(isolated_home / ".baker")}
    for name, text in stores.items():
        if kinds := leaks(text, fold="archive.sqlite" in name):
            found[name] = kinds
    assert not found, found
