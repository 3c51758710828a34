"""`baker recall` (search every session ever indexed) and `baker audit` (Continuity's health)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

import click

from continuity_cli import output

# Show a progress bar when indexing reads at least this much, on a terminal.
PROGRESS_BYTES = 16 << 20
PROGRESS_FILES = 200


@click.command()
@click.argument("query", nargs=-1)
@click.option("--all-projects", is_flag=True, help="Search every project, not only this one.")
@click.option("--agent", metavar="AGENT", help="Only this agent's sessions.")
@click.option(
    "-n",
    "--limit",
    type=click.IntRange(1, 500),
    default=10,
    show_default=True,
    help="At most this many sessions.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--no-index", is_flag=True, help="Search what is archived without indexing first.")
@click.option("--index", "index_only", is_flag=True, help="Only bring the archive up to date.")
@click.option("--show", metavar="SESSION", help="Print the archived text of SESSION.")
@click.option("--forget", metavar="SESSION", help="Remove SESSION from the archive for good.")
def recall(
    query: tuple[str, ...],
    all_projects: bool,
    agent: str | None,
    limit: int,
    as_json: bool,
    no_index: bool,
    index_only: bool,
    show: str | None,
    forget: str | None,
) -> None:
    """Search every session of every agent and account, kept even after the agent deletes it.

    Indexes what is new first (only the bytes appended since the last run), then ranks
    sessions by relevance. Every word of QUERY must occur; end a word with * for a prefix.
    Results are this project's unless --all-projects. The archive is ~/.baker/archive.sqlite,
    redacted before anything is stored.
    """
    from pathlib import Path

    from continuity_core import archive as archive_mod
    from continuity_core import store as store_mod
    from continuity_core.handoff import project_root

    with archive_mod.Archive() as archive:
        opened = archive.notice  # said now, whatever follows; the stats repeat it
        output.warn([opened])
        if forget:
            session_id, rows = archive.forget(forget)
            if as_json:
                output.emit_json({"forgotten": session_id, "rows": rows})
            else:
                click.echo(
                    f"Forgot session {session_id} ({rows} passages); it will not be indexed again."
                )
            return
        if show:
            passages = archive.show(show)
            if as_json:
                output.emit_json([{"time": t, "text": text} for t, text in passages])
            else:
                for t, text in passages:
                    click.echo(f"--- {t or '?'}\n{text}")
            return
        if not query and not index_only:
            raise click.UsageError("give words to search for (or --index, --show, --forget)")
        root = project_root()
        if not no_index:
            with contextlib.ExitStack() as bar:
                stats = archive_mod.refresh(
                    archive, Path(store_mod.project_root() or root), progress=_progress(bar)
                )
            output.warn([stats.notice if stats.notice != opened else None, *stats.skipped])
            if index_only:
                _report_index(stats, archive.counts(), as_json)
                return
        hits = archive.search(
            " ".join(query), project=None if all_projects else str(root), agent=agent, limit=limit
        )
    if as_json:
        output.emit_json(hits)
        return
    if not hits:
        scope = "any project" if all_projects else f"{root} (try --all-projects)"
        click.echo(f"No archived session in {scope} matches {' '.join(query)!r}.")
        return
    for hit in hits:
        _render(hit, all_projects)


def _progress(stack: contextlib.ExitStack) -> Callable[[list[Any]], Any]:
    """A progress bar on stderr for long indexing runs, on a terminal only; `stack` closes it."""

    def start(pending: list[Any]) -> Any:
        total = sum(n for _, n in pending)
        if not sys.stderr.isatty() or (total < PROGRESS_BYTES and len(pending) < PROGRESS_FILES):
            return None
        label = f"Indexing {len(pending)} files"
        bar = click.progressbar(length=total, label=label, file=sys.stderr, show_eta=True)
        return stack.enter_context(bar).update

    return start


def _report_index(stats: Any, counts: dict[str, int], as_json: bool) -> None:
    if as_json:
        output.emit_json(
            {
                "indexed": stats.indexed,
                "bytes": stats.bytes,
                "rows": stats.rows,
                "reset": stats.reset,
                "seconds": round(stats.seconds, 3),
                **counts,
            }
        )
        return
    click.echo(
        f"Indexed {stats.indexed} of {stats.files} files ({stats.bytes / 1e6:.1f} MB, "
        f"{stats.rows} passages) in {stats.seconds:.1f} s; the archive holds "
        f"{counts['sources']} files, {counts['gone']} of them deleted at the source."
    )


def _render(hit: Any, show_project: bool) -> None:
    gone = click.style(" [source deleted; archived copy]", fg="yellow") if hit.gone else ""
    kind = "" if hit.kind == "transcript" else f" ({hit.kind})"
    where = f"  {hit.project}" if show_project and hit.project else ""
    account = f" · {hit.account}" if hit.account else ""
    click.echo(
        click.style(f"{hit.agent}{account} · {hit.session_id}{kind}", bold=True)
        + f" · {hit.time or '?'}{where}{gone}"
    )
    snippet = hit.snippet
    if sys.stdout.isatty():
        snippet = snippet.replace("«", "\x1b[1m").replace("»", "\x1b[22m")
    click.echo(f"  {snippet}")
    more = f" ({hit.matches} passages)" if hit.matches > 1 else ""
    click.echo(f"  → {hit.open}{more}\n")


@click.command()
@click.argument("days", type=click.FloatRange(min=0, min_open=True), default=7)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def audit(days: float, as_json: bool) -> None:
    """Check Continuity's own operation over the last DAYS (default 7).

    Hook failures and bad input logged by the hooks, pickups and briefs that hit their cap,
    noisy traps, SUSPECT next actions, turns without a checkpoint, and untrusted or modified
    hooks. Exits 1 when a check failed (an error: a hook that crashed, an adapter that does
    not load), 0 when only warnings or nothing remain, as `baker doctor` does.
    """
    import msgspec

    from continuity_core.audit import audit as run_audit
    from continuity_core.handoff import project_root

    report = run_audit(project_root(), days)
    if as_json:
        output.emit_json({**msgspec.to_builtins(report), "healthy": report.healthy})
        output.exit_on_error(report.problems)
        return
    click.echo(f"Continuity audit since {report.since} ({days:g} days)")
    if report.events:
        click.echo("events: " + ", ".join(f"{k} {v}" for k, v in report.events.items()))
    if not report.problems:
        click.echo("healthy: no hook failures, truncations, noisy traps or missed checkpoints")
        return
    marks = {"error": "✗", "warn": "!", "info": "·", "ok": "✓"}
    for p in report.problems:
        click.echo(f"{marks[p.level]} [{p.check}] {p.message}")
        if p.fix:
            click.echo(f"    fix: {p.fix}")
    output.exit_on_error(report.problems)
