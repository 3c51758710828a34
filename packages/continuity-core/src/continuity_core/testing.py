"""The contract every adapter must meet, as a test class adapters' suites subclass.

    class TestContract(AdapterContract):
        @pytest.fixture
        def sample(self, tmp_path) -> ContractSample: ...

Requires pytest; imported only by test suites.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from continuity_core.adapters.protocol import Account, Adapter, LaunchOptions, missing
from continuity_core.brief import Brief
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.handoff import Section
from continuity_core.schemas.session import Session, SessionRef


@dataclass
class ContractSample:
    """What a subclass provides: an adapter, a home with sessions, and a project in it."""

    adapter: Adapter
    accounts: list[Account]
    project: Path  # a folder some discovered session belongs to
    session_id: str  # the newest session of `project`
    latest_request: str  # its latest user request, verbatim
    hook_payloads: dict[str, bytes] = field(default_factory=dict)  # kind -> payload
    notify_argv: list[str] = field(default_factory=list)  # a hook delivered as arguments


# What importing modules adds to a process that has already imported `sys.argv[1]` (a comma-
# separated list of core modules): the adapter may add its own modules and core's, nothing else.
HOOK_IMPORTS = """
import importlib, json, sys
for name in sys.argv[1].split(","):
    importlib.import_module(name)
before = set(sys.modules)
for name in sys.argv[2:]:
    importlib.import_module(name)
print(json.dumps(sorted(set(sys.modules) - before)))
"""
# The hook commands load an agent's hook module after core's hook path (pretool loads nothing
# more); the adapter class only where a session is read, after core's reader and schemas.
HOOK_PATH = "continuity_core.hooks"
READ_PATH = "continuity_core.hooks,continuity_core.transcript,continuity_core.adapters.kit"


class AdapterContract:
    """Behaviour core and the CLI rely on, whatever the agent."""

    @pytest.fixture
    def sample(self, tmp_path: Path) -> ContractSample:  # pragma: no cover - overridden
        raise NotImplementedError

    def test_is_an_adapter(self, sample: ContractSample) -> None:
        adapter = sample.adapter  # `Adapter` is a Protocol for the type checker: members here
        assert missing(adapter) == [], "the adapter lacks members of the Adapter protocol"
        assert adapter.name and adapter.display_name
        assert all(isinstance(v, str) for v in adapter.known_versions)
        # Test suites clear these (tests/conftest.py): names as a shell writes them.
        assert isinstance(adapter.env_vars, tuple)
        assert all(v.isidentifier() and v.isupper() for v in adapter.env_vars), adapter.env_vars

    def test_adds_nothing_heavy_to_the_hook_paths(self, sample: ContractSample) -> None:
        """Every hook loads the agent's hook module: importing it after core's hook path may
        add the adapter's own modules and core's, and no module of the standard library or a
        third party (pretool runs before every tool call). The adapter class is loaded where a
        session is read, and may add nothing that core's reader has not loaded already (the
        hooks' budgets, docs/decisions.md)."""
        from importlib.metadata import entry_points

        cls = type(sample.adapter)
        package = cls.__module__.partition(".")[0]
        hooks = [ep.value for ep in entry_points(group="continuity_core.hooks", name=cls.name)]
        for base, modules in ((HOOK_PATH, hooks), (READ_PATH, [*hooks, cls.__module__])):
            result = subprocess.run(
                [sys.executable, "-c", HOOK_IMPORTS, base, *modules],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
                timeout=60,
                check=False,
            )
            assert result.returncode == 0, result.stderr
            added = json.loads(result.stdout)
            own = (package, "continuity_core")
            heavy = [m for m in added if m.partition(".")[0] not in own]
            assert heavy == [], f"loading {modules} after {base} also imports {heavy}"

    def test_accounts_are_absolute_and_tagged(self, sample: ContractSample) -> None:
        for account in sample.adapter.accounts(GlobalConfig()):
            assert account.agent == sample.adapter.name
            assert Path(account.dir).is_absolute()

    def test_discover_finds_newest_first(self, sample: ContractSample) -> None:
        refs = list(sample.adapter.discover(sample.project, sample.accounts))
        assert refs, "no session discovered for the sample project"
        assert refs[0].session_id == sample.session_id
        assert [r.mtime for r in refs] == sorted((r.mtime for r in refs), reverse=True)
        assert all(r.agent == sample.adapter.name for r in refs)

    def test_unrelated_project_has_no_sessions(
        self, sample: ContractSample, tmp_path: Path
    ) -> None:
        other = tmp_path / "no-such-project-here"
        other.mkdir()
        assert list(sample.adapter.discover(other, sample.accounts)) == []

    def test_all_sessions_covers_discover(self, sample: ContractSample) -> None:
        def key(ref: SessionRef) -> tuple[str, str, str, str]:
            return ref.agent, ref.account, ref.session_id, ref.path

        every = list(sample.adapter.all_sessions(sample.accounts))
        assert all(r.agent == sample.adapter.name for r in every)
        assert len({key(r) for r in every}) == len(every), "a session is listed twice"
        mine = {key(r) for r in sample.adapter.discover(sample.project, sample.accounts)}
        assert mine and mine <= {key(r) for r in every}
        # the sample home holds other projects too: their sessions are listed as well
        others = [r for r in every if key(r) not in mine]
        assert others, "all_sessions found only the sample project's sessions"
        root = str(sample.project)
        assert all(r.cwd != root for r in others if r.cwd)

    def test_read_gives_latest_request_verbatim(self, sample: ContractSample) -> None:
        ref = next(iter(sample.adapter.discover(sample.project, sample.accounts)))
        session: Session = sample.adapter.read(ref).session
        assert session.agent == sample.adapter.name
        assert session.session_id == sample.session_id
        assert session.latest_request == sample.latest_request

    def test_incremental_read_is_stable(self, sample: ContractSample) -> None:
        ref = next(iter(sample.adapter.discover(sample.project, sample.accounts)))
        first = sample.adapter.read(ref)
        offset = first.offset
        again = sample.adapter.read(ref, first)
        assert again.offset == offset
        assert again.session.requests == first.session.requests
        assert again.session.todos == first.session.todos
        assert again.session.files_edited == first.session.files_edited

    @pytest.mark.parametrize("garbage", [b"", b"not json", b"\xff\xfe\x00", b"[]", b"{}", b"null"])
    def test_parse_hook_rejects_garbage_with_valueerror(
        self, sample: ContractSample, garbage: bytes
    ) -> None:
        try:
            event = sample.adapter.parse_hook(garbage, [])
        except ValueError:
            return
        assert event.agent == sample.adapter.name  # tolerated: then it must still be ours

    def test_parse_hook_samples(self, sample: ContractSample) -> None:
        for kind, payload in sample.hook_payloads.items():
            event = sample.adapter.parse_hook(payload, [])
            assert event.agent == sample.adapter.name
            assert event.kind == kind, (kind, event)
        if sample.notify_argv:  # as `baker hook <agent> notify ARG` hands it on, stdin empty
            event = sample.adapter.parse_hook(b"", sample.notify_argv)
            assert (event.agent, event.kind) == (sample.adapter.name, "notify"), event
            assert event.session_id, event

    def test_render_context_is_json_or_nothing(self, sample: ContractSample) -> None:
        for payload in sample.hook_payloads.values():
            event = sample.adapter.parse_hook(payload, [])
            out = sample.adapter.render_context(event, "context for the model")
            if out is not None:
                json.loads(out)

    def test_install_is_idempotent_and_uninstall_restores(
        self, sample: ContractSample, tmp_path: Path
    ) -> None:
        project = tmp_path / "install-project"
        project.mkdir()
        first = sample.adapter.install(project)
        if all(c.action == "skipped" for c in first):  # the agent has no project-level hooks
            assert not any(project.rglob("*")), "a skipped install wrote files"
            return
        assert any(c.action in ("created", "updated") for c in first)
        snapshot = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
        second = sample.adapter.install(project)
        assert all(c.action in ("unchanged", "skipped") for c in second), second
        assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == snapshot
        sample.adapter.uninstall(project)
        leftovers = [p for p in project.rglob("*") if p.is_file()]
        assert leftovers == [], leftovers

    def test_launch_never_puts_a_huge_brief_on_the_command_line(
        self, sample: ContractSample, tmp_path: Path
    ) -> None:
        body = "x" * 300_000
        section = Section(key="request", title="Request", source="t", body=body, priority=1)
        huge = LaunchOptions(brief=Brief(created_at="", project="", sections=[section]))
        spec = sample.adapter.launch(sample.project, tmp_path / "brief.md", huge)
        assert spec.argv
        assert all(len(a.encode()) < 100_000 for a in spec.argv)
