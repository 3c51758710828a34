"""Environment facts, regenerated on every call: git, venv interpreters, job artifacts, shell
probes and plugin probes (GPU) from the `continuity_core.probes` entry point group.

Every entry is checked on its own: a malformed entry becomes an `error` result for that entry
and never hides the others. Everything runs concurrently within one total deadline; a check
that has not answered by then is reported as such, and its worker never holds up the exit.
"""

from __future__ import annotations

import os
import re
import stat
import time
from functools import partial

from continuity_core.adapters.registry import PROBE_GROUP
from continuity_core.fs import inside
from continuity_core.redact import redact
from continuity_core.stamps import now_iso
from continuity_core.store import STORE

TYPE_CHECKING = False
if TYPE_CHECKING:  # subprocess and signal load when a command runs, the schemas (and msgspec)
    import subprocess  # with the first check: a pickup with nothing but git to check loads none
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path
    from typing import Any, Protocol, TypeVar

    from continuity_core.git import Begun
    from continuity_core.schemas.probe import (
        Environment,
        ProbeContext,
        ProbeResult,
        ProbesConfig,
        ProbeState,
        Ran,
    )

    Result = dict[str, Any]  # a `ProbeResult`'s fields: what the checks here return
    T = TypeVar("T")
    P = TypeVar("P", str, Path)  # a folder as the caller names it
    StrPath = str | os.PathLike[str]

    class Probe(Protocol):  # for the type checker: `plugin` checks a probe's members itself
        """A plugin registered under `continuity_core.probes`."""

        name: str

        def run(self, ctx: ProbeContext) -> list[ProbeResult]:
            """Check the real thing and return one result per checked target."""


PROBES_FILE = "probes.json"
DEFAULT_DEADLINE_S = 15.0
SHELL_TIMEOUT_S = 10.0
INTERPRETER_TIMEOUT_S = 5.0
DETAIL_MAX = 300
_NAME = re.compile(r"^[\w.:@/+\-][\w .:@/+\-]{0,79}$")
NOT_INSTALLED = "GPU probes are not installed (pip install continuity-gpu-probes)"


def result(
    kind: str, name: str, state: ProbeState, detail: str, verdict: str | None = None, **more: Any
) -> Result:
    """One check's result as plain values, which `environment` makes a `ProbeResult`."""
    return dict(name=name, state=state, kind=kind, detail=detail, verdict=verdict, **more)


_gpu = partial(result, "gpu", "gpu")  # the GPU check's one result where no probe ran


# --- running things concurrently and with time limits ---------------------------------------


def run_all(tasks: Sequence[Callable[[], T]], deadline_s: float) -> list[T | BaseException | None]:
    """Run `tasks` in daemon threads (one stuck past the deadline keeps no hook process alive
    at exit); None for each one still running at the deadline."""
    import threading

    results: list[T | BaseException | None] = [None] * len(tasks)

    def work(i: int) -> None:
        try:
            results[i] = tasks[i]()
        except Exception as e:  # one check's failure is its own result
            results[i] = e

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(len(tasks))]
    for thread in threads:
        thread.start()
    end = time.monotonic() + deadline_s
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    return [None if t.is_alive() else r for t, r in zip(threads, results, strict=True)]


_RUNNING: set[subprocess.Popen[bytes]] = set()


def _kill_running() -> None:
    """At exit, the groups of commands still running: a worker thread cut off by the deadline
    (or a hook stopped by its own) must not leave them behind (docs/decisions.md, "No daemon")."""
    for proc in list(_RUNNING):
        _kill_group(proc)


def run_command(
    argv: Sequence[str] | str,
    *,
    cwd: StrPath,
    timeout_s: float,
    shell: bool = False,
) -> Ran:
    """Run a command in its own process group; on timeout kill the group, grandchildren too,
    and at exit whatever is still running."""
    import subprocess

    from continuity_core.schemas.probe import Ran

    start = time.monotonic()
    if not _RUNNING:
        import atexit

        atexit.unregister(_kill_running)
        atexit.register(_kill_running)
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        shell=shell,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    _RUNNING.add(proc)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        code = None
    finally:
        _RUNNING.discard(proc)
    return Ran(
        returncode=code,
        out=out.decode("utf-8", "replace"),
        err=err.decode("utf-8", "replace"),
        elapsed_s=time.monotonic() - start,
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()


def tail(text: str) -> str:
    """The last non-empty line of output, redacted and clipped: what a person reads first."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    last = redact(lines[-1]) if lines else ""
    return last if len(last) <= DETAIL_MAX else "…" + last[-(DETAIL_MAX - 1) :]


# --- probes.json -----------------------------------------------------------------------------


def read_config(root: StrPath) -> ProbesConfig:
    """`.baker/probes.json`, each top-level key validated on its own."""
    import msgspec

    from continuity_core import trust
    from continuity_core.schemas.probe import ProbesConfig

    path = os.path.join(root, STORE, PROBES_FILE)
    cfg = ProbesConfig()

    def bad(where: str, detail: str) -> ProbesConfig:
        cfg.errors.append(result("config", where, "error", detail))
        return cfg

    try:
        trust.check_store(root)  # a committed store's probes are never run
        # msgspec's DecodeError (a ValueError) says where a broken file broke.
        raw: Any = msgspec.json.decode(trust.read_bytes(path))
    except FileNotFoundError:
        return cfg
    except (OSError, trust.Untrusted, ValueError) as e:
        return bad(PROBES_FILE, f"unreadable or not JSON: {e}")
    if not isinstance(raw, dict):
        return bad(PROBES_FILE, "must be a JSON object with jobs/probes/gpu/venvs")
    for key in ("jobs", "probes", "venvs"):
        value = raw.get(key, [])
        if isinstance(value, list):
            setattr(cfg, key, value)
        else:
            bad(f"{PROBES_FILE}: {key}", "must be a list")
    gpu = raw.get("gpu")
    if gpu is not None and not isinstance(gpu, dict):
        bad(f"{PROBES_FILE}: gpu", "must be an object")
    elif isinstance(gpu, dict):
        cfg.gpu = gpu
    return cfg


def _entry_name(entry: Any, where: str) -> tuple[str, str | None]:
    """The entry's name, or its position and why the name is unusable."""
    if not isinstance(entry, dict):
        return where, "entry must be an object"
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return where, f"malformed name {redact(repr(name))[:60]}"
    return name, None


def _number(entry: Mapping[str, Any], key: str, default: float | None) -> float | None:
    value = entry.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"{key} must be a positive number of seconds")
    return float(value)


# --- the checks ------------------------------------------------------------------------------


def check_job(root: StrPath, entry: Any, index: int) -> Result:
    """A background job checked by its effect: its artifact exists, is fresh and readable."""
    name, problem = _entry_name(entry, f"jobs[{index}]")
    job = partial(result, "job", name)
    if problem:
        return job("error", problem)
    artifact = entry.get("artifact")
    if not isinstance(artifact, str) or not artifact.strip() or "\x00" in artifact:
        return job("error", "missing or invalid artifact path")
    try:
        max_age = _number(entry, "max_age_s", None)
    except ValueError as e:
        return job("error", str(e))
    path = os.path.join(root, os.path.expanduser(artifact))  # an absolute one stays itself
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return job("fail", f"{artifact}: missing", "missing")
    except OSError as e:
        return job("fail", f"{artifact}: {e.strerror}", "unreadable")
    age = time.time() - st.st_mtime
    try:
        if stat.S_ISDIR(st.st_mode):
            empty = not os.listdir(path)
        else:
            with open(path, "rb") as f:
                empty = not f.read(1)
    except OSError as e:
        return job("fail", f"{artifact}: unreadable ({e.strerror})", "unreadable")
    if max_age is not None and age > max_age:
        why = f"stale, last written {_ago(age)} ago (expected within {_ago(max_age)})"
        return job("warn", f"{artifact}: {why}", "stale")
    if empty:
        return job("warn", f"{artifact}: exists but is empty", "empty")
    return job("ok", f"{artifact}: written {_ago(age)} ago", "fresh")


def _ago(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 120:
        return f"{s}s"
    if s < 7200:
        return f"{s // 60}m"
    if s < 172800:
        return f"{s // 3600}h"
    return f"{s // 86400}d"


def check_shell(root: StrPath, entry: Any, index: int, limit_s: float) -> Result:
    """A custom shell probe: the user's command, with its own timeout, in the project root."""
    name, problem = _entry_name(entry, f"probes[{index}]")
    shell = partial(result, "shell", name)
    if problem:
        return shell("error", problem)
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        return shell("error", "missing command")
    try:
        timeout = _number(entry, "timeout_s", SHELL_TIMEOUT_S) or SHELL_TIMEOUT_S
    except ValueError as e:
        return shell("error", str(e))
    timeout = min(timeout, limit_s)
    try:
        # The user's own probe command from their project's probes.json: a shell line.
        ran = run_command(command, cwd=root, timeout_s=timeout, shell=True)  # noqa: S604 - above
    except OSError as e:
        return shell("error", f"cannot run: {e}")
    ran_for = partial(shell, elapsed_s=round(ran.elapsed_s, 3))
    if ran.returncode is None:
        return ran_for("timeout", f"no answer within {timeout:g}s (killed)")
    out = tail(ran.out) or tail(ran.err)
    if ran.returncode == 0:
        return ran_for("ok", out)
    return ran_for("fail", f"exit {ran.returncode}" + (f": {out}" if out else ""))


def venv_dirs(root: StrPath, extra: Sequence[Any] = ()) -> list[tuple[str, str]]:
    """Project virtual environments: folders holding `pyvenv.cfg` at the root or one level
    below, plus the folders probes.json names under `venvs` (label, path)."""
    found: dict[str, str] = {}
    try:
        with os.scandir(root) as entries:
            children = sorted(e.path for e in entries if e.name != ".git" and e.is_dir())
    except OSError:
        children = []
    for child in children:
        if os.path.isfile(os.path.join(child, "pyvenv.cfg")):
            found.setdefault(child, os.path.basename(child))
    for value in extra:
        if isinstance(value, str) and value.strip() and "\x00" not in value:
            from pathlib import PurePosixPath  # only for named venvs: pathlib imports urllib

            path = str(PurePosixPath(root, os.path.expanduser(value)))  # `..` kept
            found.setdefault(path, value)
    return [(label, path) for path, label in found.items()]


def tracked_by_git(root: StrPath, folders: Sequence[P], timeout_s: float = 5.0) -> set[P]:
    """The `folders` (inside `root`) that hold at least one file git tracks: they came with the
    repository. One `git ls-files` call for all; none when `root` is not in a git work tree
    (then `check_interpreter` still runs nothing that lies inside the project)."""
    from continuity_core import trust

    rels = {f: os.path.relpath(f, root).replace(os.sep, "/") for f in folders}
    if not rels:
        return set()
    listed = trust.ls_files(root, rels.values(), timeout_s) or []
    return {
        f for f, rel in rels.items() if any(p == rel or p.startswith(rel + "/") for p in listed)
    }


def interpreter_of(venv: str) -> str:
    windows = os.path.join(venv, "Scripts", "python.exe")
    if os.path.exists(windows) and not os.path.exists(os.path.join(venv, "bin")):
        return windows
    return os.path.join(venv, "bin", "python")


def check_interpreter(label: str, venv: str, *, root: StrPath, tracked: bool = False) -> Result:
    """Resolve a venv's interpreter and check it: a dangling link or a dead binary is reported.

    Nothing from the folder is executed (docs/decisions.md, "No program from the
    repository"): a venv folder outside `root` is refused, one git tracks is reported
    without being checked, and the others are only checked to exist and be executable:
    their `pyvenv.cfg` lies inside the project and its `home` would pick the code that runs
    (`refused`), whatever git says about the folder.
    """
    venv_is = partial(result, "venv", label)
    python = interpreter_of(os.path.abspath(venv))
    if not inside(root, venv):
        why = f"outside the project ({os.path.realpath(venv)}): refused, not run"
        return venv_is("error", f"{venv}: {why}", "outside")
    if tracked:
        why = "not run (a committed virtual environment is the repository's program, not yours)"
        return venv_is("warn", f"{venv}: tracked by git: {why}", "tracked")
    if not os.path.isdir(venv):
        return venv_is("fail", f"{venv}: no such folder", "missing")
    target = os.path.realpath(python)
    if not os.path.exists(python):
        why = f"links to missing {target}" if os.path.islink(python) else "missing"
        return venv_is("fail", f"{python}: {why}", "broken")
    shown = f"{python} -> {target}" if os.path.islink(python) else str(python)  # a copy: itself
    if os.path.isfile(target) and os.access(target, os.X_OK):
        why = refused(root, python) or "in the project"
        return venv_is("ok", f"{shown}: present; {why}, so not run", "present")
    return venv_is("fail", f"{shown}: not an executable file", "broken")


def refused(root: StrPath, python: StrPath) -> str | None:
    """Why `python` may not run for the project at `root`, or None: it lies inside the
    project (as named or once its links are followed), or the `pyvenv.cfg` Python reads
    beside it or one folder up does: that file's `home` picks the standard library, so
    the folder's own code would run whatever binary the link leads to."""
    path = os.path.abspath(os.path.join(root, os.path.expanduser(str(python))))
    real = os.path.realpath(path)
    if inside(root, path) or inside(root, real):
        return "it lies inside the project"
    for exe in dict.fromkeys((path, real)):
        for folder in (os.path.dirname(exe), os.path.dirname(os.path.dirname(exe))):
            cfg = os.path.join(folder, "pyvenv.cfg")
            if os.path.lexists(cfg) and (inside(root, cfg) or inside(root, os.path.realpath(cfg))):
                return f"its {cfg} lies inside the project"
    return None


# --- plugin probes ---------------------------------------------------------------------------


def plugin(name: str) -> Probe | None:
    """The probe registered as `name`, imported now; None when no package provides it.

    Loaded by the one plugin registry (`continuity_core.adapters.registry`); `BAKER_ADAPTERS`
    limits adapters, not probes. A plugin that fails to import, or is no `Probe`, raises
    AdapterError naming it.
    """
    from continuity_core.adapters.registry import load_plugin
    from continuity_core.errors import AdapterError

    obj = load_plugin(name, PROBE_GROUP)
    # What `isinstance` against a runtime-checkable Protocol checks: the members are there.
    if obj is None or (hasattr(obj, "name") and hasattr(obj, "run")):
        return obj
    raise AdapterError(f"probe {name!r} is not a Probe (it needs `name` and `run(ctx)`)")


def check_gpu(ctx: ProbeContext | None) -> list[ProbeResult] | list[Result]:
    """The GPU plugin's results; with no `gpu` section (`ctx` None) only whether the plugin
    is there, nothing run."""
    if ctx is None:
        from continuity_core.adapters.registry import registered

        if "gpu" in registered(PROBE_GROUP):
            why = 'not configured (add "gpu": {} to .baker/probes.json)'
            return [_gpu("skipped", why, "not configured")]
        return [_gpu("skipped", NOT_INSTALLED, "not installed")]
    try:
        probe = plugin("gpu")
    except Exception as e:  # a broken plugin is reported, never raised
        return [_gpu("error", f"the GPU probe failed to load: {e}")]
    if probe is None:
        return [_gpu("skipped", NOT_INSTALLED, "not installed")]
    return probe.run(ctx)


# --- the whole picture -----------------------------------------------------------------------


def environment(
    root: StrPath,
    *,
    deadline_s: float = DEFAULT_DEADLINE_S,
    begun: Begun | None = None,
) -> Environment:
    """Every fact about `root`'s environment, checked now, within `deadline_s` in total.
    `begun`: its git facts, begun earlier (`git.Begun`), so git worked meanwhile."""
    import msgspec

    from continuity_core.schemas.probe import Environment

    facts = _gather(root, read_config(root), deadline_s, begun=begun)
    return msgspec.convert(facts, Environment)


def summary(root: StrPath, *, deadline_s: float, begun: Begun | None = None) -> str:
    """What pickup shows: `render(environment(...), quiet=True)`; where there is no
    probes.json (git and the virtual environments found are all there is to check) from the
    plain values, with no `Environment` built and no msgspec loaded: SessionStart's budget
    (docs/decisions.md, "How the hooks stay fast")."""
    if os.path.lexists(os.path.join(root, STORE, PROBES_FILE)):
        return render(environment(root, deadline_s=deadline_s, begun=begun), quiet=True)
    return render(_gather(root, None, deadline_s, begun=begun), quiet=True)


def _gather(
    root: StrPath, cfg: ProbesConfig | None, deadline_s: float, *, begun: Begun | None
) -> dict[str, Any]:
    """`environment`'s facts as plain values (`Environment`'s fields); `cfg` None: no
    probes.json."""
    start = time.monotonic()
    root = os.path.abspath(root)
    limit = max(0.5, deadline_s - 0.25)  # leave a moment to collect and render
    tasks = _tasks(root, cfg, limit, begun=begun)
    env: dict[str, Any] = {"created_at": now_iso(), "project": root, "git": {}}
    env.update((kind, []) for kind in ("interpreters", "jobs", "probes", "gpu"))
    # Each task's result into `env`: a timeout or a failure as a result that says so.
    for (kind, name, _), done in zip(tasks, run_all([t for _, _, t in tasks], limit), strict=True):
        if kind == "git":
            env["git"] = done if isinstance(done, dict) else {}
            continue
        if done is None:
            state: ProbeState = "timeout"
            detail = f"no answer within the {deadline_s:g}s deadline"
        elif isinstance(done, BaseException):
            state, detail = "error", redact(f"{type(done).__name__}: {done}")
        else:
            env[kind].extend(done if isinstance(done, list) else [done])
            continue
        env[kind].append(result(kind.rstrip("s"), name, state, detail))
    env["probes"][:0] = cfg.errors if cfg is not None else []
    env["elapsed_s"] = round(time.monotonic() - start, 3)
    return env


def _tasks(
    root: str, cfg: ProbesConfig | None, limit: float, *, begun: Begun | None
) -> list[tuple[str, str, Callable[[], Any]]]:
    """What `environment` runs side by side: each task's kind (an `Environment` list, or
    "git"), its name and the task."""
    from continuity_core.project import repo_values  # without Continuity's own files

    # Ends before the tasks' deadline: a git still running (on a FIFO in `.git`) is killed.
    git = partial(repo_values, root, timeout=min(5.0, limit - 0.25), begun=begun)
    tasks: list[tuple[str, str, Callable[[], Any]]] = [("git", "git", git)]
    venvs = venv_dirs(root, cfg.venvs if cfg is not None else ())
    within = [p for _, p in venvs if inside(root, p)]
    tracked = tracked_by_git(root, within, timeout_s=min(INTERPRETER_TIMEOUT_S, limit))
    for label, path in venvs:
        check = partial(check_interpreter, label, path, root=root, tracked=path in tracked)
        tasks.append(("interpreters", label, check))
    if cfg is None:  # no probes.json (a pickup): git and the venvs found are all there is
        return tasks
    for i, entry in enumerate(cfg.jobs):
        name = _entry_name(entry, f"jobs[{i}]")[0]
        tasks.append(("jobs", name, partial(check_job, root, entry, i)))
    for i, entry in enumerate(cfg.probes):
        name = _entry_name(entry, f"probes[{i}]")[0]
        tasks.append(("probes", name, partial(check_shell, root, entry, i, limit)))
    ctx = None
    if cfg.gpu is not None:
        # Only venvs of the user's own: none outside the project or tracked by git.
        # and whose interpreter is not a file inside it (what check_interpreter runs).
        from pathlib import Path  # the plugins' context names the project as a Path

        from continuity_core.schemas.probe import ProbeContext

        pythons = [
            interpreter_of(p)
            for p in within
            if p not in tracked and refused(root, interpreter_of(p)) is None
        ]
        ctx = ProbeContext(root=Path(root), config=cfg.gpu, interpreters=pythons, timeout_s=limit)
    tasks.append(("gpu", "gpu", partial(check_gpu, ctx)))
    return tasks


_MARK = dict(ok="ok", warn="WARN", fail="FAIL", skipped="-", timeout="TIMEOUT", error="ERROR")


def render(env: Environment | dict[str, Any], *, quiet: bool = False) -> str:
    """Environment facts as Markdown lines; `quiet` leaves out skipped checks (for pickup).
    `env` may be its fields as plain values (those at their default may be left out), as
    `_gather` gives them to a pickup that loads no msgspec."""
    from continuity_core.project import git_section  # not brief: a pickup builds none

    if not isinstance(env, dict):
        import msgspec

        return render(msgspec.to_builtins(env), quiet=quiet)
    lines = [git_section(env.get("git", {}))]
    for title in ("interpreters", "jobs", "probes", "gpu"):
        shown = [r for r in env.get(title, ()) if not (quiet and r["state"] == "skipped")]
        if not shown:
            continue
        lines.append(f"- {title}:")
        lines += [
            f"  - [{_MARK[r['state']]}] {r['name']}: {r.get('detail', '')}".rstrip(": ")
            for r in shown
        ]
    return redact("\n".join(lines))


def problems(env: Environment) -> list[ProbeResult]:
    """Results a person should act on."""
    return [
        r
        for r in (*env.interpreters, *env.jobs, *env.probes, *env.gpu)
        if r.state in ("warn", "fail", "timeout", "error")
    ]
