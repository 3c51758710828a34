"""The snapshots other machines pushed, as this clone reads them: hostile data.

Anyone who can push to the remote writes `refs/baker/*`, so what `machines.pull` fetched is
read here as data from outside: a snapshot file over `SNAPSHOT_MAX` is refused with a
message naming its ref, only plain blobs of its tree are read, and every string is redacted,
stripped of terminal control and clipped (`FIELD_MAX`) when it is read, and again where it
is shown. The pickup and pretool hooks and the brief read `.baker/machines.json` and the
refs through this module; `machines` is the transport (`push`, `pull`) and imports this one,
never the other way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from continuity_core import git as _git
from continuity_core.errors import BakerError
from continuity_core.git import GIT_TIMEOUT_S, run
from continuity_core.redact import one_line, redact  # every reader of snapshots redacts
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.trap import Trap
from continuity_core.store import HASHED_FILES_MAX, MACHINES_FILE, STORE  # `pull` writes it

if TYPE_CHECKING:
    from continuity_core.brief import Brief
    from continuity_core.trust import StrPath

REF_PREFIX = "refs/baker/"
SCHEMA_VERSION = 1
# The files of a snapshot's tree. Transcripts are never among them.
BRIEF_MD, BRIEF_JSON, SNAPSHOT_JSON = "brief.md", "brief.json", "snapshot.json"
NOTE_MD, TRAPS_JSONL, CHECKPOINT_JSON = "note.md", "traps.jsonl", "checkpoint.json"
SAVED_JSON, LIMITS_JSON = "saved.json", "limits.json"
SNAPSHOT_MAX = 256 * 1024  # a file of a snapshot, and machines.json: a bigger one is refused
FIELD_MAX = 64 * 1024  # a string read from a snapshot, once redacted (a brief section)
LINE_MAX = 300  # a string of machines.json, which the hooks read
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_OID = re.compile(r"^[0-9a-f]{7,64}$")
_BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,200}$")


class Snapshot(msgspec.Struct, kw_only=True, omit_defaults=True):
    """`snapshot.json`: what a snapshot is, without opening the brief."""

    schema_version: int = SCHEMA_VERSION
    machine: str
    agent: str | None = None
    event: str | None = None  # the newest checkpoint's event ("stop", "manual", ...)
    checkpoint: str | None = None  # its id
    checkpoint_at: str | None = None
    session: str | None = None
    ended_on_limit: bool = False
    reset_at: str | None = None
    latest_request: str | None = None  # redacted, one line, clipped
    git: GitFacts = msgspec.field(default_factory=GitFacts)  # when the snapshot was taken
    files: list[str] = msgspec.field(default_factory=list)  # the tree's files


class MachineInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One other machine's newest snapshot, as `pull` found it."""

    name: str
    commit: str
    time: str  # the snapshot commit's date
    snapshot: Snapshot


class MachinesFile(msgspec.Struct, kw_only=True, omit_defaults=True):
    """`.baker/machines.json`: the other machines' snapshots and traps, written by `pull`."""

    schema_version: int = SCHEMA_VERSION
    pulled_at: str
    machines: list[MachineInfo] = msgspec.field(default_factory=list)
    traps: list[Trap] = msgspec.field(default_factory=list)


class Refused(BakerError):
    """A snapshot file over `SNAPSHOT_MAX`, or one this baker cannot read."""


# --- names and git ------------------------------------------------------------------------------


def validate_machine(name: str) -> str:
    """`name` when it is one safe ref component: letters, digits, `.`, `_`, `-`, ≤ 63 long."""
    if not _NAME.match(name) or ".." in name or name.endswith((".", ".lock")):
        raise BakerError(
            f"machine name {name!r} cannot be a git ref name: use letters, digits, '.', '_' and "
            "'-' (set [machine] name in ~/.baker/config.toml)"
        )
    return name


def ref_for(machine: str) -> str:
    return REF_PREFIX + validate_machine(machine)


# --- the sanitizer ------------------------------------------------------------------------------


def clean_text(text: str, limit: int = FIELD_MAX) -> str:
    """A string from a snapshot as it may be kept and shown: redacted, without terminal
    control (`redact` strips it), clipped to `limit` characters."""
    out = redact(text)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def clean(value: Any, limit: int = FIELD_MAX) -> Any:
    """`clean_text` on every string (and key) of a JSON-like value."""
    if isinstance(value, str):
        return clean_text(value, limit)
    if isinstance(value, list):
        return [clean(v, limit) for v in value]
    if isinstance(value, dict):
        return {clean_text(str(k), 256): clean(v, limit) for k, v in value.items()}
    return value


def decode(data: bytes, type_: Any, where: str, limit: int = FIELD_MAX) -> Any:
    """`data` (a file of a snapshot, named `where`) as `type_`, every string cleaned; Refused
    when it is over `SNAPSHOT_MAX` or not that type."""
    if len(data) > SNAPSHOT_MAX:
        raise Refused(
            f"{where} is {len(data) // 1024} KiB, over the {SNAPSHOT_MAX // 1024} KiB a "
            "snapshot file may hold: refused, not read"
        )
    try:
        raw = msgspec.json.decode(data)
        return msgspec.json.decode(msgspec.json.encode(clean(raw, limit)), type=type_)
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise Refused(
            f"{where} is not a snapshot file this baker reads: {clean_text(str(e), 200)}"
        ) from None


def clean_trap(trap: Trap, machine: str) -> Trap:
    """Another machine's trap, strings cleaned and bounded, citing files inside the project."""
    trap.id = clean_text(trap.id, 64)
    trap.pattern = clean_text(one_line(trap.pattern, LINE_MAX), LINE_MAX)  # shown as one line
    trap.why = clean_text(one_line(trap.why, LINE_MAX), LINE_MAX)
    trap.created_at = clean_text(trap.created_at, 64)
    trap.session = clean_text(trap.session, 128) if trap.session else trap.session
    trap.agent = clean_text(trap.agent, 64) if trap.agent else trap.agent
    cited = list(trap.file_hashes.items())[:HASHED_FILES_MAX]
    cited = [(clean_text(k, LINE_MAX), clean_text(v, 128)) for k, v in cited]
    # A path out of the project (absolute, or climbing with `..`, once cleaned) is no citation.
    out = [k for k, _ in cited if os.path.isabs(k) or ".." in re.split(r"[/\\]", k)]
    trap.file_hashes = {k: v for k, v in cited if k not in out}
    trap.machine = machine
    return trap


def _rev(root: Path, rev: str) -> str | None:
    out = run(root, "rev-parse", "-q", "--verify", rev, check=False).strip()
    return out or None


def snapshots(
    root: Path, *, exclude: str | None = None, refused: list[str] | None = None
) -> list[MachineInfo]:
    """Every machine's newest snapshot in this clone's `refs/baker/`, newest first, cleaned.
    A ref whose snapshot is refused (too big, not a plain blob, unreadable) is left out, and
    why is added to `refused`."""
    out = run(
        root,
        "for-each-ref",
        "--sort=-committerdate",
        "--format=%(refname)%00%(objectname)%00%(committerdate:iso-strict)",
        REF_PREFIX,
        check=False,
    )
    rows = []
    for line in out.splitlines():
        ref, commit, when = [*line.split("\x00"), "", ""][:3]
        name = ref.removeprefix(REF_PREFIX)
        if name != exclude and _NAME.match(name) and _OID.match(commit):
            rows.append((name, commit, clean_text(when, 64)))
    blobs = cat_plain(root, [(commit, SNAPSHOT_JSON) for _, commit, _ in rows])
    found = []
    for (name, commit, when), data in zip(rows, blobs, strict=True):
        try:
            if data is None:
                raise Refused(f"{REF_PREFIX}{name}: no {SNAPSHOT_JSON} as a plain file")
            snap = decode(data, Snapshot, f"{REF_PREFIX}{name} ({SNAPSHOT_JSON})", LINE_MAX)
        except Refused as e:
            if refused is not None:
                refused.append(str(e))
            continue
        found.append(MachineInfo(name=name, commit=commit, time=when, snapshot=snap))
    return found


def cat_plain(root: Path, wanted: list[tuple[str, str]]) -> list[bytes | None]:
    """The files `(commit, name)` of snapshot trees, read only where the tree holds a plain
    blob under that name (a link, a folder or a submodule entry reads as None)."""
    plain: list[str] = []
    for commit, name in wanted:
        listed = run(root, "ls-tree", "-z", "--full-tree", commit, "--", name, check=False)
        mode, _, rest = listed.partition(" ")
        kind = rest.split(" ", 1)[0]
        ok = mode in ("100644", "100755") and kind == "blob" and listed.endswith(f"\t{name}\0")
        plain.append(f"{commit}:{name}" if ok else "")
    got = iter(_cat(root, [spec for spec in plain if spec]))
    return [next(got) if spec else None for spec in plain]


def _cat(root: Path, specs: list[str]) -> list[bytes | None]:
    """The blobs named `rev:path`, in one `git cat-file --batch`; None for a missing one."""
    import subprocess

    if not specs:
        return []
    proc = subprocess.run(
        _git.argv(root, "cat-file", "--batch"),
        cwd=root,
        capture_output=True,
        input=("\n".join(specs) + "\n").encode(),
        env=_git.run_env(),
        timeout=GIT_TIMEOUT_S,
        check=False,
    )
    data, pos = proc.stdout, 0
    out: list[bytes | None] = []
    for _ in specs:
        end = data.find(b"\n", pos)
        if end < 0:
            out.append(None)
            continue
        header = data[pos:end].split()
        pos = end + 1
        if len(header) == 3:  # "<oid> <type> <size>" and the body (a tree's or a commit's: None)
            size = int(header[2])
            out.append(data[pos : pos + size] if header[1] == b"blob" else None)
            pos += size + 1
        else:
            out.append(None)  # "<spec> missing"
    return out


def from_file(root: StrPath) -> MachinesFile | None:
    """`.baker/machines.json` as `pull` last wrote it (cleaned then; what the pickup shows of
    it is redacted again); None when absent, unreadable or over `SNAPSHOT_MAX`. The hooks
    read this (a few KB), never git."""
    try:
        with open(os.path.join(root, STORE, MACHINES_FILE), "rb") as f:
            data = f.read(SNAPSHOT_MAX + 1)
    except OSError:
        return None
    if len(data) > SNAPSHOT_MAX:
        return None  # `pull` never writes one this big: not read, not shown
    try:
        return msgspec.json.decode(data, type=MachinesFile)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def pickup_text(root: StrPath) -> str | None:
    """The pickup's section on other machines: each one's newest snapshot and its traps."""
    found = from_file(root)
    if found is None or not found.machines:
        return None
    lines = [
        f"(fetched by `baker pull` at {found.pulled_at}; `baker handoff --machine NAME` "
        "prints one's brief)"
    ]
    for m in found.machines:
        s = m.snapshot
        state = "limit" if s.ended_on_limit else (s.event or "manual")
        where = f"{s.git.branch or 'detached'} @ {(s.git.head or '?')[:12]}"
        said = f"{m.name} · {m.time} · {s.agent or 'no agent'} · {state} · {where}"
        lines.append(f"- {one_line(said, 4 * LINE_MAX)}")  # each field one line of data
        if s.latest_request:
            lines.append(f"  - last request: {one_line(s.latest_request, LINE_MAX)}")
    for t in found.traps:
        lines.append(f"- trap from {t.machine}: `{t.pattern}` ({t.kind}): {t.why}")
    return redact("\n".join(lines))


# --- a brief from another machine ---------------------------------------------------------------


def brief_for(root: Path, machine: str, budget_tokens: int | None = None) -> Brief:
    """`machine`'s brief from its snapshot, its repo-state section compared with this checkout."""
    from continuity_core import brief as brief_mod
    from continuity_core.schemas.handoff import Section

    ref = ref_for(machine)
    commit = _rev(root, ref + "^{commit}")
    if commit is None:
        known = ", ".join(m.name for m in snapshots(root)) or "none"
        raise BakerError(
            f"no snapshot of machine {machine!r} in this clone (known: {known}); "
            "run `baker pull` first"
        )
    brief_data, snap_data = cat_plain(root, [(commit, BRIEF_JSON), (commit, SNAPSHOT_JSON)])
    where = f"{ref} ({commit[:12]})"
    brief: Brief = decode(brief_data or b"", brief_mod.Brief, f"{where} {BRIEF_JSON}")
    snap = decode(snap_data or b"", Snapshot, f"{where} {SNAPSHOT_JSON}", LINE_MAX)
    when = clean_text(run(root, "log", "-1", "--format=%cI", commit).strip(), 64)
    body = f"- snapshot: `{ref}` {commit[:12]}, taken {when}\n{compare(root, machine, snap.git)}"
    section = Section(
        key="repo",
        title=f"Repo state on {machine}, compared with here",
        source=f"snapshot of {machine}, compared live",
        body=redact(body),
        priority=85,
    )
    for s in brief.sections:  # saved checkpoints are not pushed: resume-check answers there
        if s.key == "saved":
            kept = [ln for ln in s.body.splitlines() if not ln.startswith(("- path:", "- check"))]
            kept.append(
                f"- saved on {machine}; saved checkpoints stay on the machine that saved them: "
                f"`baker resume-check` answers there, not here"
            )
            s.body = "\n".join(kept)
    index = next((i for i, s in enumerate(brief.sections) if s.key == "repo"), None)
    if index is None:
        brief.sections.append(section)
    else:
        brief.sections[index] = section
    brief.created_at = when
    if budget_tokens is not None:
        brief.budget_tokens = budget_tokens
    brief_mod.fit(brief)
    return brief


def compare(root: Path, machine: str, theirs: GitFacts) -> str:
    """What differs between `machine`'s repo state and this checkout: branch, commits, and
    whether its uncommitted files exist here."""
    if not theirs.is_repo:
        return f"- {machine} was not in a git repository"
    here = _git.git_facts(root, worktrees=False)
    head = theirs.head if theirs.head and _OID.match(theirs.head) else ""
    switch = not theirs.branch or _BRANCH.match(theirs.branch) is not None  # safe to suggest
    if not switch:
        theirs.branch = clean_text(theirs.branch or "", 80)

    def commit(facts: GitFacts) -> str:  # an unborn branch has none
        return f"commit {facts.head[:12]} {facts.subject or ''}" if facts.head else "no commit yet"

    lines = [
        f"- on {machine}: branch {theirs.branch or 'detached HEAD'}, {commit(theirs)}".rstrip(),
        f"- here: branch {here.branch or 'detached HEAD'}, {commit(here)}".rstrip(),
    ]
    if switch and theirs.branch and theirs.branch != here.branch:
        lines.append(
            f"- other branch: {machine} worked on `{theirs.branch}`; "
            f"`git switch {theirs.branch}` to continue there"
        )
    if head and head == here.head:
        lines.append(f"- same commit as {machine}")
    elif head and _rev(root, head + "^{commit}") is None:
        lines.append(
            f"- {machine}'s commit {head[:12]} is not in this clone: `git fetch` "
            f"(it may be unpushed on {machine})"
        )
    elif head and here.head:
        counts = run(
            root, "rev-list", "--left-right", "--count", f"HEAD...{head}", check=False
        ).split()
        if len(counts) == 2:
            ahead, missing = int(counts[0]), int(counts[1])
            lines.append(
                f"- missing here: {missing} commit(s) {machine} had "
                f"(`git log HEAD..{head[:12]}`); here has {ahead} it did not"
            )
    if theirs.dirty_count:
        lines.append(f"- {machine} had {theirs.dirty_count} uncommitted file(s), in no commit:")
        for entry in theirs.dirty:
            xy, path = entry[:2], entry[3:]  # git_facts writes "XY path"
            present = (root / path).exists()
            said = "exists here (without its changes there)" if present else "missing here"
            lines.append(f"  - `{path}` ({xy.strip() or '?'}): {said}")
        if theirs.dirty_count > len(theirs.dirty):
            lines.append(f"  - … and {theirs.dirty_count - len(theirs.dirty)} more")
    else:
        lines.append(f"- {machine}'s working tree was clean")
    return "\n".join(lines)
