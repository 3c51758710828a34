"""What adapter authors share: account folders, the CLI version and its check, hook commands,
MCP registration, and the commands and sub-agents a Session records.

Everything here is vendor-neutral; an adapter passes in its own program name and versions.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from typing import TYPE_CHECKING, ClassVar

from msgspec import Struct, structs

from continuity_core.adapters.protocol import Change, Finding

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from os import PathLike
    from pathlib import Path
    from typing import Any, Literal

    from continuity_core.adapters.protocol import (
        Account,
        Checks,
        Discovery,
        HookHalf,
        Installer,
        LaunchOptions,
        SessionRecords,
        UserOptions,
    )
    from continuity_core.brief import Prompt
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.hook import HookEvent
    from continuity_core.schemas.session import (
        CommandRun,
        Session,
        SessionRef,
        SubagentResult,
        TodoStatus,
    )
    from continuity_core.transcript import Cursor

# A first prompt larger than this travels through a file the agent is told to read: argv and
# environment together must stay well under Linux's ARG_MAX per string (128 KiB), and far
# under Windows' 32 KiB command line.
INLINE_PROMPT_MAX = 24_000
# `<cli> --version` of every adapter gets this long (Node CLIs can take seconds to start cold).
CLI_VERSION_TIMEOUT_S = 15.0
_VERSION = r"\d+(?:\.\d+)+\S*"  # these compile where first used (`re` keeps them)
_NUMBER = r"\d+"
_PLAIN_ID = r"[0-9A-Za-z-]{8,64}"


def expand(path: str) -> str:
    """An account folder as the user wrote it (`~/x`), absolute."""
    return os.path.abspath(os.path.expanduser(path))


def unique_accounts(found: Sequence[Account], config: GlobalConfig) -> list[Account]:
    """`found` without repeats of one folder (by its real path), in order. A folder listed
    twice keeps its first place but the name the user gave it in config.toml: a `work`
    account that is also `CLAUDE_CONFIG_DIR` or a `[transcripts]` entry is shown as `work`,
    where sessions, limits and briefs name it."""
    out: dict[str, Account] = {}  # by real path; a replaced value keeps its place
    for acc in found:
        key = os.path.realpath(acc.dir)
        if key not in out:
            out[key] = acc
        elif acc.name in config.accounts and out[key].name not in config.accounts:
            out[key] = structs.replace(out[key], name=acc.name)
    return list(out.values())


def cli_version(
    program: str, *, env: Mapping[str, str] | None = None, timeout_s: float = CLI_VERSION_TIMEOUT_S
) -> str | None:
    """`<program> --version`'s first version number ("2.1.197"), or None when the program is
    not on PATH, fails or prints none within `timeout_s`."""
    import shutil
    import subprocess

    exe = shutil.which(program)
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            env={**os.environ, **env} if env else None,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(_VERSION, out)
    return m.group(0) if m else None


def plain_id(text: str) -> bool:
    """8 to 64 ASCII letters, digits and dashes: a session id as the
    agents make them (a UUID), and all a file name or lookup built from one may hold."""
    return re.fullmatch(_PLAIN_ID, text) is not None


def read_head(path: str, size: int) -> bytes:
    """The first `size` bytes of a regular file; b"" for anything else, which is never read (a
    FIFO named like a session file would block a scan, a hook's included). OSError when it
    cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)


def version_finding(
    display_name: str, version: str | None, known: Sequence[str], *, program: str, fix: str
) -> Finding:
    """The `baker doctor` line for the installed CLI's version: one rule for every adapter.
    Newer than every known version (major, minor, patch compared as numbers: "2.1.197-beta"
    is 2.1.197) warns; otherwise an unknown version is older."""
    if version is None:
        return Finding(level="info", message=f"`{program}` is not on PATH")
    if version in known:
        return Finding(level="ok", message=f"{display_name} {version}")

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(_NUMBER, v)[:3])

    if all(key(version) > key(k) for k in known):
        return Finding(
            level="warn",
            message=(
                f"{display_name} {version} is newer than the formats this adapter knows "
                f"({', '.join(known)}); transcripts may read incompletely"
            ),
            fix=fix,
        )
    return Finding(
        level="info",
        message=(
            f"{display_name} {version} is older than {known[-1]}, the version this adapter was "
            "built on"
        ),
    )


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in a settings file; {} when it is missing, unreadable or not an object
    (an adapter reading the agent's settings never fails on them)."""
    import json

    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def hook_events(settings: Mapping[str, Any], is_ours: Callable[[Any], bool]) -> set[str]:
    """The events under an agent's JSON settings' `hooks` with a group holding a hook of ours."""
    hooks = settings.get("hooks")
    return {
        event
        for event, groups in (hooks.items() if isinstance(hooks, dict) else ())
        for group in (groups if isinstance(groups, list) else ())
        if isinstance(group, dict)
        and isinstance(group.get("hooks"), list)
        and any(is_ours(h) for h in group["hooks"])
    }


def hook_command(*argv: str) -> str:
    """A shell hook command running `baker ARGV…` that does nothing, successfully, where baker
    is not installed (a teammate without it sees no failed hook)."""
    return f"command -v baker >/dev/null 2>&1 && baker {' '.join(argv)} || true"


def edit_settings_file(
    path: Path,
    root: Path | None,
    edit: Callable[[str | None], str | None],
    *,
    adding: bool,
    dry_run: bool,
    note: str = "",
    prune: bool = False,
    refused: Literal["failed", "skipped"] = "failed",
    mode: int = 0o644,
) -> Change:
    """Put baker's hooks in (`adding`) or take them out of an agent's JSON settings file.

    `edit(text)` (None: no file) returns the new text, None for no change, or raises ValueError
    for a file baker must not rewrite (reported as `refused`, the file untouched). `root` is the
    project for a project-level file (a link out of it is refused), None for a user-level one
    (written through a link to its target): see `continuity_core.agentfiles`. A file left as
    `{}` by a removal is deleted when baker created it (with `prune`, the folders left empty
    too, up to `root`), restored when baker found it empty, kept otherwise. `note` goes with an
    addition; `mode` is a new file's.

    Several removals from one file go in one `edit`: the file's fate is judged on the text
    this call ends with, and a dry run writes nothing a second call could read, so two calls
    would judge the second on the file as it was and say "updated" where the real run
    deletes it.
    """
    from continuity_core import agentfiles
    from continuity_core.fs import atomic_write

    shown = (
        str(path.relative_to(root)) if root is not None and path.is_relative_to(root) else str(path)
    )
    try:
        target = agentfiles.resolve(path, root)
        try:
            old: str | None = target.path.read_bytes().decode()  # no newline translation
        except FileNotFoundError:
            old = None
        except UnicodeDecodeError as e:
            raise ValueError(f"{path} is not UTF-8: {e}") from None
        new = edit(old)
        if new is None:
            return Change(path=shown, action="unchanged")
        agentfiles.check_writable(target.path)
        said, gone = "", False
        if not adding and agentfiles.is_empty_settings(new):
            # Nothing but our hooks was in it: no file if baker made it, else as baker found it.
            kept, said = agentfiles.restore_empty(target.path, new, dry_run=dry_run)
            new, gone = ("", True) if kept is None else (kept, False)
        detail = "; ".join(d for d in (note if adding else said, target.via) if d)
        if gone:
            if not dry_run:
                remove_emptied(target.path, root.resolve() if root is not None and prune else None)
            return Change(path=shown, action="removed", detail=detail)
        if not dry_run:
            if adding:
                agentfiles.remember_before(target.path, old)
            target.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target.path, new, mode=mode)
    except agentfiles.Refused as e:
        return Change(path=shown, action="failed", detail=str(e))
    except ValueError as e:  # not UTF-8, or `edit` refused it
        return Change(path=shown, action=refused, detail=str(e))
    except OSError as e:
        return Change(path=shown, action="failed", detail=e.strerror or str(e))
    return Change(path=shown, action="created" if old is None else "updated", detail=detail)


def remove_emptied(path: Path, top: Path | None) -> None:
    """Delete a file baker made and emptied, and the folders it leaves empty below `top`
    (`.github/hooks/`, `.github/`; none without `top`): a folder holding anything stays."""
    path.unlink()
    if top is None:
        return
    for folder in path.parents:
        if folder == top or not folder.is_relative_to(top):
            break
        try:
            folder.rmdir()
        except OSError:  # not empty
            break


MCP_NAME = "baker"
# Guarded like the hooks: where baker is not installed the server exits at once, quietly.
MCP_SERVER: dict[str, Any] = {
    "command": "sh",
    "args": ["-c", "command -v baker >/dev/null 2>&1 && exec baker mcp"],
}


def is_our_mcp(entry: object) -> bool:
    """Whether an MCP server entry runs `baker mcp` (ours, whatever an older version wrote)."""
    if not isinstance(entry, dict):
        return False
    argv = [entry.get("command"), *(entry.get("args") or [])]
    return "baker mcp" in " ".join(a for a in argv if isinstance(a, str))


class ArchiveKeys(Struct, frozen=True):
    """An agent's own JSON keys beside the archive's common ones: string leaves under `text`
    are indexed, subtrees under `skip` never are (ids, injected instructions)."""

    text: frozenset[str] = frozenset()
    skip: frozenset[str] = frozenset()


class ModuleAdapter:
    """A base for an adapter class wired from its package's modules (mypy checks each module
    against its Protocol): `accounts`, `discover` and `all_sessions` are `found_by`'s (the
    discovery module, which the hooks need anyway); `parse_hook` and `render_context` are
    `hooks_by`'s; `doctor` and `cli_version` are those of the module `checks()` imports on
    first use (hooks never load the doctor), the four install methods those of the module
    `installer()` imports likewise; `archive_text` reads the archive's common keys
    plus `archive_keys` (docs/adapters.md; every bundled adapter derives from it)."""

    # Sessions are JSONL files of their own unless an adapter says otherwise (OpenCode's rows).
    session_records: SessionRecords | None = None
    found_by: ClassVar[Discovery]
    hooks_by: ClassVar[HookHalf]
    archive_keys: ClassVar[ArchiveKeys] = ArchiveKeys()

    def checks(self) -> Checks:
        raise NotImplementedError(f"{type(self).__name__} names no doctor module")

    def installer(self) -> Installer:
        raise NotImplementedError(f"{type(self).__name__} names no install module")

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        return self.installer().install(project, local=local, dry_run=dry_run)

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        return self.installer().uninstall(project, dry_run=dry_run)

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        return self.installer().install_user(account, options)

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        return self.installer().install_mcp(project, remove=remove, dry_run=dry_run)

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return self.found_by.accounts(config)

    def discover(
        self, project: str | PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        return self.found_by.discover(project, accounts)

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return self.found_by.all_sessions(accounts)

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        return self.checks().doctor(project, accounts)

    def cli_version(self) -> str | None:
        return self.checks().cli_version()

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        return self.hooks_by.parse_hook(payload, argv)

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return self.hooks_by.render_context(event, text)

    def archive_text(self, record: object) -> list[str]:
        """The strings of one decoded transcript record that the recall archive indexes."""
        from continuity_core.archive.extraction import strings

        return strings(record, *self._archive_keys)

    @functools.cached_property
    def _archive_keys(self) -> tuple[frozenset[str], frozenset[str]]:
        from continuity_core.archive.extraction import SKIP_KEYS, TEXT_KEYS

        keys = self.archive_keys
        return TEXT_KEYS | keys.text, SKIP_KEYS | keys.skip


def brief_prompt(brief: Path, options: LaunchOptions, agent: str) -> tuple[Prompt, str]:
    """The first prompt of `agent` started with `options.brief`, saved in `brief`, and the
    note `baker resume` shows about it. Every adapter's launch uses this one: a brief under
    `INLINE_PROMPT_MAX` bytes goes inline whole, a larger one as its essentials."""
    from continuity_core.brief import Brief, Prompt, essentials, render

    built = options.brief or Brief(created_at="", project="")
    text = render(built)
    size = len(text.encode())
    if size < INLINE_PROMPT_MAX:
        return Prompt(text=text, whole=True), "the brief is the first prompt"
    first = essentials(built, brief.resolve(), size, INLINE_PROMPT_MAX)
    note = f"the brief's essentials are the first prompt; {agent} is told to read the rest in "
    return Prompt(text=first, whole=False), f"{note}{brief}"


def copy_side(path: Path, read: Callable[[SessionRef], Cursor[Any]]) -> str:
    """ "3 request(s), last at …, 41,528 bytes": one copy of a session's file, read by `read`,
    for `baker resume --native`'s refusal to overwrite (unreadable: its size alone)."""
    from continuity_core.schemas.session import SessionRef

    st = path.stat()
    ref = SessionRef(agent="", account="", session_id=path.stem, path=str(path), mtime=0)
    try:
        session = read(ref).session
    except Exception:
        return f"{st.st_size:,} bytes"
    last = session.updated_at or "?"
    return f"{len(session.requests)} request(s), last at {last}, {st.st_size:,} bytes"


# --- commands and sub-agents: every adapter fills `Session.commands` / `.subagents` alike ----

# A todo's status as the agents write it, aliases included, as a TodoItem holds it.
TODO_STATUS: dict[str, TodoStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "cancelled",
    "done": "completed",
    "canceled": "cancelled",
}
COMMAND_CHARS = 300  # of a command kept (one line)
ERROR_CHARS = 120  # of a failed command's error line kept
SUBAGENT_TASK_CHARS = 200
SUBAGENT_RESULT_LINES = 6
SUBAGENT_RESULT_CHARS = 600

# Lines that never say what went wrong: banners, a test runner's headers and summaries, stack
# frames, the agents' own wrappers around the output.
_NOISE = (
    r"[\W_]*"  # blank, or punctuation only (a rule of === or ---)
    r"|[=*#~-]{3,}.*"  # a banner: "===== test session starts ====="
    r"|.*[=*#~-]{3,}"
    r"|(?:platform|rootdir|cachedir|configfile|plugins|collected|collecting|testpaths)\b.*"
    # the agents' wrappers: Claude's "Exit code 1", Codex's header, Gemini's fields and tags
    r"|exit code:? -?\d+|process exited with code -?\d+"
    r"|(?:command|wall time|directory|signal|error group|background pids|process group pgid|"
    r"chunk id|original token count|output):.*"
    r"|error: \(none\)|\(empty\)|</?untrusted_context>"
    r"|traceback \(most recent call last\):?"
    r"|file \".*\", line \d+.*"  # a Python frame
    r"|at .+[:(].*\d+\)?"  # a JavaScript / Java frame
    r"|[\w./\\-]+\.\w+:\d+:(?: in \S+)?"  # "tests/test_a.py:12: in test_x" / "a.py:3:"
    r"|\d+ (?:passed|failed|errors?|skipped|deselected|tests?)\b.*"  # a runner's tally
    r"|(?:ran|running) \d+ tests?\b.*"
    r"|>\s.*"  # pytest's pointer at the failing source line; npm's "> pkg@1.0.0 test"
    r"|\^+|~+"  # a caret under a source line
)
# What names the failure outright, the line to prefer: an exception ("AssertionError: …",
# not the source line quoted above it), pytest's `E` lines, an `error:`/`fatal:` message.
_ERROR = (
    r"(?:E\s+)?(?:[\w.]*\.)?[A-Z]\w*(?:Error|Exception|Failure|Exit)\b(?:\s*[:\[(].*|\s*)"
    r"|E\s{2,}\S.*"
    r"|(?:FAILED|FAIL|ERROR|error|fatal|panic|npm ERR!|Error)\b.*"
    r"|[\w./-]+: (?:error|fatal|ERROR|FATAL)\b.*"  # "psql: error: …", "make: *** … Error 2"
)
# What may name it: words a failure message holds.
_FAILURE = (
    r".*\b(?:error|errors|failed|failure|not found|no such file|cannot|can't|denied|refused|"
    r"undefined|unknown|invalid|missing|timed out|assert(?:ion)?)\b.*"
)


def error_line(output: str) -> str:
    """The one line of a failed command's output that says what went wrong: the first line
    naming an error (an exception, pytest's `E` line, `error:`/`fatal:`), else the first with
    a failure's words ("failed", "not found", "denied"…), else the first line that is not a
    blank line, a banner, a test runner's header or tally, a stack frame or the agent's own
    wrapper (`Exit code 1`); at most `ERROR_CHARS` characters, unredacted. "" for none.
    """
    noise = re.compile(_NOISE, re.IGNORECASE)
    error = re.compile(_ERROR)
    failure = re.compile(_FAILURE, re.IGNORECASE)
    found = ["", "", ""]  # the first error line, failure line, other line
    for raw in output.splitlines()[:400]:
        line = raw.strip()
        if line.startswith("Output: "):  # Gemini CLI's wrapper, on the output's first line
            line = line[8:].strip()
        if noise.fullmatch(line):
            continue
        if error.fullmatch(line):
            found[0] = line
            break
        if failure.fullmatch(line):
            found[1] = found[1] or line
        found[2] = found[2] or line
    first = found[0] or found[1] or found[2]
    if first.startswith("E ") and len(first) > 2:  # pytest's gutter
        first = first[1:].strip()
    first = " ".join(first.split())
    return first if len(first) <= ERROR_CHARS else first[: ERROR_CHARS - 1] + "…"


def exit_code_after(text: str, *prefixes: str, head: int = 400) -> int | None:
    """The integer after the first of `prefixes` that starts a line of `text`'s first `head`
    characters ("Exit code 1", "Process exited with code 0"); None when there is none."""
    for prefix in prefixes:
        m = re.search(rf"^{re.escape(prefix)}[^\S\n]*(-?\d+)[^\S\n]*$", text[:head], re.MULTILINE)
        if m:
            return int(m.group(1))
    return None


def first_lines(text: str) -> str:
    """The first `SUBAGENT_RESULT_LINES` non-blank lines of `text`, at most
    `SUBAGENT_RESULT_CHARS` characters, "…" where cut."""
    kept = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    out = "\n".join(kept[:SUBAGENT_RESULT_LINES])
    cut = len(kept) > SUBAGENT_RESULT_LINES
    if len(out) > SUBAGENT_RESULT_CHARS:
        out, cut = out[: SUBAGENT_RESULT_CHARS - 1].rstrip(), True
    return out + " …" if cut else out


def add_command(
    session: Session,
    command: str,
    *,
    exit_code: int | None = None,
    failed: bool | None = None,
    output: str = "",
    timestamp: str | None = None,
) -> CommandRun:
    """One finished run of a shell command into `session.commands`.

    `exit_code` is the status the agent's tool wrote around the output (None: none written);
    `failed` the agent's own failed/ok signal where there is no exit status (None: unknown).
    A non-zero `exit_code` is a failure and 0 a success whatever `failed` says. A failed run's
    error line is picked from `output` (`error_line`); never is an outcome guessed from it.
    The command and the error line are redacted here. A run with the same command and outcome
    (exit code, failed, error line) as that command's newest record counts into it and moves
    it to the end; another outcome is a record of its own. Past `limits.COMMANDS` records the
    oldest that did not fail goes first. Returns the record the run went into.
    """
    from continuity_core.redact import one_line, redact
    from continuity_core.schemas.session import CommandRun, limits

    if exit_code is not None:
        failed = exit_code != 0
    text = redact(one_line(command, COMMAND_CHARS))
    error = redact(error_line(output)) if failed and output else ""
    session.commands_total += 1
    runs = session.commands
    i = next((i for i in range(len(runs) - 1, -1, -1) if runs[i].command == text), -1)
    if i >= 0 and (runs[i].exit_code, runs[i].failed, runs[i].error) == (exit_code, failed, error):
        run = runs.pop(i)
        run.count += 1
        run.timestamp = timestamp or run.timestamp
        runs.append(run)
        return run
    run = CommandRun(
        command=text, exit_code=exit_code, failed=failed, error=error, timestamp=timestamp
    )
    runs.append(run)
    if len(runs) > limits.COMMANDS:
        drop = next((j for j, r in enumerate(runs) if not r.failed), 0)
        del runs[drop]
    return run


def add_subagent(
    session: Session,
    task: str,
    *,
    id: str | None = None,
    result: str | None = None,
    timestamp: str | None = None,
) -> SubagentResult:
    """A sub-agent started (`result` None) or finished, into `session.subagents`.

    A record with the same `id` is updated (a result arriving later, as a background
    sub-agent's does); an empty `task` then keeps the one it had. The task is kept to one line
    of `SUBAGENT_TASK_CHARS`, the result to its first lines (`first_lines`); both redacted.
    Past `limits.SUBAGENTS` the oldest goes.
    """
    from continuity_core.redact import one_line, redact
    from continuity_core.schemas.session import SubagentResult, limits

    kept = redact(first_lines(result)) if result is not None else None
    line = redact(one_line(task, SUBAGENT_TASK_CHARS)) if task.strip() else ""
    same = next((s for s in session.subagents if s.id == id), None) if id is not None else None
    if same is not None:
        same.task = line or same.task
        same.result = same.result if kept is None else kept
        same.timestamp = same.timestamp or timestamp
        return same
    sub = SubagentResult(task=line, result=kept, id=id, timestamp=timestamp)
    session.subagents.append(sub)
    del session.subagents[: -limits.SUBAGENTS]
    return sub
