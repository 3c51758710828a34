"""How long Gemini CLI keeps sessions: `general.sessionRetention` in the account's
settings.json (on by default, `maxAge` "30d"; `enabled: false` keeps them forever)."""

from __future__ import annotations

import re

from continuity_core.adapters import Account, kit

DEFAULT_DAYS = 30.0
_AGE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([hdwm]?)\s*")
_SCALE = {"h": 1 / 24, "d": 1.0, "w": 7.0, "m": 30.0, "": 1.0}


class Retention:
    """The RetentionPolicy ability of the Gemini adapter."""

    def retention_days(self, account: Account) -> tuple[float | None, str]:
        from pathlib import Path  # not at the top: the Stop hook's checkpoint imports this module

        home = Path(account.dir)
        for path in (home / "settings.json", home / ".gemini" / "settings.json"):
            if path.exists():
                break
        general = kit.json_object(path).get("general")
        policy = general.get("sessionRetention", {}) if isinstance(general, dict) else {}
        policy = policy if isinstance(policy, dict) else {}
        if policy.get("enabled", True) is False:
            return None, str(path)
        m = _AGE.fullmatch(str(policy.get("maxAge", "30d")))
        if not m:
            return DEFAULT_DAYS, str(path)
        return float(m.group(1)) * _SCALE[m.group(2)], str(path)
