"""Continuity across machines, through the repository's own git remote: the transport.

`push` writes a snapshot of this project's continuity state (the brief as it would be printed
now, the newest checkpoint, the note, the traps, the saved checkpoints' index, the limit
ledger's entries) as a commit on `refs/baker/<machine>`, whose parent is the previous snapshot
of that machine, and pushes that one ref. It is built with git plumbing only (`hash-object -w`,
`mktree`, `commit-tree`, `update-ref`): the index, the worktree and the branches are never
touched. Transcripts never travel, and a note, trap or checkpoint holding anything the secret
scan knows is refused whole: nothing is redacted and pushed anyway.

`pull` fetches every other machine's `refs/baker/*` and writes `.baker/machines.json`, the
small file the pickup and pretool hooks read (never git at hook time), through
`continuity_core.snapshots`, which reads what other machines pushed as hostile data. The
opt-in for the automatic push after a Stop hook lives in the clone's own git config
(`baker.remote`, `baker.autoPush`), never in a file a clone could bring. Only git talks to the
remote. The Stop hook imports this module only when the clone opted in.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from continuity_core.errors import BakerError
from continuity_core.git import GIT_TIMEOUT_S, GitError, local_config_may_name, run, run_env
from continuity_core.redact import one_line, redact, scan  # loaded with `snapshots` anyway
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.snapshots import (
    BRIEF_JSON,
    BRIEF_MD,
    CHECKPOINT_JSON,
    LIMITS_JSON,
    LINE_MAX,
    NOTE_MD,
    REF_PREFIX,
    SAVED_JSON,
    SNAPSHOT_JSON,
    SNAPSHOT_MAX,
    TRAPS_JSONL,
    MachineInfo,
    MachinesFile,
    Snapshot,
    _rev,
    cat_plain,
    clean_trap,
    ref_for,
    snapshots,
    validate_machine,
)
from continuity_core.stamps import now_iso
from continuity_core.store import MACHINES_FILE, Store  # machines.json: written by `pull`

if TYPE_CHECKING:
    from continuity_core.schemas.trap import Trap
    from continuity_core.trust import StrPath

AUTO_PUSH_TIMEOUT_S = 60
TRAPS_PER_MACHINE = 200  # the newest of another machine's traps that reach the hooks here
MACHINES_MAX = 50  # the newest machines that machines.json keeps


class SecretFound(BakerError):
    """The state holds a secret: nothing was written, no ref moved."""


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
    refused: list[str] = msgspec.field(default_factory=list)  # refs not read, and why


# --- names and git ------------------------------------------------------------------------------


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


def local_config(root: StrPath) -> dict[str, str]:
    """`baker.*` keys of the clone's own git config (`--local`: never the global or system
    files, never an include, never anything a clone could bring)."""
    if not local_config_may_name(root, b"baker"):  # no baker.* key there: no git call
        return {}
    out = run(root, "config", "--local", "--get-regexp", r"^baker\.", check=False)
    lines = (line.partition(" ") for line in out.splitlines())
    return {key.lower(): value.strip() for key, _, value in lines}


def default_remote(root: StrPath) -> str:
    """`baker.remote`, else the current branch's upstream remote, else `origin`."""
    configured = local_config(root).get("baker.remote")
    if configured:
        return check_remote(configured)
    branch = run(root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    if branch:
        upstream = run(root, "config", "--get", f"branch.{branch}.remote", check=False).strip()
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
    from continuity_core import handoff, limits, saved
    from continuity_core.note import NOTE_PATH
    from continuity_core.traps import traps_path

    store = Store(root)
    files: dict[str, bytes] = {}
    # What was written on purpose or by the hooks, as written: scanned, never redacted here.
    raw = {NOTE_MD: root / NOTE_PATH, TRAPS_JSONL: Path(traps_path(root))}
    newest = store.checkpoint_paths()[:1]
    if newest:
        raw[CHECKPOINT_JSON] = newest[0]
    shown = {name: path.relative_to(root).as_posix() for name, path in raw.items()}
    for name, path in raw.items():
        try:
            files[name] = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
    _refuse_secrets(files, shown)  # before the brief is even built
    made = handoff.make(root)
    files[BRIEF_MD] = brief_mod.render(made.brief).encode()
    # No time in the tree: a tree changes when the state does, so an unchanged push is a no-op.
    files[BRIEF_JSON] = _pretty(msgspec.structs.replace(made.brief, created_at=""))
    # The saved checkpoints' index (never their text), and the accounts still limited: a
    # usage limit belongs to the account, not to the machine, so another machine that uses the
    # same account should know. Never an account's folder (a path here) nor the agent's message.
    indexes: dict[str, tuple[list[Any], tuple[str, ...]]] = {
        SAVED_JSON: (saved.list_saved(root), ("id", "time", "agent", "latest", "bytes")),
        LIMITS_JSON: (limits.read(), ("agent", "account", "since", "until", "kind", "source")),
    }
    for name, (items, kept) in indexes.items():
        if items:  # none saved, none limited: no file
            files[name] = _pretty([{key: getattr(i, key) for key in kept} for i in items])
    cp = store.latest_checkpoint() if store.exists else None
    brief = made.brief
    session = cp.session if cp and cp.session else made.session
    snap = Snapshot(
        machine=machine,
        agent=cp.agent if cp else None,
        event=cp.event if cp else None,
        checkpoint=cp.id if cp else None,
        checkpoint_at=cp.created_at if cp else None,
        session=session.session_id if session else None,
        ended_on_limit=brief.ended_on_limit,
        reset_at=brief.reset_at,
        latest_request=one_line(redact(brief.latest_request or ""), LINE_MAX) or None,
        git=_snapshot_git(root),
        files=sorted([*files, SNAPSHOT_JSON]),
    )
    files[SNAPSHOT_JSON] = _pretty(snap)
    _refuse_secrets(files, shown)  # what was derived is redacted; checked all the same
    return files


def _pretty(value: object) -> bytes:
    """A snapshot's JSON file: indented, so `git show` reads it."""
    return msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"


def _refuse_secrets(files: dict[str, bytes], labels: dict[str, str]) -> None:
    findings = [
        (labels.get(name, name), kinds)
        for name, data in sorted(files.items())
        if (kinds := scan(data.decode("utf-8", "replace")))
    ]
    if findings:
        what = "; ".join(f"{label} holds {', '.join(kinds)}" for label, kinds in findings)
        raise SecretFound(
            f"refusing to push: {what} (the secret scan's kinds; no value shown). Nothing was "
            "written and no ref moved: remove it (edit the note, `baker trap rm ID`, or let "
            "the next checkpoint replace the old one) and push again"
        )


def _snapshot_git(root: Path) -> GitFacts:
    from continuity_core.project import repo_facts  # the user's work, by the brief's rule

    facts = repo_facts(root, worktrees=False)
    facts.root = None  # where the clone lies on this machine means nothing on another
    return facts


def _message(machine: str, snap: Snapshot) -> str:
    """`laptop · 2026-12-01T14:02:00Z · claude · limit` and the latest request."""
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
        sha = run(root, "hash-object", "-w", "--stdin", input=files[name]).strip()
        entries.append(f"100644 blob {sha}\t{name}\n")
    tree = run(root, "mktree", input="".join(entries).encode()).strip()
    parent = _rev(root, ref + "^{commit}")
    if parent is not None and _rev(root, parent + "^{tree}") == tree:
        return parent, False
    snap = msgspec.json.decode(files[SNAPSHOT_JSON], type=Snapshot)
    name, email = f"baker ({machine})", "baker@localhost"
    identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email}
    identity |= {"GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    commit = run(root, *args, input=_message(machine, snap).encode(), env=identity).strip()
    # The old value guards against a concurrent push of the same machine moving it meanwhile.
    run(root, "update-ref", "-m", "baker push", ref, commit, parent or "0" * 40)
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
    timeout: float = GIT_TIMEOUT_S,
) -> PushResult:
    """Snapshot this project on `refs/baker/<machine>` and push that ref (or delete it)."""
    remote = _remote(root, remote)
    machine = machine_name()
    ref = ref_for(machine)
    env = _remote_env(interactive)
    result = PushResult(machine=machine, remote=remote, ref=ref)
    if delete:
        try:
            run(root, "push", "--quiet", remote, f":{ref}", env=env, timeout=timeout)
        except GitError as e:
            if "remote ref does not exist" not in str(e):
                raise
        old = _rev(root, ref)
        if old is not None:
            run(root, "update-ref", "-d", ref, old)
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
            said = run(
                root, "push", "--porcelain", remote, f"{ref}:{ref}", env=env, timeout=timeout
            )
        except GitError as e:
            # The remote is neither a configured name nor a repository.
            if "does not appear to be a git repository" in str(e) or "No such remote" in str(e):
                raise GitError(
                    f"{e}\nThe snapshot is kept here on {ref}; to push it, add the remote "
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


def _remote(root: Path, remote: str | None) -> str:
    """`remote` checked, else `default_remote`; BakerError outside a git repository."""
    if _rev(root, "HEAD") is None and not (root / ".git").exists():
        raise BakerError(f"{root} is not in a git repository: machines meet through its remote")
    return check_remote(remote) if remote else default_remote(root)


# --- pull, and what the hooks read ------------------------------------------------------------


def pull(root: Path, remote: str | None = None) -> PullResult:
    """Fetch every machine's snapshot ref (not this machine's own, not any branch), then
    rewrite `.baker/machines.json`."""
    remote = _remote(root, remote)
    run(
        root,
        "fetch",
        "--quiet",
        "--prune",
        "--no-write-fetch-head",
        "--no-tags",
        remote,
        f"+{REF_PREFIX}*:{REF_PREFIX}*",
        f"^{ref_for(machine_name())}",
    )
    refused: list[str] = []
    found = refresh(root, refused)
    return PullResult(
        remote=remote, machines=found.machines, traps=len(found.traps), refused=refused
    )


def refresh(root: Path, refused: list[str]) -> MachinesFile:
    """Rewrite `.baker/machines.json` from the refs: other machines and their traps, every
    string cleaned (`snapshots.clean_trap`), the file kept under `SNAPSHOT_MAX`; what is not
    read, and why, goes into `refused`."""
    from continuity_core.traps import WHY_MAX, parse_lines

    found = snapshots(root, exclude=machine_name(), refused=refused)[:MACHINES_MAX]
    traps_blobs = cat_plain(root, [(m.commit, TRAPS_JSONL) for m in found])
    traps: list[Trap] = []
    for info, data in zip(found, traps_blobs, strict=True):
        if data is not None and len(data) > SNAPSHOT_MAX:
            refused.append(
                f"{REF_PREFIX}{info.name} ({TRAPS_JSONL}) is {len(data) // 1024} KiB, over "
                f"the {SNAPSHOT_MAX // 1024} KiB a snapshot file may hold: its traps are not read"
            )
            continue
        # Whoever can push to the remote writes these: bounded, so the hooks stay fast.
        for trap in parse_lines(data or b"")[-TRAPS_PER_MACHINE:]:
            if len(trap.why) <= WHY_MAX and len(trap.pattern) <= WHY_MAX:
                traps.append(clean_trap(trap, info.name))
    result = MachinesFile(pulled_at=now_iso(), machines=found, traps=traps)
    encoded = msgspec.json.encode(result)
    while len(encoded) > SNAPSHOT_MAX and (result.traps or len(result.machines) > 1):
        cut = result.traps or result.machines  # the oldest machines' traps go first, then machines
        del cut[len(cut) // 2 :]
        encoded = msgspec.json.encode(result)
    store = Store(root)
    if store.exists:
        store.write_json(store.path(MACHINES_FILE), result)
    return result


# --- the automatic push after a Stop hook --------------------------------------------------------


def auto_push_remote(root: StrPath) -> str | None:
    """The remote to push to after a checkpoint, when the clone's own git config opted in."""
    config = local_config(root)
    if config.get("baker.autopush", "").lower() not in ("true", "yes", "on", "1"):
        return None
    return config.get("baker.remote") or default_remote(root)


def spawn_auto_push(root: StrPath) -> bool:
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
        env=run_env(_remote_env(interactive=False)),
    )
    return True


def auto_push(root: Path, remote: str) -> int:
    """The detached push: bounded to AUTO_PUSH_TIMEOUT_S, failures logged for `baker audit`."""
    import signal
    import time

    store = Store(root)
    start = time.monotonic()

    def give_up(signum: int, frame: object) -> None:
        raise TimeoutError(f"gave up after {AUTO_PUSH_TIMEOUT_S}s")

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, give_up)
        signal.alarm(AUTO_PUSH_TIMEOUT_S)
    try:
        result = push(root, remote, interactive=False, timeout=AUTO_PUSH_TIMEOUT_S - 5)
    except Exception as e:  # TimeoutError from the alarm included
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


if __name__ == "__main__":  # the detached auto-push: `auto-push ROOT REMOTE`
    import sys

    if len(sys.argv) != 4 or sys.argv[1] != "auto-push":
        sys.exit(2)
    sys.exit(auto_push(Path(sys.argv[2]), sys.argv[3]))
