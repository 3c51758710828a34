from __future__ import annotations

from pathlib import Path

import pytest

from continuity_core.config import config_path, load_config
from continuity_core.errors import ConfigError
from tests.helpers.config import write_config


def test_missing_config_is_defaults(isolated_home: Path) -> None:
    assert config_path() == str(isolated_home / ".baker" / "config.toml")
    cfg = load_config()
    assert cfg.transcripts == {} and cfg.brief.budget_tokens == 8000


def test_typo_names_key_and_file(isolated_home: Path) -> None:
    write_config(isolated_home, '[usage]\nprepar = "50%"\n')
    with pytest.raises(ConfigError) as e:
        load_config()
    said = str(e.value)
    assert "prepar" in said and "~/.baker/config.toml" in said and "[usage]" in said


def test_transcripts_are_keyed_by_any_adapter_name(isolated_home: Path) -> None:
    write_config(isolated_home, '[transcripts]\nclaude = ["~/.claude"]\nfake = ["~/.fake-agent"]\n')
    assert load_config().transcripts == {"claude": ["~/.claude"], "fake": ["~/.fake-agent"]}


def test_invalid_toml(isolated_home: Path) -> None:
    write_config(isolated_home, "[transcripts\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config()


def test_accounts_and_kebab_keys(isolated_home: Path) -> None:
    write_config(
        isolated_home,
        '[accounts.work]\nagent = "claude"\ndir = "~/.claude-work"\n[brief]\nbudget-tokens = 4000\n',
    )
    cfg = load_config()
    assert cfg.accounts["work"].dir == "~/.claude-work" and cfg.brief.budget_tokens == 4000


@pytest.mark.parametrize("folder", ["codex-work", "./codex-work", "$HOME/codex-work", ""])
def test_an_account_dir_must_not_depend_on_the_current_folder(
    isolated_home: Path, folder: str
) -> None:
    """A relative `dir` would be read from whatever folder baker or a hook runs in (a cloned
    repository's, for the hooks): refused, naming the account and the line."""
    write_config(
        isolated_home,
        f'[machine]\nname = "m"\n\n[accounts.work]\nagent = "codex"\ndir = "{folder}"\n',
    )
    with pytest.raises(ConfigError) as e:
        load_config()
    assert (
        f"line 6: [accounts.work] dir = {folder!r} must be an absolute path or start with ~"
        in str(e.value)
    )


def test_a_transcripts_folder_must_not_depend_on_the_current_folder(isolated_home: Path) -> None:
    write_config(
        isolated_home, '[transcripts]\nclaude = ["~/.claude"]\ncodex = ["/abs", "codex-copy"]\n'
    )
    with pytest.raises(ConfigError) as e:
        load_config()
    assert (
        "line 3: [transcripts] codex holds 'codex-copy', which must be an absolute path "
        "or start with ~" in str(e.value)
    )


def test_the_config_is_read_once_until_it_changes(isolated_home: Path) -> None:
    """Every hook and command asks for the config; the file is parsed once per process, and
    again only when it was written since (a command that edits it reads its own edit)."""
    path = Path(config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[accounts.work]\nagent = "claude"\ndir = "~/.claude-work"\n')
    first = load_config()
    assert load_config() is first and first.accounts["work"].dir == "~/.claude-work"
    path.write_text('[accounts.work]\nagent = "claude"\ndir = "~/.claude-other"\n')
    assert load_config().accounts["work"].dir == "~/.claude-other"
    path.unlink()
    assert load_config().accounts == {}
