"""`baker global sync` builds its agent options from what the adapters declare."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from continuity_cli.commands.global_ import DECLARED, DeclaredOptions, declared_values, sync
from continuity_core.adapters import Adapter, InstallOption
from tests.helpers.fake_agent import FakeAdapter
from tests.helpers.invoke import Invoke


class Other(FakeAdapter):
    name = "other"
    display_name = "Other Agent"
    install_options: tuple[InstallOption, ...] = (
        InstallOption(name="mark", help="The other agent's marker."),
        InstallOption(name="deep", help="Only the other agent has this one."),
        InstallOption(name="Bad Name", help="Cannot be a flag."),
        InstallOption(name="dry-run", help="Taken by the command itself."),
    )


def flags(command: DeclaredOptions, adapters: dict[str, Adapter]) -> dict[str, list[str]]:
    return {
        agent: [" ".join(o.opts) for o in options]
        for agent, (_, options) in command._options(adapters).items()
    }


def test_a_name_two_adapters_declare_is_only_taken_with_the_agent_in_front() -> None:
    command = DeclaredOptions("sync", params=list(sync.params))
    made = flags(command, {"fake": FakeAdapter(), "other": Other()})
    assert made == {
        "fake": ["--fake-mark"],
        "other": ["--other-mark", "--deep --other-deep", "--other-dry-run"],
    }
    assert "'Bad Name'" in command.bad_declarations["other"]
    assert "fake" not in command.bad_declarations


def test_declared_values_reach_only_their_adapter() -> None:
    command = DeclaredOptions("sync", params=list(sync.params))
    command.declared = command._options({"fake": FakeAdapter(), "other": Other()})
    ctx = command.make_context("sync", ["--deep", "--fake-mark"])
    assert ctx.meta[DECLARED] == {
        "fake": {"mark": True},
        "other": {"mark": False, "deep": True, "dry-run": False},
    }
    with click.Context(command) as bare:
        bare.meta.update(ctx.meta)
        assert declared_values("fake") == {"mark": True}
        assert declared_values("other")["deep"] is True
        assert declared_values("absent") == {}


class Dashed(FakeAdapter):
    """An agent whose name and options spell flags the others already have."""

    name = "other-deep"
    display_name = "Dashed Agent"
    install_options: tuple[InstallOption, ...] = (
        InstallOption(name="x", help="--other-deep-x: free."),
        InstallOption(name="x", help="Declared twice."),
        InstallOption(name="other-mark", help="--other-mark is the other agent's."),
    )


class Clash(FakeAdapter):
    name = "other"
    display_name = "Other Agent"
    install_options: tuple[InstallOption, ...] = (
        InstallOption(name="deep-x", help="--other-deep-x is the dashed agent's too."),
        InstallOption(name="mark", help="Its own."),
    )


def test_no_flag_is_spelled_twice_across_agents() -> None:
    """`--AGENT-NAME` of one agent can spell another's: every flag is made once, and what
    would repeat one is left out and named, never silently shadowing an option."""
    command = DeclaredOptions("sync", params=list(sync.params))
    made = flags(command, {"other-deep": Dashed(), "other": Clash()})
    every = [f for spelled in made.values() for o in spelled for f in o.split()]
    assert len(every) == len(set(every)), made
    assert made == {
        "other-deep": ["--x --other-deep-x", "--other-deep-other-mark"],
        "other": ["--mark --other-mark"],
    }
    assert "'deep-x'" in command.bad_declarations["other"]
    assert "'x'" in command.bad_declarations["other-deep"]


class Spaced(FakeAdapter):
    name = "Co dex"
    display_name = "Odd Name"
    install_options: tuple[InstallOption, ...] = (InstallOption(name="chain", help="x"),)


def test_an_agent_whose_name_cannot_be_in_a_flag_gets_none() -> None:
    command = DeclaredOptions("sync", params=list(sync.params))
    assert flags(command, {"Co dex": Spaced(), "fake": FakeAdapter()}) == {
        "fake": ["--mark --fake-mark"]
    }
    assert "'chain'" in command.bad_declarations["Co dex"]


def test_a_missing_home_names_config_toml_only_for_an_account_listed_there(
    isolated_home: Path, cli: Invoke
) -> None:
    pytest.importorskip("continuity_codex")  # absent where the CLI is installed alone
    result = cli("global", "sync", "--dry-run")  # no config.toml: the folders are the defaults
    assert result.exit_code == 0, result.output
    codex = f"skipped          {isolated_home / '.codex'} — "
    assert codex + "no Codex CLI home here; run codex once to create it" in result.stdout
    assert "config.toml" not in result.stdout
    (isolated_home / ".baker").mkdir(exist_ok=True)
    (isolated_home / ".baker" / "config.toml").write_text(
        '[accounts.work]\nagent = "codex"\ndir = "~/.codex-work"\n'
    )
    result = cli("global", "sync", "--dry-run")
    work = f"skipped          {isolated_home / '.codex-work'} — no such folder: run Codex CLI"
    assert work in result.stdout and "fix its `dir` in ~/.baker/config.toml" in result.stdout
    assert result.stdout.count("config.toml") == 1
