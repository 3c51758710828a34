"""Continuity across machines, through the repository's own git remote.

`push` writes a snapshot of this project's continuity state (the brief as it would be printed
now, the newest checkpoint, the note, the traps, the saved checkpoints' index, the limit
ledger's entries) as a commit on `refs/baker/<machine>`, whose parent is the previous snapshot
of that machine, and pushes that one ref. It is built with git plumbing only (`hash-object -w`,
`mktree`, `commit-tree`, `update-ref`): the index, the worktree and the branches are never
touched. Transcripts never travel, and a note, trap or checkpoint holding anything the secret
scan knows is refused whole: nothing is redacted and pushed anyway.

`pull` fetches every other machine's `refs/baker/*` and writes `.baker/machines.json`, the
small file the pickup and pretool hooks read (never git at hook time). The opt-in for the
automatic push after a Stop hook lives in the clone's own git config (`baker.remote`,
`baker.autoPush`), never in a file a clone could bring. Only git talks to the remote.
The hooks import this module for `.baker/machines.json` alone: `subprocess` is imported where
git runs.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from continuity_core import git as _git
from continuity_core.errors import BakerError
from continuity_core.records import dec_hook, enc_hook
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.trap import Trap
from continuity_core.store import MACHINES_FILE  # written by `pull`

if TYPE_CHECKING:
    from continuity_core.brief import Brief

REF_PREFIX = "refs/baker/"
AUTO_PUSH_TIMEOUT_S = 60
GIT_TIMEOUT_S = 30.0
TRAPS_PER_MACHINE = 200  # the newest of another machine's traps that reach the hooks here
SCHEMA_VERSION = 1
# The files of a snapshot's tree. Transcripts are never among them.
BRIEF_MD, BRIEF_JSON, SNAPSHOT_JSON = "brief.md", "brief.json", "snapshot.json"
NOTE_MD, TRAPS_JSONL, CHECKPOINT_JSON = "note.md", "traps.jsonl", "checkpoint.json"
SAVED_JSON, LIMITS_JSON = "saved.json", "limits.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_SNAPSHOT_IDENTITY = {
    "GIT_AUTHOR_EMAIL": "baker@localhost",
    "GIT_COMMITTER_EMAIL": "baker@localhost",
}


class GitError(BakerError):
    pass


class SecretFound(BakerError):
    """The state holds a secret: nothing was written, no ref moved."""


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


class PushResult(msgspec.Struct, kw_only=True):
    machine: str
    remote: str
    ref: str
    commit: str | None = None
    changed: bool = False  # a new snapshot commit was written
    pushed: bool = False
    sent: bool = False  # the remote's ref moved (False when it already held this snapshot)
    deleted: bool = False


class PullResult(msgspec.Struct, kw_only=True):
    remote: str
    machines: list[MachineInfo] = msgspec.field(default_factory=list)
    traps: int = 0


# --- names and git ------------------------------------------------------------------------------


def validate_machine(name: str) -> str:
    """`name` when it is one safe ref component: letters, digits, `.`, `_`, `-`, ≤ 63 long."""
    if not _NAME.match(name) or ".." in name or name.endswith((".", ".lock")):
        raise BakerError(
            f"machine name {name!r} cannot be a git ref name: use letters, digits, '.', '_' and "
            "'-' (set [machine] name in ~/.baker/config.toml)"
        )
    return name


def machine_name(configured: str | None = None) -> str:
    """`[machine] name` from config.toml, else this host's short name made ref-safe."""
    if configured is None:
        from continuity_core.config import load_config

        configured = load_config().machine.name
    if configured:
        return validate_machine(configured)
    import socket

    host = socket.gethostname().split(".")[0]
    return validate_machine(re.sub(r"[^A-Za-z0-9_-]+", "-", host).strip("-_")[:63] or "machine")


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", **(extra or {})}


def git(
    root: Path,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = GIT_TIMEOUT_S,
    check: bool = True,
) -> str:
    """Run git in `root`; a failure is a GitError carrying git's own message."""
    import subprocess

    try:
        proc = subprocess.run(
            _git.argv(root, *args),
            cwd=root,
            input=input,
            capture_output=True,
            env=_env(env),
            timeout=timeout,
            check=False,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`git {args[0]}` took more than {timeout:g}s; gave up") from None
    if check and proc.returncode != 0:
        # `git push --porcelain` reports a rejected ref on stdout ("!<TAB>ref<TAB>why").
        rejected = [
            " ! " + ln[2:].replace("\t", " ")
            for ln in proc.stdout.decode(errors="replace").splitlines()
            if ln.startswith("!\t")
        ]
        lines = rejected + proc.stderr.decode(errors="replace").strip().splitlines()
        said = [ln for ln in lines if ln.startswith(("fatal:", "error:", "remote:", " ! "))]
        why = " ".join((said or lines or [f"exit {proc.returncode}"])[:2]).strip()
        raise GitError(f"`git {args[0]}` failed: {why}")
    return proc.stdout.decode(errors="replace") if proc.returncode == 0 else ""


def _rev(root: Path, rev: str) -> str | None:
    out = git(root, "rev-parse", "-q", "--verify", rev, check=False).strip()
    return out or None


def ref_for(machine: str) -> str:
    return REF_PREFIX + validate_machine(machine)


def local_config(root: Path) -> dict[str, str]:
    """`baker.*` keys of the clone's own git config (`--local`: never the global or system
    files, never an include, never anything a clone could bring)."""
    from continuity_core.git import local_config_may_name

    if not local_config_may_name(root, b"baker"):  # no baker.* key there: no git call
        return {}
    out = git(root, "config", "--local", "--get-regexp", r"^baker\.", check=False)
    found: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        found[key.lower()] = value.strip()
    return found


def _is_true(value: str | None) -> bool:
    return (value or "").lower() in ("true", "yes", "on", "1")


def default_remote(root: Path) -> str:
    """`baker.remote`, else the current branch's upstream remote, else `origin`."""
    configured = local_config(root).get("baker.remote")
    if configured:
        return check_remote(configured)
    branch = git(root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    if branch:
        upstream = git(root, "config", "--get", f"branch.{branch}.remote", check=False).strip()
        if upstream and upstream != ".":
            return check_remote(upstream)
    return "origin"


def check_remote(remote: str) -> str:
    if not remote or remote.startswith("-"):
        raise BakerError(f"{remote!r} is not a remote name or URL")
    return remote


# --- the snapshot -------------------------------------------------------------------------------


def collect(root: Path, machine: str) -> dict[str, bytes]:
    """The files of this project's snapshot; refuses (SecretFound) when one holds a secret."""
    from continuity_core import brief as brief_mod
    from continuity_core import handoff
    from continuity_core.note import NOTE_PATH
    from continuity_core.store import Store
    from continuity_core.traps import traps_path

    store = Store(root)
    files: dict[str, bytes] = {}
    # What was written on purpose or by the hooks, as written: scanned, never redacted here.
    raw = {
        NOTE_MD: (root / NOTE_PATH, str(NOTE_PATH)),
        TRAPS_JSONL: (traps_path(root), ".baker/traps.jsonl"),
    }
    newest = store.checkpoint_paths()[:1]
    if newest:
        raw[CHECKPOINT_JSON] = (newest[0], f".baker/checkpoints/{newest[0].name}")
    shown = {name: label for name, (_, label) in raw.items()}
    for name, (path, _) in raw.items():
        try:
            files[name] = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
    _refuse_secrets(files, shown)  # before the brief is even built
    made = handoff.make(root)
    files[BRIEF_MD] = brief_mod.render(made.brief).encode()
    # No time in the tree: a tree changes when the state does, so an unchanged push is a no-op.
    stable = made.brief.replace(created_at="")
    files[BRIEF_JSON] = (
        msgspec.json.format(msgspec.json.encode(stable, enc_hook=enc_hook), indent=2) + b"\n"
    )
    saved = _saved_index(root)
    if saved is not None:
        files[SAVED_JSON] = saved
    limits = _limits()
    if limits is not None:
        files[LIMITS_JSON] = limits
    cp = store.latest_checkpoint() if store.exists else None
    brief = made.brief
    snap = Snapshot(
        machine=machine,
        agent=cp.agent if cp else None,
        event=cp.event if cp else None,
        checkpoint=cp.id if cp else None,
        checkpoint_at=cp.created_at if cp else None,
        session=(
            cp.session.session_id
            if cp and cp.session
            else made.session.session_id
            if made.session
            else None
        ),
        ended_on_limit=brief.ended_on_limit,
        reset_at=brief.reset_at,
        latest_request=_one_line(brief.latest_request) if brief.latest_request else None,
        git=_snapshot_git(root),
        files=sorted([*files, SNAPSHOT_JSON]),
    )
    files[SNAPSHOT_JSON] = (
        msgspec.json.format(msgspec.json.encode(snap, enc_hook=enc_hook), indent=2) + b"\n"
    )
    _refuse_secrets(files, shown)  # what was derived is redacted; checked all the same
    return files


def _refuse_secrets(files: dict[str, bytes], labels: dict[str, str]) -> None:
    findings = [
        (labels.get(name, name), kinds)
        for name, data in sorted(files.items())
        if (kinds := _scan(data))
    ]
    if findings:
        what = "; ".join(f"{label} holds {', '.join(kinds)}" for label, kinds in findings)
        raise SecretFound(
            f"refusing to push: {what} (the secret scan's kinds; no value shown). Nothing was "
            "written and no ref moved: remove it (edit the note, `baker trap rm ID`, or let "
            "the next checkpoint replace the old one) and push again"
        )


def _scan(data: bytes) -> list[str]:
    from continuity_core.redact import scan

    return scan(data.decode("utf-8", "replace"))


def _one_line(text: str, limit: int = 300) -> str:
    from continuity_core.redact import redact

    flat = " ".join(redact(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _snapshot_git(root: Path) -> GitFacts:
    from continuity_core.git import git_facts

    facts = git_facts(root, worktrees=False)
    facts.root = None  # where the clone lies on this machine means nothing on another
    return facts


def _saved_index(root: Path) -> bytes | None:
    """The saved checkpoints' index: ids, times, agents, sizes (never their text)."""
    from continuity_core import saved

    found = saved.list_saved(root)
    if not found:
        return None
    index = [
        {"id": c.id, "time": c.time, "agent": c.agent, "latest": c.latest, "bytes": c.bytes}
        for c in found
    ]
    return msgspec.json.format(msgspec.json.encode(index, enc_hook=enc_hook), indent=2) + b"\n"


def _limits() -> bytes | None:
    """The accounts still limited when the snapshot is taken: a usage limit belongs to the
    account, not to the machine, so another machine that uses the same account should know.
    Agent, account name, since, until, kind and source only: never the account's folder
    (a path on this machine) nor the agent's message."""
    from continuity_core import limits

    entries = [
        {
            "agent": lim.agent,
            "account": lim.account,
            "since": lim.since,
            "until": lim.until,
            "kind": lim.kind,
            "source": lim.source,
        }
        for lim in limits.read()
    ]
    if not entries:
        return None
    return msgspec.json.format(msgspec.json.encode(entries, enc_hook=enc_hook), indent=2) + b"\n"


def _message(machine: str, snap: Snapshot) -> str:
    """`laptop · 2026-12-01T14:02:00Z · claude · limit` and the latest request."""
    from continuity_core.store import now_iso

    state = "limit" if snap.ended_on_limit else (snap.event or "manual")
    subject = " · ".join([machine, now_iso(), snap.agent or "no agent", state])
    body = f"\n\n{snap.latest_request}\n" if snap.latest_request else "\n"
    return subject + body


def write_snapshot(root: Path, machine: str, files: dict[str, bytes]) -> tuple[str, bool]:
    """Commit `files` on `refs/baker/<machine>` with plumbing only; (commit, changed). An
    unchanged tree writes nothing and moves nothing."""
    ref = ref_for(machine)
    entries = []
    for name in sorted(files):
        sha = git(root, "hash-object", "-w", "--stdin", input=files[name]).strip()
        entries.append(f"100644 blob {sha}\t{name}\n")
    tree = git(root, "mktree", input="".join(entries).encode()).strip()
    parent = _rev(root, ref + "^{commit}")
    if parent is not None and _rev(root, parent + "^{tree}") == tree:
        return parent, False
    snap = msgspec.json.decode(files[SNAPSHOT_JSON], type=Snapshot, dec_hook=dec_hook)
    identity = {
        **_SNAPSHOT_IDENTITY,
        "GIT_AUTHOR_NAME": f"baker ({machine})",
        "GIT_COMMITTER_NAME": f"baker ({machine})",
    }
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    commit = git(root, *args, input=_message(machine, snap).encode(), env=identity).strip()
    # The old value guards against a concurrent push of the same machine moving it meanwhile.
    git(root, "update-ref", "-m", "baker push", ref, commit, parent or "0" * 40)
    return commit, True


def _remote_env(interactive: bool) -> dict[str, str]:
    if interactive:
        return {}
    env = {
        "GIT_TERMINAL_PROMPT": "0",
        "GCM_INTERACTIVE": "never",
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
    }
    if "GIT_SSH_COMMAND" not in os.environ and "GIT_SSH" not in os.environ:
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    return env


def push(
    root: Path,
    remote: str | None = None,
    *,
    delete: bool = False,
    interactive: bool = True,
    machine: str | None = None,
    timeout: float = GIT_TIMEOUT_S,
) -> PushResult:
    """Snapshot this project on `refs/baker/<machine>` and push that ref (or delete it)."""
    from continuity_core.store import Store

    _require_repo(root)
    machine = machine or machine_name()
    ref = ref_for(machine)
    remote = check_remote(remote) if remote else default_remote(root)
    env = _remote_env(interactive)
    result = PushResult(machine=machine, remote=remote, ref=ref)
    if delete:
        try:
            git(root, "push", "--quiet", remote, f":{ref}", env=env, timeout=timeout)
        except GitError as e:
            if "remote ref does not exist" not in str(e):
                raise
        old = _rev(root, ref)
        if old is not None:
            git(root, "update-ref", "-d", ref, old)
        result.deleted = True
        return result
    store = Store(root)
    lock: contextlib.AbstractContextManager[None] = (
        store.lock("push", timeout=min(timeout, 30.0)) if store.exists else contextlib.nullcontext()
    )
    with lock:
        files = collect(root, machine)
        result.commit, result.changed = write_snapshot(root, machine, files)
        # An unchanged snapshot pushed again is git's own no-op ("Everything up-to-date").
        try:
            said = git(
                root, "push", "--porcelain", remote, f"{ref}:{ref}", env=env, timeout=timeout
            )
        except GitError as e:
            if _no_such_remote(str(e)):
                raise GitError(
                    f"{e}. The snapshot is kept here on {ref}; to push it, add the remote "
                    f"(`git remote add {remote} URL`), or name another one with `git config "
                    "baker.remote NAME` or as `baker push REMOTE`"
                ) from None
            if "rejected" in str(e) or "fetch first" in str(e):
                raise GitError(
                    f"{remote} refused {ref}: it holds snapshots this clone did not write "
                    "(another clone with the same machine name?). Give this clone its own "
                    "name ([machine] name in ~/.baker/config.toml), or `baker push --delete` "
                    f"first to replace them ({e})"
                ) from None
            raise
        result.pushed = True
        result.sent = not any(
            line.startswith("=\t") and line.split("\t")[1:2] == [f"{ref}:{ref}"]
            for line in said.splitlines()
        )
    return result


def _no_such_remote(message: str) -> bool:
    """Whether git failed because the remote is neither a configured name nor a repository."""
    return "does not appear to be a git repository" in message or "No such remote" in message


def _require_repo(root: Path) -> None:
    if _rev(root, "HEAD") is None and not (root / ".git").exists():
        raise BakerError(f"{root} is not in a git repository: machines meet through its remote")


# --- pull, and what the hooks read ------------------------------------------------------------


def pull(root: Path, remote: str | None = None) -> PullResult:
    """Fetch every machine's snapshot ref (not this machine's own, not any branch), then
    rewrite `.baker/machines.json`."""
    _require_repo(root)
    remote = check_remote(remote) if remote else default_remote(root)
    me = machine_name()
    git(
        root,
        "fetch",
        "--quiet",
        "--prune",
        "--no-write-fetch-head",
        "--no-tags",
        remote,
        f"+{REF_PREFIX}*:{REF_PREFIX}*",
        f"^{ref_for(me)}",
    )
    found = refresh(root)
    return PullResult(remote=remote, machines=found.machines, traps=len(found.traps))


def snapshots(root: Path, *, exclude: str | None = None) -> list[MachineInfo]:
    """Every machine's newest snapshot in this clone's `refs/baker/`, newest first."""
    out = git(
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
        if name != exclude and _NAME.match(name):
            rows.append((name, commit, when))
    blobs = _cat(root, [f"{commit}:{SNAPSHOT_JSON}" for _, commit, _ in rows])
    found = []
    for (name, commit, when), data in zip(rows, blobs, strict=True):
        try:
            snap = msgspec.json.decode(data or b"", type=Snapshot, dec_hook=dec_hook)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        found.append(MachineInfo(name=name, commit=commit, time=when, snapshot=snap))
    return found


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
        env=_env(),
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
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out.append(data[pos : pos + size])
            pos += size + 1
        elif len(header) == 3:  # a tree or a commit: skip its body
            pos += int(header[2]) + 1
            out.append(None)
        else:
            out.append(None)  # "<spec> missing"
    return out


def read(root: Path, machine: str, name: str) -> bytes | None:
    """One file of `machine`'s newest snapshot in this clone."""
    return _cat(root, [f"{ref_for(machine)}:{name}"])[0]


def refresh(root: Path) -> MachinesFile:
    """Rewrite `.baker/machines.json` from the refs: other machines and their traps."""
    from continuity_core.store import Store, now_iso
    from continuity_core.traps import WHY_MAX, parse_lines

    found = snapshots(root, exclude=machine_name())
    traps_blobs = _cat(root, [f"{m.commit}:{TRAPS_JSONL}" for m in found])
    traps: list[Trap] = []
    for info, data in zip(found, traps_blobs, strict=True):
        # Whoever can push to the remote writes these: bounded, so the hooks stay fast.
        for trap in parse_lines(data or b"")[-TRAPS_PER_MACHINE:]:
            if len(trap.why) <= WHY_MAX and len(trap.pattern) <= WHY_MAX:
                trap.machine = info.name
                traps.append(trap)
    result = MachinesFile(pulled_at=now_iso(), machines=found, traps=traps)
    store = Store(root)
    if store.exists:
        store.write_json(store.path(MACHINES_FILE), result)
    return result


def from_file(root: Path) -> MachinesFile | None:
    """`.baker/machines.json` as `pull` last wrote it; None when absent or unreadable. The
    hooks read this (a few KB), never git."""
    from continuity_core.store import STORE

    try:
        data = (root / STORE / MACHINES_FILE).read_bytes()
    except OSError:
        return None
    try:
        return msgspec.json.decode(data, type=MachinesFile, dec_hook=dec_hook)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def traps_from_others(root: Path) -> list[Trap]:
    found = from_file(root)
    return found.traps if found is not None else []


def pickup_text(root: Path) -> str | None:
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
        lines.append(f"- {m.name} · {m.time} · {s.agent or 'no agent'} · {state} · {where}")
        if s.latest_request:
            lines.append(f"  - last request: {s.latest_request}")
    for t in found.traps:
        lines.append(f"- trap from {t.machine}: `{t.pattern}` ({t.kind}): {t.why}")
    from continuity_core.redact import redact

    return redact("\n".join(lines))


# --- a brief from another machine ---------------------------------------------------------------


def brief_for(root: Path, machine: str, budget_tokens: int | None = None) -> Brief:
    """`machine`'s brief from its snapshot, its repo-state section compared with this checkout."""
    from continuity_core import brief as brief_mod
    from continuity_core.redact import redact

    ref = ref_for(machine)
    commit = _rev(root, ref + "^{commit}")
    if commit is None:
        known = ", ".join(m.name for m in snapshots(root)) or "none"
        raise BakerError(
            f"no snapshot of machine {machine!r} in this clone (known: {known}); "
            "run `baker pull` first"
        )
    brief_data, snap_data = _cat(root, [f"{commit}:{BRIEF_JSON}", f"{commit}:{SNAPSHOT_JSON}"])
    try:
        brief = msgspec.json.decode(brief_data or b"", type=brief_mod.Brief, dec_hook=dec_hook)
        snap = msgspec.json.decode(snap_data or b"", type=Snapshot, dec_hook=dec_hook)
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise BakerError(f"{ref} ({commit[:12]}) is not a snapshot this baker reads: {e}") from None
    when = git(root, "log", "-1", "--format=%cI", commit).strip()
    body = compare(root, machine, snap.git)
    body = f"- snapshot: `{ref}` {commit[:12]}, taken {when}\n{body}"
    section = brief_mod.Section(
        key="repo",
        title=f"Repo state on {machine}, compared with here",
        source=f"snapshot of {machine}, compared live",
        body=redact(body),
        priority=85,
    )
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
    from continuity_core.git import git_facts

    if not theirs.is_repo:
        return f"- {machine} was not in a git repository"
    here = git_facts(root, worktrees=False)
    head = theirs.head or ""
    lines = [
        f"- on {machine}: branch {theirs.branch or 'detached HEAD'}, commit {head[:12]} "
        f"{theirs.subject or ''}".rstrip(),
        f"- here: branch {here.branch or 'detached HEAD'}, commit {(here.head or '')[:12]} "
        f"{here.subject or ''}".rstrip(),
    ]
    if theirs.branch and theirs.branch != here.branch:
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
        counts = git(
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
            here_too = (
                "exists here (without its changes there)"
                if (root / path).exists()
                else "missing here"
            )
            lines.append(f"  - `{path}` ({xy.strip() or '?'}): {here_too}")
        if theirs.dirty_count > len(theirs.dirty):
            lines.append(f"  - … and {theirs.dirty_count - len(theirs.dirty)} more")
    else:
        lines.append(f"- {machine}'s working tree was clean")
    return "\n".join(lines)


# --- the automatic push after a Stop hook --------------------------------------------------------


def auto_push_remote(root: Path) -> str | None:
    """The remote to push to after a checkpoint, when the clone's own git config opted in."""
    config = local_config(root)
    if not _is_true(config.get("baker.autopush")):
        return None
    return config.get("baker.remote") or default_remote(root)


def spawn_auto_push(root: Path) -> bool:
    """Start the push in a detached process when opted in; never waits for it."""
    remote = auto_push_remote(root)
    if remote is None:
        return False
    import subprocess  # only now: every Stop hook comes here, few are opted in
    import sys

    subprocess.Popen(
        [sys.executable, "-m", "continuity_core.machines", "auto-push", str(root), remote],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        env=_env(_remote_env(interactive=False)),
    )
    return True


def auto_push(root: Path, remote: str) -> int:
    """The detached push: bounded to AUTO_PUSH_TIMEOUT_S, failures logged for `baker audit`."""
    import signal
    import time

    from continuity_core.store import Store

    store = Store(root)
    start = time.monotonic()

    def give_up(signum: int, frame: object) -> None:
        raise TimeoutError(f"gave up after {AUTO_PUSH_TIMEOUT_S}s")

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, give_up)
        signal.alarm(AUTO_PUSH_TIMEOUT_S)
    try:
        result = push(root, remote, interactive=False, timeout=AUTO_PUSH_TIMEOUT_S - 5)
    except (Exception, TimeoutError) as e:
        store.log(
            "push_failed", command="push", remote=remote, error=f"{type(e).__name__}: {e}"[:500]
        )
        return 1
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    store.log(
        "pushed",
        remote=remote,
        ref=result.ref,
        commit=result.commit,
        changed=result.changed,
        ms=int((time.monotonic() - start) * 1000),
    )
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "auto-push":
        return auto_push(Path(argv[1]), argv[2])
    return 2


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
