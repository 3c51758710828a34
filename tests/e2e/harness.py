"""The end-to-end harness: the real agent CLIs, an isolated home each, a loopback mock model.

`agent("claude", script)` gives an `Agent`: its mock is running, its home is pre-seeded so the
CLI runs unattended (onboarding, trust, auth type) and stays on the machine (telemetry and
update checks off, a dead proxy for anything that would still leave), and `run()` /
`interactive()` drive the CLI headless or in a pseudo-terminal. Nothing reads the real home:
the suite-wide `isolated_home` fixture has already pointed HOME at a temporary folder.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import pty
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.e2e.mock_models import MockModel, Turn

E2E = Path(__file__).resolve().parent
# The CLIs under test: the pinned ones, or a canary's scratch install (scripts/canary.py).
NODE_BIN = Path(os.environ.get("CONTINUITY_E2E_NODE_BIN") or E2E / "node_modules" / ".bin")
VENV_BIN = Path(sys.executable).parent
API_KEYS = {
    "claude": "sk-ant-e2e-mock-0123456789abcdefghij",
    "codex": "sk-e2e-mock-codex",
    "gemini": "e2e-mock-gemini-key",
    # Copilot masks the key wherever it prints it: a short one garbles its output.
    "copilot": "sk-e2e-mock-copilot-0123456789abcdefghijklmnopqrstuvwxyz",
    "opencode": "e2e-mock-opencode",
}
COPILOT_MODEL = "gpt-4.1"
# Copilot CLI unpacks ~235 MB into $XDG_CACHE_HOME/copilot on its first run: once per install.
COPILOT_CACHE = E2E / "node_modules" / ".cache-copilot"
CODEX_MODEL = "gpt-5.5"  # a catalog slug: apply_patch and update_plan are offered
GEMINI_MODEL = "gemini-2.5-pro"  # pinned: no router call before every prompt
# OpenCode offline: no update, model catalog, LSP download or sharing; its start npm-installs
# @opencode-ai/plugin for every plugin folder and waits for it: offline that fails at once.
OPENCODE_ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "npm_config_offline": "true",
}
DEAD_PROXY = (
    "http://127.0.0.1:9"  # discard port: a stray fetch fails at once, off the machine never
)


def _missing_cli(name: str) -> str | None:
    """Why the pinned CLI cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not on PATH: the end-to-end tests need Node.js 22+ and npm"
    if not (NODE_BIN / name).exists():
        return (
            f"{name} is not installed in tests/e2e/node_modules: run "
            "`python3 scripts/dev.py e2e` (npm install of tests/e2e/package-lock.json)"
        )
    return None


def require_cli(name: str) -> None:
    """Fail in CI (the end-to-end tests are part of the suite there), skip elsewhere."""
    why = _missing_cli(name)
    if why is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(why, pytrace=False)
    pytest.skip(why)


@dataclass
class Interactive:
    """A CLI running in a pseudo-terminal; the output is drained so it never blocks."""

    proc: subprocess.Popen[bytes]
    master: int
    output: bytearray = field(default_factory=bytearray)
    _reader: threading.Thread | None = None

    def start_reader(self) -> None:
        def drain() -> None:
            while True:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError as e:  # EIO: the child closed the terminal
                    if e.errno in (errno.EIO, errno.EBADF):
                        return
                    raise
                if not chunk:
                    return
                self.output += chunk
                # TUIs ask where the cursor is and wait for the answer (crossterm, ink).
                if b"\x1b[6n" in chunk:
                    self.send(b"\x1b[1;1R")

        self._reader = threading.Thread(target=drain, daemon=True)
        self._reader.start()

    def send(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # also once stopped (EBADF)
            os.write(self.master, data)

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace")

    def stop(self, timeout: float = 5) -> int:
        """Stop the CLI by its PID (its own session's group: no helper outlives it); idempotent."""
        if self.proc.poll() is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout)
                    break
                except subprocess.TimeoutExpired:
                    continue
        code = self.proc.wait()
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        if self._reader:
            self._reader.join(2)
        return code


@dataclass
class Agent:
    """One agent CLI with its home, its project and its mock model server."""

    name: str
    home: Path  # HOME of this run
    config_dir: Path  # CLAUDE_CONFIG_DIR / CODEX_HOME / GEMINI_CLI_HOME
    project: Path
    mock: MockModel
    env: dict[str, str]

    def argv(
        self,
        prompt: str,
        *,
        headless: bool,
        resume: str | None = None,
        model: str | None = None,
        options: Sequence[str] = (),
    ) -> list[str]:
        """The command line of one turn; `resume`: a headless turn of that session; `model`:
        Gemini CLI's `-m` (the pinned model otherwise); `options`: more of the CLI's own
        (Codex's `-c key=value`, `--enable FEATURE`), before the session and the prompt."""

        def resumed(flag: str) -> list[str]:  # `FLAG ID` where a session goes on
            return [] if resume is None else [flag, resume]

        if self.name == "claude":
            if headless:
                return [
                    "claude",
                    "-p",
                    prompt,
                    "--output-format",
                    "json",
                    "--dangerously-skip-permissions",
                    *options,
                    *resumed("--resume"),
                ]
            return ["claude", "--dangerously-skip-permissions", *options, prompt]
        if self.name == "codex":
            if headless:
                return [
                    "codex",
                    "exec",
                    "--skip-git-repo-check",
                    "--json",
                    "--dangerously-bypass-approvals-and-sandbox",
                    *options,
                    *resumed("resume"),
                    prompt,
                ]
            # No sandbox: the bundled bubblewrap needs user namespaces a container may lack.
            return [
                "codex",
                "--no-alt-screen",
                "--no-daemon",
                "--dangerously-bypass-approvals-and-sandbox",
                *options,
                prompt,
            ]
        if self.name == "copilot":
            if headless:  # the JSON events end on a `result` that names the session
                return [
                    "copilot",
                    "-p",
                    prompt,
                    "--allow-all",
                    "--output-format",
                    "json",
                    *options,
                    *resumed("--resume"),
                ]
            return ["copilot", "-i", prompt, "--allow-all", *options]
        if self.name == "opencode":
            if headless:
                return ["opencode", "run", "--format", "json", *options, *resumed("-s"), prompt]
            return ["opencode", *options, "--prompt", prompt]
        mode = ["-p", prompt, "-o", "json"] if headless else ["-i", prompt]
        model_flag = ["-m", model or GEMINI_MODEL]
        return ["gemini", *mode, "--yolo", *model_flag, *options, *resumed("--resume")]

    def run(
        self, prompt: str, *extra: str, timeout: float = 90, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run one headless turn (`claude -p`, `codex exec`, `gemini -p`) in the project."""
        return self.cli(*self.argv(prompt, headless=True), *extra, timeout=timeout, check=check)

    def cli(
        self, *argv: str, timeout: float = 90, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run any command line (`codex exec resume ID …`) in the agent's env and project."""
        proc = subprocess.run(
            argv,
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"{argv[0]} exited {proc.returncode}\n--- stdout\n"
                f"{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
            )
        return proc

    def interactive(self, prompt: str, *extra: str) -> Interactive:
        """Start the CLI's TUI in a pseudo-terminal with `prompt` as its first turn."""
        return self.terminal(*self.argv(prompt, headless=False), *extra)

    def terminal(self, *argv: str, env: dict[str, str] | None = None) -> Interactive:
        """Run any command line in a pseudo-terminal, such as `baker resume codex`.

        `env` overrides entries of the agent's env. What the command exec's stays in the
        terminal's session, so `.stop()` ends it by the PID started here.
        """
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        full = {
            **self.env,
            **(env or {}),
            "TERM": "xterm-256color",
            "COLUMNS": "120",
            "LINES": "40",
        }
        proc = subprocess.Popen(
            list(argv),
            cwd=self.project,
            env=full,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        session = Interactive(proc, master)
        session.start_reader()
        return session


class MakeAgent(Protocol):
    """The `agent` fixture: `agent("codex", [Turn(...), ...], account="work")` -> an `Agent`."""

    def __call__(
        self, name: str, script: list[Turn] | None = None, *, account: str = ""
    ) -> Agent: ...


def make_agent(
    name: str,
    home: Path,
    project: Path,
    mock: MockModel,
    *,
    account: str = "",
    node_bin: Path = NODE_BIN,
) -> Agent:
    """An `Agent` ready to run unattended in `project` against the started `mock`: its
    config dir in `home` (a named `account` gets a second one beside the default) seeded, its
    environment set. The e2e tests and scripts/capture.py both make their agents here."""
    suffix = f"-{account}" if account else ""
    config_dir = {  # CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME, XDG_CONFIG_HOME
        "claude": home / f".claude{suffix}",
        "codex": home / f".codex{suffix}",
        "gemini": home / f"gemini-home{suffix}" if account else home,
        "copilot": home / f".copilot{suffix}",
        "opencode": home / f".config{suffix}" / "opencode",
    }[name]
    seed(name, config_dir, project, mock)
    env = agent_env(name, home, config_dir, mock, node_bin)
    if name == "opencode":  # OpenCode takes its project folder from PWD
        env["PWD"] = str(project)
    return Agent(name, home, config_dir, project, mock, env)


def agent_env(
    name: str, home: Path, config_dir: Path, mock: MockModel, node_bin: Path = NODE_BIN
) -> dict[str, str]:
    """The environment of one agent CLI run; `node_bin` holds the CLIs (a canary's scratch)."""
    env = {
        k: v
        for k, v in os.environ.items()
        # CI=true would force Gemini headless; a proxy from outside must not apply.
        if k not in ("CI", "GITHUB_ACTIONS") and "proxy" not in k.lower()
    }
    env.update(
        {
            "HOME": str(home),
            "BAKER_HOME": str(home / ".baker"),
            "PATH": os.pathsep.join([str(VENV_BIN), str(node_bin), env.get("PATH", "")]),
            "HTTPS_PROXY": DEAD_PROXY,
            "HTTP_PROXY": DEAD_PROXY,
            "https_proxy": DEAD_PROXY,
            "http_proxy": DEAD_PROXY,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "NO_UPDATE_NOTIFIER": "1",
            "NO_COLOR": "1",
        }
    )
    if name == "claude":
        env.update(
            {
                "CLAUDE_CONFIG_DIR": str(config_dir),
                "ANTHROPIC_BASE_URL": mock.url,
                "ANTHROPIC_API_KEY": API_KEYS[name],
                "DISABLE_TELEMETRY": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
                "IS_SANDBOX": "1",  # as root, --dangerously-skip-permissions needs it
                # 2.1.3xx offers the default model no todo tools unless asked; 2.1.197 ignores it.
                "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
            }
        )
    elif name == "codex":
        env.update({"CODEX_HOME": str(config_dir), "MOCK_API_KEY": API_KEYS[name]})
    elif name == "copilot":
        env.update(
            {
                "COPILOT_HOME": str(config_dir),
                "COPILOT_OFFLINE": "true",  # no GitHub login, no telemetry
                "COPILOT_PROVIDER_BASE_URL": f"{mock.url}/v1",
                "COPILOT_PROVIDER_API_KEY": API_KEYS[name],
                "COPILOT_MODEL": COPILOT_MODEL,
                "COPILOT_AUTO_UPDATE": "false",
                "XDG_CACHE_HOME": str(COPILOT_CACHE),
            }
        )
    elif name == "opencode":
        env.update({"XDG_CONFIG_HOME": str(config_dir.parent), **OPENCODE_ENV})
    else:
        env.update(
            {
                "GEMINI_CLI_HOME": str(config_dir),
                "GOOGLE_GEMINI_BASE_URL": mock.url,
                "GEMINI_API_KEY": API_KEYS[name],
                "GEMINI_CLI_NO_RELAUNCH": "true",  # one process, so it is stopped by its PID
            }
        )
    return env


def seed(name: str, config_dir: Path, project: Path, mock: MockModel) -> None:
    """Write what the CLI needs to run unattended against `mock` (see shared/formats)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    root = str(project.resolve())
    if name == "claude":
        state = {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [API_KEYS[name][-20:]], "rejected": []},
            "bypassPermissionsModeAccepted": True,
            "projects": {
                root: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
            },
        }
        (config_dir / ".claude.json").write_text(json.dumps(state))
        (config_dir / "settings.json").write_text(
            json.dumps({"skipDangerousModePermissionPrompt": True})
        )
    elif name == "codex":
        (config_dir / "config.toml").write_text(f"""\
model = "{CODEX_MODEL}"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "{mock.url}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[tools.update_plan]
enabled = true

[analytics]
enabled = false

[features]
daemon_auto_start = false
apps = false
plugins = false
remote_plugin = false
api_key_model_discovery = false
in_app_updates = false

[tui]
show_tooltips = false

[projects.{json.dumps(root)}]
trust_level = "trusted"

[notice.model_migrations]
"{CODEX_MODEL}" = "gpt-6-sol"
""")
    elif name == "copilot":
        # Folder trust lives in config.json; repository hooks load only in a trusted folder.
        (config_dir / "config.json").write_text(json.dumps({"trustedFolders": [root]}))
    elif name == "opencode":
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": f"{mock.url}/v1", "apiKey": API_KEYS[name]},
            "models": {
                "m1": {
                    "name": "m1",
                    "limit": {"context": 100000, "output": 4096},
                    "tool_call": True,
                }
            },
        }
        config = {
            "model": "mock/m1",
            "small_model": "mock/m1",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow"},
            "provider": {"mock": provider},
        }
        (config_dir / "opencode.json").write_text(json.dumps(config))
    else:
        gemini = config_dir / ".gemini"
        gemini.mkdir(exist_ok=True)
        (gemini / "settings.json").write_text(
            json.dumps(
                {
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "privacy": {"usageStatisticsEnabled": False},
                    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                }
            )
        )
        (gemini / "trustedFolders.json").write_text(json.dumps({root: "TRUST_FOLDER"}))


def baker(
    agent: Agent,
    *args: str,
    input: str | None = None,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `baker` in the agent's environment (`env` overrides) and project."""
    return subprocess.run(
        [str(VENV_BIN / "baker"), *args],
        cwd=agent.project,
        env={**agent.env, **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def load_adapter(name: str) -> Any:
    """The adapter under test; a clear failure while it cannot load."""
    from continuity_core import adapters
    from continuity_core.errors import AdapterError

    try:
        return adapters.load(name)
    except AdapterError as e:
        pytest.fail(f"adapter {name} does not load: {e}", pytrace=False)


def wait_until(pred: Callable[[], bool], timeout: float = 30, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


def transcript_files(a: Agent) -> list[Path]:
    """Where shared/formats says each CLI writes its transcripts for `a.project`."""
    if a.name == "claude":
        slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(a.project))
        return sorted((a.config_dir / "projects" / slug).glob("*.jsonl"))
    if a.name == "codex":
        return sorted((a.config_dir / "sessions").glob("*/*/*/rollout-*.jsonl"))
    if a.name == "copilot":
        return sorted((a.config_dir / "session-state").glob("*/events.jsonl"))
    gemini = a.config_dir / ".gemini"
    registry = json.loads((gemini / "projects.json").read_text())
    slug = registry["projects"][str(a.project)]
    return sorted((gemini / "tmp" / slug / "chats").glob("session-*.jsonl"))


def session_id(a: Agent, stdout: str) -> str:
    """The session id a headless run reports on stdout (JSON result / `thread.started`)."""
    if a.name == "opencode":  # `run --format json`: every event carries the session id
        return str(json.loads(stdout.splitlines()[0])["sessionID"])
    if a.name == "copilot":  # `--output-format json`: the last event, `result`, names it
        return str(json.loads(stdout.strip().splitlines()[-1])["sessionId"])
    if a.name == "codex":
        for line in stdout.splitlines():
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("type") == "thread.started":
                return str(event["thread_id"])
        raise AssertionError(f"no thread.started event in codex output:\n{stdout[-2000:]}")
    return str(json.loads(stdout)["session_id"])


def discovered(a: Agent, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What the adapter's discovery finds for the project, with the agent's env in effect."""
    from continuity_core.config import load_config

    for var in (
        "HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "COPILOT_HOME",
        "BAKER_HOME",
    ):
        if var in a.env:
            monkeypatch.setenv(var, a.env[var])
    adapter = load_adapter(a.name)
    return list(adapter.discover(a.project, adapter.accounts(load_config())))


def newest_session(a: Agent, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The adapter's parse of the newest session it discovers for the project."""
    refs = discovered(a, monkeypatch)
    assert refs, f"{a.name} discovery found nothing for {a.project}"
    return load_adapter(a.name).read(refs[0]).session
