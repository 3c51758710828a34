"""Authored checkpoints and context usage: `facts`, `save`, `resume-check`, `usage`, `list`,
`validate`, `prune`. The `continuity` skill drives these; each prints JSON with `--json`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import msgspec

from continuity_cli import output

if TYPE_CHECKING:
    from collections.abc import Mapping

    from continuity_core.adapters import Adapter

_F = TypeVar("_F", bound=Callable[..., Any])
_repo_option = click.option(
    "--repo",
    "repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The worktree to work on (default: the current folder's).",
)
_json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _root(repo: Path | None) -> Path:
    from continuity_core.handoff import project_root

    return project_root(repo.absolute() if repo else None)


def _thresholds(prepare: str | None, refresh: str | None, rotate: str | None) -> Any:
    from continuity_core import usage
    from continuity_core.config import load_config

    return usage.thresholds(
        load_config().usage, {"prepare": prepare, "refresh": refresh, "rotate": rotate}
    )


def _live_usage(
    root: Path, limits: Any, agent: str | None = None, session_id: str | None = None
) -> Any:
    from continuity_core import usage

    try:
        return usage.live(root, limits, agent, session_id)
    except Exception as e:  # an adapter's failure makes usage unknown, never a crash
        return usage.level_for(
            None, limits, source="live session", reason=f"the session could not be read: {e}"
        )


@click.command()
@click.option(
    "--host-context",
    "host_context",
    metavar="JSON",
    help="A cross-agent context from the host (a JSON object); recorded as given.",
)
@click.option("--agent", default="", help="The agent writing the checkpoint (front matter).")
@click.option("--session", "session_id", default="", help="Its session id (front matter).")
@_repo_option
@_json_option
def facts(
    host_context: str | None, agent: str, session_id: str, repo: Path | None, as_json: bool
) -> None:
    """Collect what a checkpoint needs: repo state, context usage, the latest checkpoint.

    The JSON holds `front_matter` and `draft_template` (a skeleton to fill in and pass to
    `baker save`).

    Exit codes: 0 ok, 1 error, 2 usage (e.g. --host-context is not JSON).
    """
    import json

    from continuity_core import saved
    from continuity_core.project import repo_facts
    from continuity_core.redact import redact_obj

    host: Any = None
    if host_context is not None:
        try:
            host = json.loads(host_context)
        except ValueError:
            raise click.BadParameter("is not valid JSON", param_hint="--host-context") from None
        if not isinstance(host, dict):
            raise click.BadParameter("must be a JSON object", param_hint="--host-context")
        host = redact_obj(host)
    root = _root(repo)
    git = repo_facts(root)  # the user's work, as the brief and `status` count it
    front = saved.front_matter(root, git, agent=agent, session=session_id)
    # the usage of the session the front matter names (`--agent`, `--session`), not another's
    usage_report = _live_usage(
        root, _thresholds(None, None, None), agent or None, session_id or None
    )
    if not agent and usage_report.agent:
        front["agent"] = usage_report.agent
        front["session"] = front["session"] or usage_report.session_id or ""
    latest = saved.resume_check(root)
    delegated = _delegated(host)
    data = {
        "project": str(root),
        "git": git,
        "front_matter": front,
        "usage": usage_report,
        "latest_saved": latest if latest.status != "none" else None,
        "host_context": host,
        "delegated": delegated,
        "draft_template": saved.template(front),
    }
    if as_json:
        output.emit_json(data)
        return
    click.echo(f"project: {root}")
    click.echo(
        f"branch: {git.branch or '(detached)'}  head: {(git.head or '-')[:12]}  "
        f"dirty files: {git.dirty_count}"
    )
    click.echo(f"usage: {_usage_line(usage_report)}")
    click.echo(f"latest saved checkpoint: {latest.id or 'none'} ({latest.status})")
    click.echo(f"delegated sessions: {delegated['reason']}")


def _delegated(host: Any) -> dict[str, Any]:
    """What is known of sessions other agents run for this one; baker has no launcher to ask."""
    reported = host.get("delegated") or host.get("sessions") if isinstance(host, dict) else None
    reason = (
        "not captured: baker has no cross-agent launcher whose --status it could read; "
        "check each delegated session with its own tool before repeating its work"
    )
    return {"captured": False, "reason": reason, "reported_by_host": reported}


def save_json(root: Path, text: str, adapters: Mapping[str, Adapter]) -> dict[str, Any]:
    """Store `text` as a saved checkpoint of `root`: `baker save --json`'s answer, which the
    MCP `save` tool returns too (`saved` false with the validation when it is refused)."""
    from continuity_core import saved

    try:
        result = saved.save(root, text)
    except saved.SaveRefused as e:
        return {"saved": False, "validation": msgspec.to_builtins(e.validation)}
    return {
        "saved": True,
        "id": result.id,
        "path": str(result.path),
        "resume": saved.resume_prompts(result.id, adapters),
        "warnings": result.warnings,
        "unverified": msgspec.to_builtins(result.validation.unverified),
    }


@click.command()
@click.argument("draft", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@_repo_option
@_json_option
def save(draft: Path, repo: Path | None, as_json: bool) -> None:
    """Validate DRAFT (a file, or - for stdin) and store it as a saved checkpoint.

    Writes `.baker/saved/<id>.md` (private, atomic), points LATEST at it and prints the id,
    the path and the resume prompts. A draft with a secret is refused without showing it.
    Changes no project file and commits nothing.

    Exit codes: 0 saved, 1 refused (invalid draft, secret) or error, 2 usage.
    """
    from continuity_core.adapters import load_all

    adapters = load_all()[0]
    data = save_json(_root(repo), _read_draft(draft), adapters)
    if as_json:
        output.emit_json(data)
    if not data["saved"]:
        for err in data["validation"]["errors"]:
            click.echo(f"error: {err}", err=True)
        sys.exit(1)
    output.warn(data["warnings"])
    if as_json:
        return
    prompts = data["resume"]
    click.echo(f"saved checkpoint {data['id']}")
    click.echo(f"path: {data['path']}")
    labels = {
        name: f"resume in {adapters[name].display_name}:" for name in prompts if name in adapters
    }
    labels["any"] = "resume prompt:"
    width = max(len(label) for label in labels.values())
    for name, label in labels.items():
        click.echo(f"{label:<{width}} {prompts[name]}")


def _read_draft(draft: Path) -> str:
    try:
        data = sys.stdin.buffer.read() if str(draft) == "-" else draft.read_bytes()
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise click.ClickException(f"{draft} is not UTF-8 text") from None
    except OSError as e:
        raise click.ClickException(f"cannot read {draft}: {e.strerror}") from None


@click.command("resume-check")
@click.argument("target", required=False, metavar="[ID|PATH]")
@_repo_option
@_json_option
def resume_check(target: str | None, repo: Path | None, as_json: bool) -> None:
    """Check whether a saved checkpoint can be resumed here, and what drifted since.

    Without ID|PATH: the latest checkpoint of this worktree. An id (or a unique prefix) or a
    path may name one saved in another worktree of the same repository; paths outside the
    stores are refused. Status: fresh, drifted, choose, none, blocked, invalid.

    Exit codes: 0 fresh/drifted/choose, and none when no ID|PATH was given (nothing saved
    yet); 1 blocked/invalid, none for an ID|PATH that names nothing, or error; 2 usage.
    """
    from continuity_core import saved

    result = saved.resume_check(_root(repo), target)
    if as_json:
        output.emit_json(result)
    else:
        click.echo(f"{result.status}: {result.id or ''} {result.path or ''}".rstrip())
        if result.reason:
            click.echo(f"  {result.reason}")
        for d in result.drift:
            detail = ", ".join(d.files) if d.files else f"{d.saved} -> {d.now}"
            click.echo(f"  drift {d.kind}: {detail}")
        output.indented("unverified", (c.claim for c in result.unverified))
        for cand in result.candidates:
            click.echo(f"  candidate {cand.id}  {cand.time or ''}  {cand.worktree}")
        output.indented("warning", result.warnings)
    if result.status in ("blocked", "invalid") or (result.status == "none" and target):
        sys.exit(1)


def _threshold_option(name: str, default: str) -> Callable[[_F], _F]:
    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        from continuity_core import usage
        from continuity_core.errors import ConfigError

        if value is not None:
            try:
                usage.parse_threshold(value)
            except ConfigError as e:
                raise click.BadParameter(str(e)) from None
        return value

    return click.option(
        f"--{name}",
        metavar="N|P%",
        callback=check,
        help=f"The {name} level: tokens or a percentage (default {default}).",
    )


@click.command()
@click.option(
    "--statusline",
    is_flag=True,
    help="Read a usage feed on stdin (an agent's status line JSON): --agent's, else "
    "that of the one installed adapter that has a feed.",
)
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Measure this transcript, read by --agent's adapter, else by the adapter "
    "one of whose accounts holds it.",
)
@click.option(
    "--rollout",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    hidden=True,
    help="The same as --transcript (kept for older scripts).",
)
@click.option(
    "--agent",
    metavar="NAME",
    help="The agent the feed or transcript is from (it picks the reader); "
    "without either, the live session is this agent's newest.",
)
@_threshold_option("prepare", "50% or 100k")
@_threshold_option("refresh", "62% or 125k")
@_threshold_option("rotate", "75% or 150k")
@_repo_option
@_json_option
def usage(
    statusline: bool,
    transcript: Path | None,
    rollout: Path | None,
    agent: str | None,
    prepare: str | None,
    refresh: str | None,
    rotate: str | None,
    repo: Path | None,
    as_json: bool,
) -> None:
    """Context usage of the live session as a level: ok, prepare, refresh, rotate, unknown.

    Without --statusline or --transcript the session is the one `baker handoff` takes: this
    project's newest that did work, in any agent and account (in --agent's alone when given).

    Thresholds: flags, else `[usage]` in ~/.baker/config.toml, else 50/62/75 % of the window
    (100k/125k/150k tokens when the window is unknown). `unknown` never guesses a number.

    Exit codes: 0 (every level, unknown included), 1 error, 2 usage (a bad threshold).
    """
    limits = _thresholds(prepare, refresh, rotate)
    transcript = transcript or rollout
    if statusline:
        report = _from_statusline(agent, sys.stdin.buffer.read(), limits)
    elif transcript is not None:
        report = _from_file(agent or _holder(transcript), transcript, limits)
    else:
        report = _live_usage(_root(repo), limits, agent)
    if as_json:
        output.emit_json(report)
    else:
        click.echo(_usage_line(report))


def _holder(path: Path) -> str:
    """The agent one of whose accounts holds `path`, or "" when none does (or several)."""
    from continuity_core.adapters import load_all
    from continuity_core.config import load_config

    config = load_config()
    real = str(path.resolve())
    found = set()
    for name, adapter in load_all()[0].items():
        try:
            homes = [str(Path(a.dir).resolve()) for a in adapter.accounts(config)]
        except Exception:  # an adapter that cannot list its accounts holds nothing here
            homes = []
        if any(real.startswith(home.rstrip("/") + "/") for home in homes):
            found.add(name)
    return found.pop() if len(found) == 1 else ""


def _from_statusline(agent: str | None, payload: bytes, limits: Any) -> Any:
    from continuity_core import usage
    from continuity_core.adapters import load, load_all
    from continuity_core.errors import AdapterError

    if agent is None:
        fed = sorted(n for n, a in load_all()[0].items() if a.usage_source is not None)
        if len(fed) != 1:
            why = (
                f"several agents have a usage feed ({', '.join(fed)}): name one with --agent"
                if fed
                else "no installed agent has a usage feed to read on stdin"
            )
            return usage.level_for(None, limits, source="statusline", reason=why)
        agent = fed[0]
    try:
        feed = load(agent).usage_source
        if feed is None:
            raise AdapterError(f"{agent} has no usage feed to read on stdin")
    except AdapterError as e:
        source = f"{agent} statusline"
        return usage.level_for(None, limits, source=source, agent=agent, reason=str(e))
    found = feed.measure(payload)
    if found.usage is None and found.transcript is not None:
        path = Path(found.transcript)
        if path.is_file():
            return _from_file(agent, path, limits)
    return usage.level_for(
        found.usage,
        limits,
        source=feed.label,
        agent=agent,
        session_id=found.session_id,
        reason=found.reason,
    )


def _from_file(agent: str, path: Path, limits: Any) -> Any:
    from continuity_core import usage
    from continuity_core.adapters import load
    from continuity_core.errors import AdapterError

    if not agent:
        why = f"no installed agent's account holds {path}: name its agent with --agent"
        return usage.level_for(None, limits, source=f"transcript {path}", reason=why)
    source = f"{agent} transcript {path}"
    try:
        measured, session_id, reason = usage.from_file(load(agent), path)
    except AdapterError as e:
        measured, session_id, reason = None, None, str(e)
    except Exception as e:  # a file the adapter cannot parse is unknown usage, not a crash
        measured, session_id, reason = None, None, f"{path} could not be read: {e}"
    return usage.level_for(
        measured, limits, source=source, agent=agent, session_id=session_id, reason=reason
    )


def _usage_line(report: Any) -> str:
    if report.level == "unknown":
        return f"unknown — {report.reason}"
    of = f" of {report.context_window}" if report.context_window else ""
    pct = f" ({report.percent}%)" if report.percent is not None else ""
    return f"{report.level} — {report.context_tokens} tokens{of}{pct}: {report.action}"


@click.command("list")
@click.option(
    "--all",
    "all_worktrees",
    is_flag=True,
    help="Every worktree of this repository, not only this one.",
)
@_repo_option
@_json_option
def list_(all_worktrees: bool, repo: Path | None, as_json: bool) -> None:
    """List saved checkpoints, newest first. Exit codes: 0 ok, 1 error, 2 usage."""
    from continuity_core import saved

    output.listing(
        saved.list_saved(_root(repo), all_worktrees=all_worktrees),
        as_json=as_json,
        empty="no saved checkpoints",
        line=lambda c: (
            f"{'*' if c.latest else ' '} {c.id}  {c.time or '?':<22} "
            f"{c.agent or '?':<8} {c.bytes:>7} B  {c.path}"
        ),
    )


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@_json_option
def validate(path: Path, as_json: bool) -> None:
    """Check a draft or a saved checkpoint against the format; nothing is written.

    Exit codes: 0 valid, 1 invalid or blocked (a newer schema: update baker), 2 usage.
    """
    from continuity_core import saved

    result = saved.validate_text(_read_draft(path), str(path))
    if as_json:
        output.emit_json(result)
    else:
        click.echo(f"{result.status}: {path}")
        output.indented("error", result.errors)
        output.indented("warning", result.warnings)
        output.indented("unverified", (c.claim for c in result.unverified))
    if result.status != "valid":
        sys.exit(1)


@click.command()
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    required=True,
    help="How many of the newest checkpoints to keep.",
)
@click.option(
    "--all",
    "all_worktrees",
    is_flag=True,
    help="Prune the stores of every worktree of this repository.",
)
@click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
@_repo_option
@_json_option
def prune(keep: int, all_worktrees: bool, dry_run: bool, repo: Path | None, as_json: bool) -> None:
    """Delete all but the newest KEEP saved checkpoints; the only command that deletes them.

    Exit codes: 0 ok, 1 error, 2 usage.
    """
    from continuity_core import saved

    removed = saved.prune(_root(repo), keep, all_worktrees=all_worktrees, dry_run=dry_run)
    if as_json:
        output.emit_json(
            {"dry_run": True, "would_remove": removed} if dry_run else {"removed": removed}
        )
        return
    n = len(removed)
    verb = "would remove" if dry_run else "removed"
    click.echo(f"{verb} {n} file{'' if n == 1 else 's'}")
    for p in removed:
        click.echo(f"  {p}")
