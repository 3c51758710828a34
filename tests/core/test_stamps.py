"""The one place timestamps and time-sorted ids are formatted."""

from __future__ import annotations

import datetime as dt
import re

from continuity_core import stamps


def test_iso_of_an_epoch_and_of_datetimes() -> None:
    assert stamps.iso(0) == "1970-01-01T00:00:00Z"
    plus_two = dt.timezone(dt.timedelta(hours=2))
    assert (
        stamps.iso(dt.datetime(2026, 12, 1, 6, 5, 4, 999, tzinfo=plus_two))
        == "2026-12-01T04:05:04Z"
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamps.now_iso())


def test_stamps_and_ids_sort_by_time() -> None:
    assert re.fullmatch(r"\d{8}T\d{12}Z", stamps.stamp())
    assert re.fullmatch(r"\d{8}T\d{9}Z", stamps.stamp("ms"))
    assert re.fullmatch(r"\d{8}T\d{6}Z", stamps.stamp("s"))
    first, second = stamps.new_id(), stamps.new_id()
    assert re.fullmatch(r"\d{8}T\d{12}Z-[0-9a-f]{6}", first) and first != second
    assert re.fullmatch(r"\d{8}T\d{9}Z-[0-9a-f]{6}", stamps.new_id("ms"))
