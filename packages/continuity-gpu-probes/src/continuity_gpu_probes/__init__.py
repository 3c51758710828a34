"""Continuity GPU probes: GPU liveness by a real compute operation in each interpreter.

A presence check (`torch.cuda.is_available()`) says a driver answered, not that a kernel
runs; a wedged or fallen-off GPU passes it. So each configured interpreter allocates a tensor
on the device, computes with it and synchronizes, under a timeout. Verdicts: live, dead (with
the error), no torch, no device, timed out.

`.baker/probes.json`:

    {"gpu": {"interpreters": ["/workspace/venvs/train/bin/python"], "device": "cuda",
             "timeout_s": 30}}

Without `interpreters`, the project's own virtual environments are probed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from continuity_core.probes import refused, run_all, run_command, tail
from continuity_core.redact import redact
from continuity_core.schemas.probe import ProbeContext, ProbeResult, ProbeState

__all__ = ["SCRIPT", "GpuProbe"]

DEFAULT_TIMEOUT_S = 30.0
MARKER = "BAKER_GPU "
_DEVICE = re.compile(r"^(cuda|xpu|mps)(:\d{1,3})?$")

# Runs inside the probed interpreter (any Python 3 with or without torch); prints one marker
# line. The compute is the verdict; device_count is read only to name a failure.
SCRIPT = r"""
import json, sys, time
def say(verdict, **kw):
    print("BAKER_GPU " + json.dumps(dict(verdict=verdict, **kw)), flush=True)
try:
    import torch
except Exception as e:
    say("no torch", error=f"{type(e).__name__}: {e}")
    sys.exit(0)
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
start = time.monotonic()
try:
    x = torch.randn(4, 4).to(device)
    y = (x @ x).sum()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    float(y.item())  # reading the result back is a second synchronization
except Exception as e:
    error = f"{type(e).__name__}: {e}".strip().splitlines()[0][:500]
    try:
        count = torch.cuda.device_count() if device.startswith("cuda") else None
    except Exception:
        count = None
    text = error.lower()
    absent = count == 0 or any(s in text for s in (
        "no nvidia driver", "no cuda gpus", "not compiled with cuda", "torch not compiled",
        "found no nvidia", "no xpu", "mps backend is not available"))
    say("no device" if absent else "dead", error=error, torch=getattr(torch, "__version__", "?"))
    sys.exit(0)
name = device
try:
    if device.startswith("cuda"):
        name = torch.cuda.get_device_name(torch.device(device))
except Exception:
    pass
say("live", device=name, torch=getattr(torch, "__version__", "?"),
    ms=round((time.monotonic() - start) * 1000, 1))
"""

_STATE: dict[str, Any] = {
    "live": "ok",
    "dead": "fail",
    "no device": "fail",
    "no torch": "warn",
    "timed out": "timeout",
}


class GpuProbe:
    """The `gpu` probe of the `continuity_core.probes` entry point group."""

    name = "gpu"

    def run(self, ctx: ProbeContext) -> list[ProbeResult]:
        config = ctx.config
        device = config.get("device", "cuda")
        if not isinstance(device, str) or not _DEVICE.match(device):
            return [
                _gpu(
                    "gpu",
                    "error",
                    f"invalid device {redact(repr(device))[:40]}; use cuda, cuda:N, xpu or mps",
                )
            ]
        timeout = config.get("timeout_s", DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            return [_gpu("gpu", "error", "timeout_s must be a positive number of seconds")]
        timeout = min(float(timeout), ctx.timeout_s)
        raw = config.get("interpreters")
        results: list[ProbeResult] = []
        interpreters: list[str] = []
        if raw is None:
            interpreters = list(ctx.interpreters)
        elif isinstance(raw, list):
            for i, value in enumerate(raw):
                if isinstance(value, str) and value.strip() and "\x00" not in value:
                    interpreters.append(value)
                else:
                    results.append(_gpu(f"gpu.interpreters[{i}]", "error", "must be a path"))
        else:
            return [_gpu("gpu", "error", "interpreters must be a list of paths")]
        if not interpreters and not results:
            return [
                _gpu(
                    "gpu",
                    "skipped",
                    "no interpreter to probe: list them under "
                    "gpu.interpreters in .baker/probes.json",
                )
            ]
        tasks = [lambda p=p: self.probe(ctx.root, p, device, timeout) for p in interpreters]
        for path, result in zip(interpreters, run_all(tasks, timeout + 1.0), strict=True):
            if isinstance(result, ProbeResult):
                results.append(result)
            else:
                results.append(
                    _gpu(
                        path,
                        "timeout" if result is None else "error",
                        "timed out" if result is None else redact(str(result)),
                        verdict="timed out" if result is None else None,
                    )
                )
        return results

    def probe(self, root: Path, interpreter: str, device: str, timeout_s: float) -> ProbeResult:
        """One interpreter: run the compute in it and classify what came back."""
        python = Path(os.path.expanduser(interpreter))
        python = python if python.is_absolute() else root / python
        if not python.exists():
            return _gpu(interpreter, "fail", f"interpreter {python} does not exist", verdict="dead")
        why = refused(root, python)
        if why is not None:  # the folder's own code: never run (docs/security.md)
            return _gpu(
                interpreter, "error", f"interpreter {python}: {why}, so not run", verdict="not run"
            )
        try:
            ran = run_command([str(python), "-c", SCRIPT, device], cwd=root, timeout_s=timeout_s)
        except OSError as e:
            return _gpu(interpreter, "fail", f"cannot run {python}: {e.strerror}", verdict="dead")
        elapsed = round(ran.elapsed_s, 3)
        if ran.returncode is None:
            return _gpu(
                interpreter,
                "timeout",
                f"timed out: no answer from {device} within {timeout_s:g}s (killed)",
                verdict="timed out",
                elapsed_s=elapsed,
            )
        found = _marker(ran.out)
        if found is None:
            why = tail(ran.err) or tail(ran.out) or "no output"
            return _gpu(
                interpreter,
                "fail",
                f"dead: the probe exited {ran.returncode}: {why}",
                verdict="dead",
                elapsed_s=elapsed,
            )
        verdict = found.get("verdict")
        if verdict not in _STATE:
            return _gpu(
                interpreter,
                "error",
                f"unexpected probe answer {redact(str(verdict))[:60]}",
                elapsed_s=elapsed,
            )
        return _gpu(
            interpreter,
            _STATE[verdict],
            redact(_describe(verdict, found, device)),
            verdict=verdict,
            elapsed_s=elapsed,
        )


def _gpu(name: str, state: ProbeState, detail: str, **more: Any) -> ProbeResult:
    return ProbeResult(name=name, state=state, kind="gpu", detail=detail, **more)


def _marker(out: str) -> dict[str, Any] | None:
    for line in reversed(out.splitlines()):
        if line.startswith(MARKER):
            try:
                value = json.loads(line[len(MARKER) :])
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _describe(verdict: str, found: dict[str, Any], device: str) -> str:
    torch = f"torch {found.get('torch')}" if found.get("torch") else ""
    if verdict == "live":
        return (
            f"live: {found.get('device') or device} computed in {found.get('ms', '?')} ms ({torch})"
        )
    if verdict == "no torch":
        return f"no torch: {found.get('error', 'torch is not importable')}"
    what = "no device" if verdict == "no device" else "dead"
    return f"{what}: {found.get('error', '?')}" + (f" ({torch})" if torch else "")
