"""How long Claude Code keeps transcripts: `cleanupPeriodDays` in the account's settings.json
(30 unless set; Claude Code deletes older transcripts at start-up)."""

from __future__ import annotations

from continuity_core.adapters import Account, kit

DEFAULT_DAYS = 30


class Retention:
    """The RetentionPolicy ability of the Claude adapter."""

    def retention_days(self, account: Account) -> tuple[float | None, str]:
        from pathlib import Path  # not on a hook's path

        path = Path(account.dir) / "settings.json"
        days = kit.json_object(path).get("cleanupPeriodDays", DEFAULT_DAYS)
        if isinstance(days, int | float) and not isinstance(days, bool):
            return float(days), str(path)
        return float(DEFAULT_DAYS), str(path)
