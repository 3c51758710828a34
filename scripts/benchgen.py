"""Generate benchmark data by replaying the record shapes of the real captured fixtures.

Each agent's S1 transcript (todo tool, shell, file write/edit, usage, final text; for Copilot
CLI its captured session with the same steps) is compiled once into a turn template whose ids,
parent links, timestamps, ordinals, cwd and prompt are
slots; a transcript of any size is that turn rendered again and again with fresh ids, ending
on a distinctive final request. Standard library only, so it runs under any Python 3.11.

    python scripts/benchgen.py --data bench-data --sizes 1M,100M --rollouts 300 --folders 100
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# The generator's own source: data made by any other version of it is made again (a bumped
# number was forgotten once, and a run measured the old shapes).
GEN_VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
AGENTS = ("claude", "codex", "gemini", "copilot")
FIXTURE_CWD = "/home/dev/src/weather-cli"
COPILOT_SESSION = "9f9b8b82-18c9-421e-b394-948a5f941695"  # todos (sql), create, bash, text
FIXTURE_CWDS = {"copilot": "/home/dev/src/greeter"}  # the others': FIXTURE_CWD
FINAL_REQUEST = (
    "BENCH-FINAL-REQUEST: rename celsius_to_fahrenheit() to c_to_f() everywhere, keep the old "
    "name as a deprecated alias, and note the change in README.md."
)
SOURCES = {
    "claude": "claude/.claude/projects/-home-dev-src-weather-cli/"
    "48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
    "codex": "codex/.codex/sessions/2026/11/30/"
    "rollout-2026-11-30T03-56-52-01a22a99-3138-74a2-beeb-885dc8136fd9.jsonl",
    "gemini": "gemini/.gemini/tmp/weather-cli/chats/session-2026-11-30T03-58-11b35675.jsonl",
    "copilot": f"copilot/.copilot/session-state/{COPILOT_SESSION}/events.jsonl",
}
HEADER_LINES = {"claude": 0, "codex": 1, "gemini": 2, "copilot": 2}  # written once, not per turn
HOOKS = {  # hook payload templates: (after a turn, session start, before a tool)
    "claude": ("Stop.json", "SessionStart.startup.json", "PreToolUse.Write.json"),
    "codex": ("Stop.json", "SessionStart.startup.json", "PreToolUse.apply_patch.json"),
    "gemini": ("AfterAgent.json", "SessionStart.startup.json", "BeforeTool.write_file.json"),
    "copilot": ("agentStop.json", "sessionStart.json", "preToolUse.json"),
}

TOKEN = re.compile(
    r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"
    r"|(?P<uuid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"|\b(?P<pfx>[a-z]{2,6})_(?P<hex>[0-9a-f]{20,40})\b"
    r"|(?<=__)(?P<gname>[a-z_]+?_)(?P<gms>\d{13})(?=_\d)"
    r'|"ordinal":(?P<ord>\d+)'
    r'|"parentUuid":(?P<null>null)'
    r"|\b(?P<cpfx>call)_(?P<chex>[0-9a-f]{12})\b"  # Copilot's tool call ids
)


def parse_size(text: str) -> int:
    """`1M`, `100M`, `1G` (binary units) or a plain byte count."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(float(text.rstrip("KMG")) * mult)


def claude_slug(cwd: str) -> str:
    """Claude Code's project folder name for `cwd` (formats/claude.md, ASCII paths)."""
    s = "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
    return s if len(s) <= 200 else s[:200] + "-" + hashlib.sha256(cwd.encode()).hexdigest()[:6]


def iso_ms(ms: int) -> str:
    t = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_iso_ms(text: str) -> int:
    t = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1000)


def esc(text: str) -> str:
    """`text` as it sits inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass
class Template:
    """One agent's turn, compiled into literal pieces and slots."""

    agent: str
    session_id: str
    header: list[Any]
    turn: list[Any]
    slots: list[str]  # kind of each id slot: "uuid", "hex:<len>"
    span_ms: int  # a turn's duration; turn k is shifted by k * span_ms
    lines_per_turn: int
    prev_slot: int | None  # Claude: the uuid the next turn's first record points at
    first_ms: int

    def ids(self, k: int, salt: int) -> list[str]:
        out = []
        for s, kind in enumerate(self.slots):
            if kind == "uuid":
                out.append(
                    f"{k:08x}-{s:04x}-4{salt & 0xFFF:03x}-8{(k >> 32) & 0xFFF:03x}-{salt:012x}"
                )
            else:
                n = int(kind[4:])
                out.append(f"{k:0{n // 2}x}{s:0{n - n // 2}x}"[-n:])
        return out

    def render(
        self, pieces: list[Any], k: int, *, prompt: str, cwd: str, salt: int, chain: bool = True
    ) -> str:
        """Turn `k` (ids, times and ordinals of its own); `chain` links it to turn k-1."""
        ids = self.ids(k, salt)
        shift = k * self.span_ms
        ord_base = k * self.lines_per_turn
        prev = "null"
        if chain and k > 0 and self.prev_slot is not None:
            prev = '"' + self.ids(k - 1, salt)[self.prev_slot] + '"'
        out: list[str] = []
        append = out.append
        for p in pieces:
            if p.__class__ is str:
                append(p)
                continue
            kind, value = p
            if kind == "id":
                append(ids[value])
            elif kind == "ts":
                append(iso_ms(value + shift))
            elif kind == "gms":
                append(str(value + shift))
            elif kind == "ord":
                append(f'"ordinal":{value + ord_base}')
            elif kind == "prompt":
                append(prompt)
            elif kind == "cwd":
                append(cwd)
            elif kind == "prev":
                append('"parentUuid":' + prev)
        return "".join(out)


def fixture_truth(agent: str) -> tuple[str, str]:
    """The captured session's id and the request of the turn the template repeats."""
    if agent == "copilot":  # its own ground truth; the first request's turn is the template
        truth = json.loads((FIXTURES / "copilot" / "ground_truth.json").read_text())
        return COPILOT_SESSION, truth["sessions"][COPILOT_SESSION]["requests"][0]
    found = json.loads((FIXTURES / "ground_truth.json").read_text())[SOURCES[agent]]
    return found["session_id"], found["latest_user_request"]


def source_lines(agent: str) -> list[str]:
    """The captured transcript's lines the template is made of: for Copilot, its first run
    (up to its `session.shutdown`; the resumed run after it ended on a 429)."""
    lines = (FIXTURES / SOURCES[agent]).read_text().splitlines(keepends=True)
    if agent == "copilot":
        end = next(i for i, x in enumerate(lines) if '"type":"session.shutdown"' in x)
        lines = lines[:end]
    return lines


def compile_template(agent: str) -> Template:
    lines = source_lines(agent)
    n_head = HEADER_LINES[agent]
    session_id, request = fixture_truth(agent)
    prompt = esc(request)
    fixture_cwd = FIXTURE_CWDS.get(agent, FIXTURE_CWD)
    slot_of: dict[str, int] = {}
    slots: list[str] = []
    times: list[int] = []

    def compile_lines(chunk: list[str], remap: bool) -> list[Any]:
        pieces: list[Any] = []
        for line in chunk:
            for j, lit in enumerate(line.split(fixture_cwd)):
                if j:
                    pieces.append(("cwd", None))
                for k, part in enumerate(lit.split(prompt)):
                    if k:
                        pieces.append(("prompt", None))
                    pieces.extend(tokens(part, remap))
        return pieces

    def tokens(text: str, remap: bool) -> Iterator[Any]:
        pos = 0
        for m in TOKEN.finditer(text):
            yield text[pos : m.start()]
            pos = m.end()
            if m["ts"]:
                ms = parse_iso_ms(m["ts"])
                times.append(ms)
                yield ("ts", ms) if remap else m["ts"]
            elif m["uuid"]:
                if not remap or m["uuid"] == session_id:
                    yield m["uuid"]
                else:
                    yield ("id", slot(m["uuid"], "uuid"))
            elif m["hex"]:
                if remap:
                    yield m["pfx"] + "_"
                    yield ("id", slot(m["hex"], f"hex:{len(m['hex'])}"))
                else:
                    yield m[0]
            elif m["gms"]:
                yield m["gname"]
                yield ("gms", int(m["gms"])) if remap else m["gms"]
            elif m["ord"]:
                yield ("ord", int(m["ord"])) if remap else m[0]
            elif m["chex"]:
                if remap and agent == "copilot":
                    yield "call_"
                    yield ("id", slot(m["chex"], "hex:12"))
                else:
                    yield m[0]
            else:
                yield ("prev", None) if remap and agent == "claude" else m[0]
        yield text[pos:]

    def slot(value: str, kind: str) -> int:
        if value not in slot_of:
            slot_of[value] = len(slots)
            slots.append(kind)
        return slot_of[value]

    header = [p for p in compile_lines(lines[:n_head], remap=False) if p != ""]
    turn = [p for p in compile_lines(lines[n_head:], remap=True) if p != ""]
    prev_slot = None
    if agent == "claude":
        last_uuid = [json.loads(x).get("uuid") for x in lines if '"uuid"' in x][-1]
        prev_slot = slot_of[last_uuid]
    # Ordinals of turn k continue from the header: turn lines keep their fixture offsets.
    span = max(times) - min(times) + 1000
    return Template(
        agent=agent,
        session_id=session_id,
        header=_merge(header),
        turn=_merge(turn),
        slots=slots,
        span_ms=span,
        lines_per_turn=len(lines) - n_head,
        prev_slot=prev_slot,
        first_ms=min(times),
    )


def _merge(pieces: list[Any]) -> list[Any]:
    """Join adjacent literals so rendering appends fewer pieces."""
    out: list[Any] = []
    for p in pieces:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        else:
            out.append(p)
    return out


# --- where each agent keeps a session -----------------------------------------------------


def transcript_path(agent: str, home: Path, cwd: str) -> Path:
    """Where `agent` keeps its S1 session for a project at `cwd` under `home`."""
    src = Path(SOURCES[agent])
    if agent == "claude":
        return home / ".claude" / "projects" / claude_slug(cwd) / src.name
    if agent == "codex":
        return home / ".codex" / "sessions" / "2026" / "11" / "30" / src.name
    if agent == "copilot":
        return home / ".copilot" / "session-state" / COPILOT_SESSION / src.name
    return home / ".gemini" / "tmp" / gemini_slug(cwd) / "chats" / src.name


def gemini_slug(cwd: str) -> str:
    base = re.sub(r"[^a-z0-9]", "-", Path(cwd).name.lower())
    return re.sub(r"-+", "-", base).strip("-") or "project"


def register_gemini(home: Path, roots: dict[str, str]) -> None:
    """projects.json and the .project_root markers for `roots` (abs path -> slug)."""
    gem = home / ".gemini"
    reg = gem / "projects.json"
    known = json.loads(reg.read_text())["projects"] if reg.exists() else {}
    known.update(roots)
    gem.mkdir(parents=True, exist_ok=True)
    reg.write_text(json.dumps({"projects": known}, indent=2))
    for root, slug in roots.items():
        (gem / "tmp" / slug).mkdir(parents=True, exist_ok=True)
        (gem / "tmp" / slug / ".project_root").write_text(root)


@dataclass
class Generated:
    agent: str
    path: Path
    size: int
    turns: int


def write_transcript(
    agent: str, home: Path, cwd: str, target: int, *, salt: int = 1, final: str = FINAL_REQUEST
) -> Generated:
    """A transcript of at least `target` bytes for `cwd` whose last request is `final`."""
    tpl = compile_template(agent)
    path = transcript_path(agent, home, cwd)
    path.parent.mkdir(parents=True, exist_ok=True)
    if agent == "gemini":
        register_gemini(home, {cwd: gemini_slug(cwd)})
    if agent == "copilot":
        copilot_folder(path.parent, cwd, "Step 0: tidy up the weather helpers")
    head = tpl.render(tpl.header, 0, prompt="", cwd=esc(cwd), salt=salt)
    if agent == "gemini":  # projectHash is sha256 of the project root
        head = re.sub(
            r'"projectHash":"[0-9a-f]{64}"',
            f'"projectHash":"{hashlib.sha256(cwd.encode()).hexdigest()}"',
            head,
            count=1,
        )
    k = 0
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        written += f.write(head)
        turn_size = 0
        while k == 0 or written + turn_size < target:
            text = tpl.render(
                tpl.turn,
                k,
                prompt=esc(f"Step {k}: tidy up the weather helpers"),
                cwd=esc(cwd),
                salt=salt,
            )
            turn_size = len(text.encode())
            written += f.write(text)
            k += 1
        written += f.write(tpl.render(tpl.turn, k, prompt=esc(final), cwd=esc(cwd), salt=salt))
    return Generated(agent=agent, path=path, size=path.stat().st_size, turns=k + 1)


def append_turn(
    agent: str, path: Path, cwd: str, k: int, *, salt: int = 1, prompt: str = ""
) -> int:
    """Append turn `k` (the next one) to a generated transcript, its request `prompt`;
    returns the bytes added."""
    tpl = compile_template(agent)
    text = tpl.render(
        tpl.turn,
        k,
        prompt=esc(prompt or f"Appended turn {k}: re-run the unit tests"),
        cwd=esc(cwd),
        salt=salt,
    )
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
    return len(text.encode())


def append_traffic(agent: str, path: Path, cwd: str, k: int, size: int, *, salt: int = 1) -> int:
    """Append at least `size` bytes of turns `k`, `k+1`, … without their request lines: tool
    calls, results and answers only, so the request before them stays the latest one.
    Returns the number of turns appended."""
    tpl = compile_template(agent)
    added = turns = 0
    with open(path, "a", encoding="utf-8") as f:
        while added < size:
            prompt = f"Unsent {k + turns}: no request"
            text = tpl.render(tpl.turn, k + turns, prompt=esc(prompt), cwd=esc(cwd), salt=salt)
            added += f.write(
                "".join(line for line in text.splitlines(keepends=True) if prompt not in line)
            )
            turns += 1
    return turns


def copilot_folder(folder: Path, cwd: str, name: str) -> None:
    """The rest of a Copilot session's folder, from the capture: `workspace.yaml` (the project,
    by which baker finds the session) and `session.db` (its todo list)."""
    src = FIXTURES / SOURCES["copilot"]
    old = FIXTURE_CWDS["copilot"]
    text = (src.parent / "workspace.yaml").read_text().replace(old, cwd)
    first = fixture_truth("copilot")[1]
    (folder / "workspace.yaml").write_text(text.replace(f"name: {first}", f"name: {name[:60]}"))
    shutil.copyfile(src.parent / "session.db", folder / "session.db")


def hook_session(payload: bytes) -> str:
    """The session id a hook payload names (Copilot's key is camelCase)."""
    data = json.loads(payload)
    return str(data.get("session_id") or data["sessionId"])


def hook_payload(agent: str, which: int, home: Path, cwd: str, transcript: Path) -> bytes:
    """A real hook payload of `agent` re-pointed at the generated session and project."""
    if agent == "copilot":
        return copilot_payload(which, cwd, transcript)
    text = (FIXTURES / agent / "hook_payloads" / HOOKS[agent][which]).read_text()
    data = json.loads(text.replace(FIXTURE_CWD, cwd))
    data["transcript_path"] = str(transcript)
    data["cwd"] = cwd
    return json.dumps(data).encode()


def copilot_payload(which: int, cwd: str, transcript: Path) -> bytes:
    """Copilot's captured payloads (camelCase; only `agentStop` names the transcript) for the
    generated session. Its captured `preToolUse` is a `sql` call, which touches no file: the
    tool becomes the session's own `create` of the file the bench's traps match."""
    data = json.loads(
        (FIXTURES / "copilot" / "hook_payloads" / HOOKS["copilot"][which]).read_text()
    )
    data.update(sessionId=COPILOT_SESSION, cwd=cwd)
    if "transcriptPath" in data:
        data["transcriptPath"] = str(transcript)
    if which == 2:
        data.update(
            toolName="create",
            toolArgs={
                "path": f"{cwd}/weather/units.py",
                "file_text": "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
            },
        )
    return json.dumps(data).encode()


# --- homes with many sessions -------------------------------------------------------------


def uuid7(ms: int, n: int) -> str:
    h = f"{ms:012x}"
    return f"{h[:8]}-{h[8:12]}-7{n >> 12 & 0xFFF:03x}-a{n & 0xFFF:03x}-{n:012x}"


def write_codex_many(home: Path, cwd: str, count: int, *, sqlite: bool = True) -> Path:
    """`count` rollouts spread over 200 days; the project's newest sits in the middle."""
    tpl = compile_template("codex")
    lines = (FIXTURES / SOURCES["codex"]).read_text().splitlines(keepends=True)
    short = marked_text(lines[:9])  # header, first turn up to the prompt
    sessions = home / ".codex" / "sessions"
    now_ms = int(dt.datetime(2026, 11, 30, 5, 0, tzinfo=dt.UTC).timestamp() * 1000)
    step = 200 * 86_400_000 // count
    ours = count // 2
    rows = []
    for i in range(count):
        ms = now_ms - (count - i) * step
        tid = uuid7(ms, i)
        if i == ours:
            session_cwd, prompt = cwd, FINAL_REQUEST
        elif i % 997 == 1:  # a sibling folder whose path starts with the project's
            session_cwd, prompt = cwd + "-old", "Decoy: a sibling project's request"
        else:
            session_cwd, prompt = f"/home/dev/src/project-{i % 500}", f"Request {i}"
        t = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
        path = (
            sessions
            / t.strftime("%Y/%m/%d")
            / (f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{tid}.jsonl")
        )
        shift = ms - tpl.first_ms
        text = short.replace(tpl.session_id, tid)
        text = render_shifted(text, shift).replace("\x00CWD\x00", esc(session_cwd))
        text = text.replace("\x00PROMPT\x00", esc(prompt))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (ms / 1000, ms / 1000))
        rows.append((tid, str(path), ms, session_cwd, prompt))
    if sqlite:
        write_codex_state(home / ".codex", rows)
    return sessions


def marked_text(lines: list[str]) -> str:
    """`lines` with cwd and prompt marked, ids and timestamps left as captured."""
    truth = json.loads((FIXTURES / "ground_truth.json").read_text())[SOURCES["codex"]]
    text = "".join(lines).replace(FIXTURE_CWD, "\x00CWD\x00")
    return text.replace(esc(truth["latest_user_request"]), "\x00PROMPT\x00")


def render_shifted(text: str, shift_ms: int) -> str:
    return re.sub(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z",
        lambda m: iso_ms(parse_iso_ms(m[0]) + shift_ms),
        text,
    )


def write_codex_state(codex_home: Path, rows: list[tuple[str, str, int, str, str]]) -> Path:
    """Codex's `state_5.sqlite` index: the captured schema, one `threads` row per rollout."""
    db_path = codex_home / "state_5.sqlite"
    shutil.copyfile(FIXTURES / "codex" / ".codex" / "state_5.sqlite", db_path)
    db = sqlite3.connect(db_path)
    try:
        db.row_factory = sqlite3.Row
        proto = dict(db.execute("SELECT * FROM threads LIMIT 1").fetchone())
        db.execute("DELETE FROM threads")
        cols = list(proto)
        out = []
        for tid, path, ms, cwd, prompt in rows:
            row = {
                **proto,
                "id": tid,
                "rollout_path": path,
                "cwd": cwd,
                "title": prompt,
                "first_user_message": prompt,
                "preview": prompt,
                "created_at": ms // 1000,
                "updated_at": ms // 1000 + 7,
                "created_at_ms": ms,
                "updated_at_ms": ms + 7000,
                "recency_at": ms // 1000,
                "recency_at_ms": ms,
            }
            out.append(tuple(row[c] for c in cols))
        marks = ",".join("?" * len(cols))
        # Column names are this generator's own constants; values go through placeholders.
        sql = f"INSERT INTO threads ({','.join(cols)}) VALUES ({marks})"  # noqa: S608 - above
        db.executemany(sql, out)
        db.commit()
    finally:
        db.close()
    return db_path


def write_claude_many(home: Path, cwd: str, count: int) -> Path:
    """`count` project folders with one short session each; one folder is the project's."""
    tpl = compile_template("claude")
    projects = home / ".claude" / "projects"
    now_s = dt.datetime(2026, 11, 30, 5, 0, tzinfo=dt.UTC).timestamp()
    ours = count // 2
    for i in range(count):
        if i == ours:
            folder_cwd, prompt = cwd, FINAL_REQUEST
        elif i % 997 == 1:
            folder_cwd, prompt = cwd + "-old", "Decoy: a sibling project's request"
        else:
            folder_cwd, prompt = f"/home/dev/src/project-{i}", f"Request {i}"
        text = tpl.render(tpl.turn, i, prompt=esc(prompt), cwd=esc(folder_cwd), salt=7, chain=False)
        sid = f"{i:08x}-0000-4000-8000-{7:012x}"
        text = text.replace(tpl.session_id, sid)
        path = projects / claude_slug(folder_cwd) / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        mtime = now_s - (count - i) * 3600.0
        os.utime(path, (mtime, mtime))
    return projects


# --- the data folder ------------------------------------------------------------------------


# --- OpenCode: its sessions are rows of one database --------------------------------------

OPENCODE = "opencode"
OPENCODE_FIXTURE = FIXTURES / "opencode"  # the database OpenCode 1.18.33 wrote (README.md)
OPENCODE_ROOT = "/home/dev/work/proj"  # the captured project, moved to the bench's
OPENCODE_SESSION = "ses_dbaad4d20ffemFum0wyhM5uTAT"  # todos, edits, a sub-agent, a compaction
OPENCODE_HOOKS = ("session.idle.json", "session.start.json", "tool.execute.before.write.json")


def write_opencode(home: Path, cwd: str) -> Path:
    """`home`'s OpenCode data folder holding the captured database, its project moved to
    `cwd` in every text column; returns the database (made anew each call: 0.5 MB)."""
    import gzip

    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    db = data / "opencode.db"
    for suffix in ("-wal", "-shm"):
        (data / f"opencode.db{suffix}").unlink(missing_ok=True)
    with gzip.open(OPENCODE_FIXTURE / "opencode.db.gz", "rb") as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    conn = sqlite3.connect(db)
    try:
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (table,) in tables:
            for col in conn.execute(f"PRAGMA table_info('{table}')").fetchall():
                if col[2].upper() == "TEXT":
                    name = col[1]
                    conn.execute(
                        f'UPDATE "{table}" SET "{name}" = replace("{name}", ?, ?) '  # noqa: S608 - names from the schema
                        f'WHERE instr("{name}", ?)',
                        (OPENCODE_ROOT, cwd, OPENCODE_ROOT),
                    )
        conn.commit()
    finally:
        conn.close()
    return db


# The captured session's first turn (its rows before the second request's, and the events
# logged between): todowrite, write, edit, bash, an answer. A database of a given size repeats it.
OPENCODE_TURN_END = 1796459388520  # time_created of the captured session's second request
OPENCODE_TURN_REQUEST = "Create hello.txt with a todo list"
OPENCODE_IDS = re.compile(r"\b(?:msg|prt|evt)_[0-9a-f]{12}[0-9A-Za-z]{14}\b")
OPENCODE_MS = re.compile(r"\b1[78]\d{11}\b")  # a time in ms, 2023 to 2033
OPENCODE_ID_BASE = 0x300000000000  # generated ids sort after the captured ones
# A generated turn's request, as every generator writes it: the URL, the shell command and the
# secret of issue 29's set-up are in the turn scripts/bench.py appends (`APPENDED`).
OPENCODE_STEP = "Step {k}: tidy up the weather helpers"
TEXT, MS, SEQ = 0, 1, 2  # a cell of a template row: rendered text, a shifted time, a seq


@dataclass
class OpenCodeTurn:
    """The captured first turn's rows, compiled: every text cell of the turn, joined by RS,
    is one `str.format` template (its ids, times and request are the fields)."""

    rows: list[tuple[str, list[tuple[int, int]]]]  # (table, cells: (kind, captured value))
    text: str
    prefixes: list[str]  # of each id slot
    times: list[int]  # the captured time of each time field
    span: int  # one turn's duration and a second
    events: int  # event rows per turn (their seq moves on by this)


OPENCODE_COLUMNS = {
    "message": ("id", "session_id", "time_created", "time_updated", "data"),
    "part": ("id", "message_id", "session_id", "time_created", "time_updated", "data"),
    "event": ("id", "aggregate_id", "seq", "type", "data"),
}


def opencode_turn(conn: sqlite3.Connection) -> OpenCodeTurn:
    sid = OPENCODE_SESSION
    mine = "SELECT id FROM message WHERE session_id = ? AND time_created < ?"
    picked = {
        "message": conn.execute(
            f"SELECT * FROM message WHERE id IN ({mine}) ORDER BY time_created, id",  # noqa: S608 - constants
            (sid, OPENCODE_TURN_END),
        ).fetchall(),
        "part": conn.execute(
            f"SELECT * FROM part WHERE message_id IN ({mine}) ORDER BY id",  # noqa: S608 - constants
            (sid, OPENCODE_TURN_END),
        ).fetchall(),
    }
    (next_request,) = conn.execute(
        "SELECT id FROM message WHERE session_id = ? AND time_created >= ? "
        "ORDER BY time_created LIMIT 1",
        (sid, OPENCODE_TURN_END),
    ).fetchone()
    (end_seq,) = conn.execute(
        "SELECT min(seq) FROM event WHERE aggregate_id = ? AND instr(data, ?)",
        (sid, next_request),
    ).fetchone()
    # seq 0 and 1 are the session's creation; the turn's events follow until the next request
    picked["event"] = conn.execute(
        "SELECT id, aggregate_id, seq, type, data FROM event "
        "WHERE aggregate_id = ? AND seq >= 2 AND seq < ? ORDER BY seq",
        (sid, end_seq),
    ).fetchall()
    texts = [c for rows in picked.values() for row in rows for c in row if isinstance(c, str)]
    ids = sorted({m for t in texts for m in OPENCODE_IDS.findall(t)})
    slot = {x: i for i, x in enumerate(ids)}
    stamps = {int(m) for t in texts for m in OPENCODE_MS.findall(t)}
    for table, found in picked.items():
        at = [i for i, c in enumerate(OPENCODE_COLUMNS[table]) if c.startswith("time_")]
        stamps.update(row[i] for row in found for i in at)
    times = sorted(stamps)
    field = {t: len(ids) + i for i, t in enumerate(times)}
    prompt = esc(OPENCODE_TURN_REQUEST)

    def fmt(text: str) -> str:
        if "\x1e" in text:
            raise ValueError("a captured OpenCode row holds the record separator")
        text = text.replace("{", "{{").replace("}", "}}")
        text = OPENCODE_IDS.sub(lambda m: f"{{{slot[m[0]]}}}", text)
        text = OPENCODE_MS.sub(lambda m: f"{{{field[int(m[0])]}}}", text)
        return text.replace(prompt, "{P}")

    rows: list[tuple[str, list[tuple[int, int]]]] = []
    cells_text: list[str] = []
    for table, found in picked.items():
        for row in found:
            cells: list[tuple[int, int]] = []
            for name, value in zip(OPENCODE_COLUMNS[table], row, strict=True):
                if name == "seq":
                    cells.append((SEQ, value - 2))
                elif name.startswith("time_"):
                    cells.append((MS, times.index(value)))
                else:
                    cells.append((TEXT, 0))
                    cells_text.append(fmt(value))
            rows.append((table, cells))
    return OpenCodeTurn(
        rows=rows,
        text="\x1e".join(cells_text),
        prefixes=[x[:3] for x in ids],
        times=times,
        span=max(times) - min(times) + 1000,
        events=end_seq - 2,
    )


def write_opencode_sized(home: Path, cwd: str, target: int) -> Generated:
    """The captured database (`write_opencode`) whose captured session goes on, turn after
    turn (the captured first turn's rows and events with ids, times and seq of their own), until
    the file holds at least `target` bytes, ending on FINAL_REQUEST. One transaction, no
    journal while it is written (a run cut short leaves no stamp, so it is made again); the
    database is left in WAL mode, as OpenCode keeps it."""
    db = write_opencode(home, cwd)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -65536")
        tpl = opencode_turn(conn)
        sid = OPENCODE_SESSION
        (last,) = conn.execute("SELECT time_updated FROM session WHERE id = ?", (sid,)).fetchone()
        (seq,) = conn.execute(
            "SELECT seq FROM event_sequence WHERE aggregate_id = ?", (sid,)
        ).fetchone()
        start = last + 1000 - min(tpl.times)  # turn k's times: captured + start + k * span
        (page,) = conn.execute("PRAGMA page_size").fetchone()
        sql = {
            t: f"INSERT INTO {t} ({','.join(c)}) VALUES ({','.join('?' * len(c))})"  # noqa: S608 - constants
            for t, c in OPENCODE_COLUMNS.items()
        }

        def turns(first: int, count: int, prompt: str = "") -> dict[str, list[tuple[Any, ...]]]:
            out: dict[str, list[tuple[Any, ...]]] = {t: [] for t in OPENCODE_COLUMNS}
            for k in range(first, first + count):
                shift = start + k * tpl.span
                ids = [
                    f"{p}_{OPENCODE_ID_BASE + k:012x}{s:04d}BenchGen00"
                    for s, p in enumerate(tpl.prefixes)
                ]
                ms = [t + shift for t in tpl.times]
                cells = iter(
                    tpl.text.format(*ids, *ms, P=esc(prompt or OPENCODE_STEP.format(k=k))).split(
                        "\x1e"
                    )
                )
                base = seq + 1 + k * tpl.events
                for table, spec in tpl.rows:
                    out[table].append(
                        tuple(
                            next(cells) if kind == TEXT else ms[v] if kind == MS else base + v
                            for kind, v in spec
                        )
                    )
            return out

        def insert(rows: dict[str, list[tuple[Any, ...]]]) -> None:
            for table, found in rows.items():
                conn.executemany(sql[table], found)

        def size() -> int:
            return int(conn.execute("PRAGMA page_count").fetchone()[0]) * int(page)

        conn.execute("BEGIN")
        before, k, batch = size(), 0, 16
        while size() < target:  # in batches while far from it, then turn by turn
            insert(turns(k, batch))
            k += batch
            per_turn = max(1, (size() - before) // k)
            batch = max(1, min((target - size()) // per_turn // 2, 2000))
        insert(turns(k, 1, FINAL_REQUEST))
        end = start + k * tpl.span + max(tpl.times)
        conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (end, sid))
        conn.execute(
            "UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?",
            (seq + (k + 1) * tpl.events, sid),
        )
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()
    return Generated(agent=OPENCODE, path=db, size=db.stat().st_size, turns=k + 1)


def append_opencode_turn(db: Path, k: int, prompt: str) -> int:
    """One more turn of the captured session, as OpenCode writes it: a user message and its
    text part, an answer (the captured first answer's record, re-timed) and its text part,
    the session's `time_updated` and its event log's `seq` moved on. Returns the bytes of
    the rows' data."""
    import time

    conn = sqlite3.connect(db)
    try:
        sid = OPENCODE_SESSION
        # after the session's last row: a generated one's turns may lie ahead of the clock
        (last,) = conn.execute("SELECT time_updated FROM session WHERE id = ?", (sid,)).fetchone()
        now = max(int(time.time() * 1000), last + 1)
        (answer,) = conn.execute(
            "SELECT data FROM message WHERE session_id = ? AND data LIKE '%\"assistant\"%' "
            "ORDER BY time_created LIMIT 1",
            (sid,),
        ).fetchone()
        user, reply = f"msg_bench{k:08d}u", f"msg_bench{k:08d}a"
        asked = {"role": "user", "time": {"created": now}, "agent": "build"}
        said = json.loads(answer)
        said.update(parentID=user, time={"created": now + 1, "completed": now + 2})
        rows = [(user, now, json.dumps(asked)), (reply, now + 1, json.dumps(said))]
        texts = [(user, f'"{prompt}"'), (reply, f"Done with step {k}.")]
        parts = [json.dumps({"type": "text", "text": text}) for _, text in texts]
        for mid, at, data in rows:
            conn.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (mid, sid, at, at, data),
            )
        for i, (mid, _) in enumerate(texts):
            conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    f"prt_bench{k:08d}{i}",
                    mid,
                    sid,
                    now + i,
                    now + i,
                    parts[i],
                ),
            )
        conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (now + 2, sid))
        conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
        conn.commit()
    finally:
        conn.close()
    return sum(len(x[2].encode()) for x in rows) + sum(len(x.encode()) for x in parts)


def trim_opencode(db: Path, updated: int, seq: int) -> None:
    """Take the turns `append_opencode_turn` added out of `db` again: the session back at its
    `updated` time and event `seq`."""
    conn = sqlite3.connect(db)
    try:
        for table, prefix in (("part", "prt_bench"), ("message", "msg_bench")):
            conn.execute(
                f"DELETE FROM {table} WHERE id >= ? AND id < ?",  # noqa: S608 - constants
                (prefix, prefix[:-1] + "i"),
            )
        conn.execute(
            "UPDATE session SET time_updated = ? WHERE id = ?", (updated, OPENCODE_SESSION)
        )
        conn.execute(
            "UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?", (seq, OPENCODE_SESSION)
        )
        conn.commit()
    finally:
        conn.close()


def opencode_payload(which: int, cwd: str, session: str = OPENCODE_SESSION) -> bytes:
    """What baker's OpenCode plugin sent from a real run (tests/fixtures/opencode/payloads):
    0 `session.idle`, 1 `session.start`, 2 `tool.execute.before` of a write, re-pointed at
    `session` and `cwd`; the write is of the file the bench's traps match."""
    data = json.loads((OPENCODE_FIXTURE / "payloads" / OPENCODE_HOOKS[which]).read_text())
    data.update(session_id=session, cwd=cwd)
    if which == 2:
        data["args"] = {
            "filePath": f"{cwd}/weather/units.py",
            "content": "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
        }
    return json.dumps(data).encode()


def make_repo(path: Path) -> Path:
    """A scratch git repository with one commit (the generated sessions' cwd)."""
    if (path / ".git").exists():
        return path
    path.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    (path / "weather").mkdir(exist_ok=True)
    (path / "weather" / "units.py").write_text(
        "def celsius_to_fahrenheit(c: float) -> float:\n    return c * 9 / 5 + 32\n"
    )
    (path / "README.md").write_text("# weather-cli\n")
    for argv in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "initial"]):
        subprocess.run(["git", *argv], cwd=path, check=True, env=env, capture_output=True)
    # As a turn usually finds it: nothing wrote the index in the last seconds (a hook asks git
    # again while it is younger than `trust.RACY_S`, as after a commit).
    when = (path / ".git" / "index").stat().st_mtime - 60
    os.utime(path / ".git" / "index", (when, when))
    return path


class Data:
    """The benchmark data folder: built once, reused while its stamps match."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.repo = self.root / "weather-cli"
        self.cwd = str(self.repo)

    def home(self, name: str) -> Path:
        return self.root / "homes" / name

    def _stamp(self, name: str) -> Path:
        return self.root / "stamps" / f"{name}.json"

    def _fresh(self, name: str, want: dict[str, Any]) -> dict[str, Any] | None:
        stamp = self._stamp(name)
        if not stamp.exists():
            return None
        have: dict[str, Any] = json.loads(stamp.read_text())
        return have if all(have.get(k) == v for k, v in want.items()) else None

    def _done(self, name: str, info: dict[str, Any]) -> None:
        self._stamp(name).parent.mkdir(parents=True, exist_ok=True)
        self._stamp(name).write_text(json.dumps(info))

    def transcript(self, agent: str, size: int, log: Any = print) -> Generated:
        """The `size` transcript of `agent`, trimmed back to its generated length if grown."""
        make_repo(self.repo)
        name = f"{agent}-{size}"
        want = {"version": GEN_VERSION, "cwd": self.cwd, "target": size}
        have = self._fresh(name, want)
        if have is not None:
            path = Path(have["path"])
            if path.exists() and path.stat().st_size >= have["size"]:
                if path.stat().st_size > have["size"]:
                    os.truncate(path, have["size"])  # a checkpoint run appended turns
                return Generated(agent, path, have["size"], have["turns"])
        home = self.home(f"size-{size}")
        log(f"generating {agent} transcript of {human(size)} ...")
        gen = write_transcript(agent, home, self.cwd, size)
        self._done(name, {**want, "path": str(gen.path), "size": gen.size, "turns": gen.turns})
        return gen

    def sized(self, agent: str, size: int, log: Any = print) -> Generated:
        """`agent`'s session of `size`: its transcript, or OpenCode's database (whose turns
        a checkpoint run appended are deleted again when it is reused)."""
        if agent != OPENCODE:
            return self.transcript(agent, size, log)
        make_repo(self.repo)
        name = f"{agent}-{size}"
        want = {"version": GEN_VERSION, "cwd": self.cwd, "target": size}
        have = self._fresh(name, want)
        if have is not None and Path(have["path"]).exists():
            trim_opencode(Path(have["path"]), have["updated"], have["seq"])
            return Generated(agent, Path(have["path"]), have["size"], have["turns"])
        log(f"generating an OpenCode database of {human(size)} ...")
        gen = write_opencode_sized(self.home(f"size-{size}"), self.cwd, size)
        conn = sqlite3.connect(gen.path)
        try:
            updated, seq = conn.execute(
                "SELECT s.time_updated, q.seq FROM session s JOIN event_sequence q "
                "ON q.aggregate_id = s.id WHERE s.id = ?",
                (OPENCODE_SESSION,),
            ).fetchone()
        finally:
            conn.close()
        info = {"path": str(gen.path), "size": gen.size, "turns": gen.turns}
        self._done(name, {**want, **info, "updated": updated, "seq": seq})
        return gen

    def codex_many(self, count: int, log: Any = print) -> Path:
        return self._many("codex", f"{count} Codex rollouts", count, write_codex_many, log)

    def claude_many(self, count: int, log: Any = print) -> Path:
        return self._many(
            "claude", f"{count} Claude project folders", count, write_claude_many, log
        )

    def _many(
        self, agent: str, what: str, count: int, write: Callable[[Path, str, int], object], log: Any
    ) -> Path:
        """A home with `count` sessions of `agent`, one of them the project's; made once."""
        make_repo(self.repo)
        name = f"{agent}-many-{count}"
        home = self.home(name)
        want = {"version": GEN_VERSION, "cwd": self.cwd, "count": count}
        if self._fresh(name, want) is None:
            log(f"generating {what} ...")
            shutil.rmtree(home, ignore_errors=True)
            write(home, self.cwd, count)
            self._done(name, want)
        return home

    def remove_sizes(self, at_least: int) -> None:
        """Delete generated transcripts of `at_least` bytes or more (disk hygiene)."""
        for stamp in (self.root / "stamps").glob("*.json"):
            info = json.loads(stamp.read_text())
            if info.get("target", 0) >= at_least:
                for suffix in ("", "-wal", "-shm"):  # a database's WAL files too
                    Path(info["path"] + suffix).unlink(missing_ok=True)
                stamp.unlink()


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    return str(n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "bench-data")
    ap.add_argument("--sizes", default="1M", help="comma-separated, e.g. 1M,100M,1G")
    ap.add_argument("--agents", default=",".join((*AGENTS, OPENCODE)))
    ap.add_argument("--rollouts", type=int, default=0, help="Codex rollouts in the many home")
    ap.add_argument("--folders", type=int, default=0, help="Claude project folders")
    args = ap.parse_args(argv)
    data = Data(args.data)
    for size in (parse_size(s) for s in args.sizes.split(",") if s):
        for agent in args.agents.split(","):
            gen = data.sized(agent, size)
            print(f"{agent}: {gen.path} {human(gen.size)} ({gen.turns} turns)")
    if args.rollouts:
        print(data.codex_many(args.rollouts))
    if args.folders:
        print(data.claude_many(args.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
