"""What each hook loads of the Copilot adapter: the pre-tool hook its hook module alone (no
views, no parser, no adapter), and the adapter no parser (nor its msgspec views) until a
session is read. What core itself imports is core's business."""

from __future__ import annotations

import json

from tests.copilot.helpers import PAYLOADS
from tests.helpers.child import run_python

PROBE = """
import json, sys
import {module}
{action}
print(json.dumps(sorted(m for m in sys.modules if m.startswith("continuity_copilot"))))
"""


def loaded(module: str, action: str = "") -> list[str]:
    out = run_python("-c", PROBE.format(module=module, action=action))
    names: list[str] = json.loads(out.strip().splitlines()[-1])
    return names


def test_the_pretool_hook_loads_the_hook_module_alone() -> None:
    payload = (PAYLOADS / "preToolUse.json").read_text()
    action = f"continuity_copilot.hooks.parse_hook({payload!r}.encode())"
    assert loaded("continuity_copilot.hooks", action) == [
        "continuity_copilot",
        "continuity_copilot.hooks",
    ]


def test_the_adapter_loads_its_parser_only_to_read() -> None:
    names = loaded("continuity_copilot.adapter")
    assert names == [
        "continuity_copilot",
        "continuity_copilot.adapter",
        "continuity_copilot.discovery",
        "continuity_copilot.hooks",
    ]
