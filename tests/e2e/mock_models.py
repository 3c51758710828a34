"""Loopback mocks of the three model APIs the agent CLIs call, each playing a script of turns.

A script is vendor-neutral: `Turn(calls=[shell("echo hi")])`, `Turn(calls=[write("a.txt", "x")])`,
`Turn(text="done")`, `Turn(error="usage_limit")`, `Turn(hang=True)`. Each mock renders a turn in
its vendor's wire format (what `shared/formats/*.md` recorded the real CLI to accept) and turns
the neutral calls into that agent's own tools. Main-loop requests consume the script in order;
side requests (titles, routing, next-speaker checks) get a canned answer and consume nothing.
Every request is recorded, so a test asserts what reached the model, not only exit codes.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RESET_IN_S = 3600  # when a mocked usage limit says it resets


@dataclass(frozen=True)
class Call:
    """One tool call, by intent: `shell`, `write` or `todos`; `raw` is a vendor tool verbatim."""

    kind: str
    args: dict[str, Any]


def shell(command: str) -> Call:
    return Call("shell", {"command": command})


def write(path: str, content: str) -> Call:
    """Create `path` (relative to the project) with `content`."""
    return Call("write", {"path": path, "content": content})


def todos(*items: tuple[str, str]) -> Call:
    """Set the agent's todo list / plan: (text, pending|in_progress|completed) pairs."""
    return Call("todos", {"items": list(items)})


def tool_search(query: str) -> Call:
    """Codex: search the tools it defers (an MCP server's), which the next request offers."""
    return Call("tool_search", {"query": query})


def raw(name: str, **args: Any) -> Call:
    """A tool call passed to the model's answer as is: `raw("Agent", prompt=...)`."""
    return Call("raw", {"name": name, "args": args})


@dataclass
class Turn:
    """One model response: text and/or tool calls; or an error; or no answer at all."""

    text: str = ""
    calls: list[Call] = field(default_factory=list)
    error: str | None = None  # "usage_limit" or "rate_limit": sticky, every later request fails
    hang: bool = False  # hold the request open until the mock stops (an interrupted call)
    input_tokens: int = 1000
    output_tokens: int = 20


@dataclass
class Request:
    """What the CLI sent: method, path with query, lower-cased headers, decoded JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    main: bool  # a main-loop request (consumed a turn), not a side request
    text: str = ""  # the raw body, for substring assertions


class MockModel:
    """A threaded HTTP server on 127.0.0.1 with an ephemeral port; subclasses speak a vendor.
    A compaction the CLI asks the model for (Codex's, Gemini CLI's, OpenCode's) is a side
    request answered with `compact_summary`: it consumes no turn of the script."""

    vendor = ""
    compact_summary = "MOCK: the conversation so far, summarised."

    def __init__(self, script: list[Turn] | None = None, root: Path | None = None) -> None:
        self.script: list[Turn] = list(script or [])
        self.root = root or Path.cwd()  # the project: absolute paths for tools that need them
        self.requests: list[Request] = []
        self.default = Turn(text="MOCK: nothing left in the script.")
        self._lock = threading.Condition()
        self._next = 0
        self._sticky: Turn | None = None
        self._again: Turn | None = None  # served again by the next main request
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # --- lifecycle -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockModel:
        self._thread.start()
        return self

    def again(self, turn: Turn) -> None:
        """Serve `turn` once more on the next main request (after a preparatory call)."""
        with self._lock:
            self._again = turn

    def stop(self) -> None:
        self._stopping.set()  # releases hung requests
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> MockModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what tests read -------------------------------------------------------------------

    @property
    def main_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.main]

    def played(self) -> int:
        """How many script turns have been served."""
        with self._lock:
            return self._next

    def wait_for(self, pred: Callable[[], bool], timeout: float = 30) -> bool:
        """Block until `pred()` holds (re-checked on every request) or `timeout` passes."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.5))
        return True

    def sent(self, needle: str, *, main_only: bool = True) -> list[Request]:
        """Requests whose body holds `needle` (after JSON unescaping of the body's strings)."""
        reqs = self.main_requests if main_only else list(self.requests)
        return [r for r in reqs if needle in r.text or needle in _strings(r.body)]

    # --- serving ----------------------------------------------------------------------------

    def _take(self, req: Request) -> Turn:
        with self._lock:
            self.requests.append(req)
            if self._sticky is not None:
                turn = self._sticky
            elif self._again is not None:
                turn, self._again = self._again, None
            elif self._next < len(self.script):
                turn = self.script[self._next]
                self._next += 1
                if turn.error:
                    self._sticky = turn
            else:
                turn = self.default
            self._lock.notify_all()
            return turn

    def _record_side(self, req: Request) -> None:
        with self._lock:
            self.requests.append(req)
            self._lock.notify_all()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the request log is the record

            def do_HEAD(self) -> None:  # Claude probes the base URL at start
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                mock.handle(self, "GET")

            def do_POST(self) -> None:
                mock.handle(self, "POST")

        return Handler

    def handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        data = h.rfile.read(length) if length else b""
        text = data.decode("utf-8", "replace")
        try:
            body = json.loads(text) if text else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in h.headers.items()}
        req = Request(method, h.path, headers, body, main=False, text=text)
        if not self.is_main(req):
            self._record_side(req)
            status, ctype, payload = self.side(req)
            return _send(h, status, ctype, payload)
        req.main = True
        turn = self._take(req)
        if turn.hang:
            self._stopping.wait()
            h.close_connection = True
            return None
        if turn.error:
            status, payload = self.error(turn)
            return _send(
                h,
                status,
                "application/json",
                json.dumps(payload).encode(),
                self.error_headers(turn),
            )
        return _send(h, 200, "text/event-stream", self.render(req, turn).encode())

    # --- vendor specifics -------------------------------------------------------------------

    def is_main(self, req: Request) -> bool:
        raise NotImplementedError

    def side(self, req: Request) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def render(self, req: Request, turn: Turn) -> str:
        raise NotImplementedError

    def error(self, turn: Turn) -> tuple[int, Any]:
        raise NotImplementedError

    def error_headers(self, turn: Turn) -> dict[str, str]:
        return {}


def _send(
    h: BaseHTTPRequestHandler,
    status: int,
    ctype: str,
    payload: bytes,
    headers: dict[str, str] | None = None,
) -> None:
    h.send_response(status)
    h.send_header("Content-Type", ctype)
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.send_header("Content-Length", str(len(payload)))
    if status == 429 and not any(k.lower() == "retry-after" for k in headers or {}):
        h.send_header("Retry-After", str(RESET_IN_S))
        h.send_header("x-should-retry", "false")  # the Anthropic SDK honours it: fail fast
    h.end_headers()
    h.wfile.write(payload)


def _strings(obj: Any) -> str:
    """Every string inside a JSON value, joined: finds text regardless of JSON escaping."""
    out: list[str] = []

    def walk(o: Any) -> None:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(obj)
    return "\n".join(out)


def _sse(events: Iterator[tuple[str | None, dict[str, Any]]]) -> str:
    parts = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        parts.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(parts)


def _tool_names(tools: Any) -> set[str]:
    return {
        t["name"] for t in tools or [] if isinstance(t, dict) and isinstance(t.get("name"), str)
    }


# --- Anthropic Messages API (Claude Code) ---------------------------------------------------


class AnthropicMock(MockModel):
    """`POST /v1/messages` streamed as SSE; `HEAD /` answered 200."""

    vendor = "claude"
    model = "claude-opus-4-8"

    def __init__(self, script: list[Turn] | None = None, root: Path | None = None) -> None:
        super().__init__(script, root)
        self.tasks: dict[str, str] = {}  # Task* subjects the session created -> their ids

    def is_main(self, req: Request) -> bool:
        body = req.body if isinstance(req.body, dict) else {}
        if not req.path.startswith("/v1/messages") or "count_tokens" in req.path:
            return False
        # The title request has no tools and asks for a JSON schema back.
        return bool(body.get("tools")) and not (body.get("output_config") or {}).get("format")

    def side(self, req: Request) -> tuple[int, str, bytes]:
        if "count_tokens" in req.path:
            return 200, "application/json", b'{"input_tokens": 1000}'
        if req.path.startswith("/v1/models"):
            return 200, "application/json", json.dumps({"data": [{"id": self.model}]}).encode()
        turn = Turn(text=json.dumps({"title": "E2E mock session"}))
        return 200, "text/event-stream", self.render(req, turn).encode()

    def error(self, turn: Turn) -> tuple[int, Any]:
        kind = "rate_limit_error"
        msg = "Usage limit reached" if turn.error == "usage_limit" else "Rate limited"
        return 429, {"type": "error", "error": {"type": kind, "message": msg}}

    def error_headers(self, turn: Turn) -> dict[str, str]:
        if turn.error != "usage_limit":
            return {}
        # What the real API adds; Claude Code reads the reset from them for claude.ai logins
        # only, so with an API key the transcript records a plain 429 (see formats/claude.md).
        return {
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-reset": str(int(time.time()) + RESET_IN_S),
            "anthropic-ratelimit-unified-representative-claim": "five_hour",
        }

    def blocks(self, req: Request, turn: Turn) -> list[dict[str, Any]]:
        tools = _tool_names((req.body or {}).get("tools"))
        load = self.deferred(req, turn, tools)
        if load:
            # 2.1.3xx defers the todo tools: load them with ToolSearch, then replay the turn.
            self.again(turn)
            return [
                {
                    "type": "tool_use",
                    "id": f"toolu_{uuid.uuid4().hex[:20]}",
                    "name": "ToolSearch",
                    "input": {"query": "select:" + ",".join(load)},
                }
            ]
        out: list[dict[str, Any]] = []
        if turn.text:
            out.append({"type": "text", "text": turn.text})
        for call in turn.calls:
            for name, args in self.tool(call, tools):
                out.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{uuid.uuid4().hex[:20]}",
                        "name": name,
                        "input": args,
                    }
                )
        return out

    @staticmethod
    def deferred(req: Request, turn: Turn, offered: set[str]) -> list[str]:
        """The deferred todo tools a turn needs loaded first (none when they are offered)."""
        if not any(c.kind == "todos" for c in turn.calls) or "ToolSearch" not in offered:
            return []
        if offered & {"TodoWrite", "TaskCreate"}:
            return []
        # The deferred tools are listed by name, one a line, in a system reminder.
        listed = set(re.findall(r"^([A-Z]\w+)$", _strings(req.body), re.M))
        if "TodoWrite" in listed:
            return ["TodoWrite"]
        if "TaskCreate" in listed:
            return ["TaskCreate", "TaskUpdate"]
        return []

    def tool(self, call: Call, offered: set[str]) -> list[tuple[str, dict[str, Any]]]:
        a = call.args
        if call.kind == "shell":
            return [("Bash", {"command": a["command"], "description": "Run a command"})]
        if call.kind == "write":
            return [("Write", {"file_path": str(self.root / a["path"]), "content": a["content"]})]
        if call.kind == "todos":
            if "TodoWrite" in offered or "TaskCreate" not in offered:
                return [
                    (
                        "TodoWrite",
                        {
                            "todos": [
                                {"content": t, "status": s, "activeForm": t} for t, s in a["items"]
                            ]
                        },
                    )
                ]
            # Newer builds offer Task* tools instead: a TaskCreate per new item (ids count
            # from 1 in a session), then a TaskUpdate for each item that is not pending.
            creates = []
            for t, _ in a["items"]:
                if t not in self.tasks:
                    self.tasks[t] = str(len(self.tasks) + 1)
                    creates.append(
                        ("TaskCreate", {"subject": t, "description": t, "activeForm": t})
                    )
            updates = [
                ("TaskUpdate", {"taskId": self.tasks[t], "status": s})
                for t, s in a["items"]
                if s != "pending"
            ]
            return creates + updates
        return [(a["name"], a["args"])]

    def render(self, req: Request, turn: Turn) -> str:
        blocks = self.blocks(req, turn) or [{"type": "text", "text": "OK"}]
        model = (req.body or {}).get("model") or self.model
        usage = {
            "input_tokens": turn.input_tokens,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": f"msg_{uuid.uuid4().hex[:24]}",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                },
            )
            yield "ping", {"type": "ping"}
            for i, b in enumerate(blocks):
                start: dict[str, Any]
                if b["type"] == "text":
                    start = {"type": "text", "text": ""}
                    delta = {"type": "text_delta", "text": b["text"]}
                else:
                    start = {**b, "input": {}}
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
                yield (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                )
                yield (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": delta},
                )
                yield "content_block_stop", {"type": "content_block_stop", "index": i}
            yield (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": turn.output_tokens},
                },
            )
            yield "message_stop", {"type": "message_stop"}

        return _sse(events())


# --- OpenAI Responses API (Codex) -----------------------------------------------------------


COMPACTION = "CONTEXT CHECKPOINT COMPACTION"  # in the prompt of Codex's compaction request


class ResponsesMock(MockModel):
    """`POST /v1/responses` streamed as SSE (`response.output_item.done` + `response.completed`).
    A compaction (`/compact`, or Codex's own past `model_auto_compact_token_limit`) is a side
    request."""

    vendor = "codex"

    def is_main(self, req: Request) -> bool:
        if not req.path.rstrip("/").endswith("/responses"):
            return False
        # The TUI's title thread is a separate ephemeral conversation.
        return "Generate a concise, single-line task title" not in req.text and (
            COMPACTION not in req.text
        )

    def side(self, req: Request) -> tuple[int, str, bytes]:
        if req.path.rstrip("/").endswith("/responses"):
            text = self.compact_summary if COMPACTION in req.text else "E2E mock session"
            return 200, "text/event-stream", self.render(req, Turn(text=text)).encode()
        if "/models" in req.path:
            return 200, "application/json", b'{"data": [], "models": []}'
        return 404, "application/json", b'{"error": {"message": "not mocked"}}'

    def error(self, turn: Turn) -> tuple[int, Any]:
        if turn.error == "usage_limit":
            return 429, {
                "error": {
                    "type": "usage_limit_reached",
                    "message": "The usage limit has been reached",
                    "plan_type": "plus",
                    "resets_at": int(time.time()) + RESET_IN_S,
                    "resets_in_seconds": RESET_IN_S,
                }
            }
        return 429, {"error": {"type": "rate_limit_exceeded", "message": "Rate limited"}}

    def items(self, turn: Turn) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if turn.text:
            out.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "id": f"msg_{uuid.uuid4().hex[:16]}",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                }
            )
        for call in turn.calls:
            call_id = f"call_{uuid.uuid4().hex[:16]}"
            a = call.args
            if call.kind == "write":
                lines = "".join(f"+{ln}\n" for ln in a["content"].splitlines())
                patch = f"*** Begin Patch\n*** Add File: {a['path']}\n{lines}*** End Patch"
                out.append(
                    {
                        "type": "custom_tool_call",
                        "call_id": call_id,
                        "status": "completed",
                        "name": "apply_patch",
                        "input": patch,
                    }
                )
                continue
            if call.kind == "tool_search":  # run by Codex itself ("execution": "client")
                out.append(
                    {
                        "type": "tool_search_call",
                        "call_id": call_id,
                        "status": "completed",
                        "execution": "client",
                        "arguments": {"query": a["query"], "limit": 8},
                    }
                )
                continue
            if call.kind == "shell":
                name, args = "exec_command", {"cmd": a["command"], "yield_time_ms": 10000}
            elif call.kind == "todos":
                name, args = (
                    "update_plan",
                    {"explanation": "", "plan": [{"step": t, "status": s} for t, s in a["items"]]},
                )
            else:
                name, args = a["name"], a["args"]
            item = {
                "type": "function_call",
                "call_id": call_id,
                "status": "completed",
                "name": name,
                "arguments": json.dumps(args),
            }
            if "__" in name.strip("_") and name.startswith("mcp__"):
                # A tool that tool_search found comes in its namespace: `mcp__<server>`.
                item["namespace"], _, item["name"] = name.rpartition("__")
            out.append(item)
        return out

    def render(self, req: Request, turn: Turn) -> str:
        rid = f"resp_{uuid.uuid4().hex[:16]}"
        items = self.items(turn) or [self.items(Turn(text="OK"))[0]]
        usage = {
            "input_tokens": turn.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": turn.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": turn.input_tokens + turn.output_tokens,
        }

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield (
                "response.created",
                {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
            )
            for i, item in enumerate(items):
                yield (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": i, "item": item},
                )
            yield (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {"id": rid, "status": "completed", "output": items, "usage": usage},
                },
            )

        return _sse(events())


# --- Gemini API (Gemini CLI) ----------------------------------------------------------------


# The closing words of Gemini CLI's two compression prompts (a later request's history holds
# the `<state_snapshot>` itself, these never).
COMPRESSION = ("generate the updated <state_snapshot>", "Critically evaluate the <state_snapshot>")


class GeminiMock(MockModel):
    """`:streamGenerateContent?alt=sse` (main turns) and `:generateContent` (utility calls;
    a compression's two, its summary and the check of it, get `compact_summary`)."""

    vendor = "gemini"

    def is_main(self, req: Request) -> bool:
        return ":streamGenerateContent" in req.path

    def side(self, req: Request) -> tuple[int, str, bytes]:
        if ":generateContent" in req.path and any(m in req.text for m in COMPRESSION):
            snapshot = f"<state_snapshot>\n{self.compact_summary}\n</state_snapshot>"
            body = self.response([{"text": snapshot}], Turn())
            return 200, "application/json", json.dumps(body).encode()
        if ":generateContent" in req.path:
            # One JSON text satisfies every utility schema seen: router, next speaker, title.
            answer = {
                "reasoning": "The turn is complete.",
                "next_speaker": "user",
                "complexity_reasoning": "simple",
                "complexity_score": 1,
            }
            return (
                200,
                "application/json",
                json.dumps(self.response([{"text": json.dumps(answer)}], Turn())).encode(),
            )
        if ":countTokens" in req.path:
            return 200, "application/json", b'{"totalTokens": 1000}'
        return 404, "application/json", b'{"error": {"code": 404, "message": "not mocked"}}'

    def error(self, turn: Turn) -> tuple[int, Any]:
        # A per-day quota is terminal for the CLI: it reports it instead of retrying.
        return 429, {
            "error": {
                "code": 429,
                "status": "RESOURCE_EXHAUSTED",
                "message": "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit "
                "'Gemini 2.5 Pro Requests per day per user per tier'",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [
                            {
                                "quotaMetric": "generativelanguage.googleapis.com/generate_requests",
                                "quotaId": "GenerateRequestsPerDayPerProjectPerModel",
                            }
                        ],
                    },
                    {
                        "@type": "type.googleapis.com/google.rpc.RetryInfo",
                        "retryDelay": f"{RESET_IN_S}s",
                    },
                ],
            }
        }

    def parts(self, turn: Turn) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if turn.text:
            out.append({"text": turn.text})
        for call in turn.calls:
            a = call.args
            if call.kind == "shell":
                name, args = (
                    "run_shell_command",
                    {"command": a["command"], "description": "Run a command"},
                )
            elif call.kind == "write":
                name, args = (
                    "write_file",
                    {"file_path": str(self.root / a["path"]), "content": a["content"]},
                )
            elif call.kind == "todos":
                name, args = (
                    "write_todos",
                    {"todos": [{"description": t, "status": s} for t, s in a["items"]]},
                )
            else:
                name, args = a["name"], a["args"]
            out.append({"functionCall": {"name": name, "args": args}})
        return out

    def response(self, parts: list[dict[str, Any]], turn: Turn) -> dict[str, Any]:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": turn.input_tokens,
                "candidatesTokenCount": turn.output_tokens,
                "totalTokenCount": turn.input_tokens + turn.output_tokens,
            },
            "modelVersion": "gemini-2.5-pro",
        }

    def render(self, req: Request, turn: Turn) -> str:
        parts = self.parts(turn) or [{"text": "OK"}]
        return f"data: {json.dumps(self.response(parts, turn))}\r\n\r\n"


class GeminiFallbackMock(GeminiMock):
    """A per-day quota on every request to a flash-lite model once `fail_after` turns were
    served (the failures consume no turn); other models play the script. Gemini CLI 0.61 goes
    on along the flash-lite chain (flash-lite, flash, pro) without asking: a model fallback."""

    fail_after = 1

    def _take(self, req: Request) -> Turn:
        if "flash-lite:" in req.path and self._next >= self.fail_after:
            self._record_side(req)
            return Turn(error="usage_limit")
        return super()._take(req)


# --- OpenAI chat completions (OpenCode through @ai-sdk/openai-compatible, Copilot CLI BYOK) ---


class ChatCompletionsMock(MockModel):
    """`POST /v1/chat/completions` streamed as SSE chunks, for an agent given a provider base
    URL (formats/opencode.md, formats/copilot.md). A request without tools is a side request
    (the title), one with tools a main turn. Each agent names its own tools: `tool`."""

    model = "m1"

    def is_main(self, req: Request) -> bool:
        body = req.body if isinstance(req.body, dict) else {}
        return req.path.rstrip("/").endswith("/chat/completions") and bool(body.get("tools"))

    def side(self, req: Request) -> tuple[int, str, bytes]:
        if req.path.rstrip("/").endswith("/chat/completions"):
            # OpenCode's compaction asks its summarization agent, with no tools
            said = self.compact_summary if "summarization agent" in req.text else "E2E mock title"
            return 200, "text/event-stream", self.render(req, Turn(text=said)).encode()
        if "/models" in req.path:
            listing = {"object": "list", "data": [{"id": self.model}]}
            return 200, "application/json", json.dumps(listing).encode()
        return 404, "application/json", b'{"error": {"message": "not mocked"}}'

    def error(self, turn: Turn) -> tuple[int, Any]:
        if turn.error == "usage_limit":  # as OpenAI says a spent quota: also a 429
            return 429, {
                "error": {
                    "message": "You exceeded your current quota, please check your plan and "
                    "billing details. (mock)",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            }
        return 429, {
            "error": {
                "message": "Rate limit reached for requests (mock)",
                "type": "rate_limit_error",
                "code": "rate_limit_exceeded",
            }
        }

    def tool(self, kind: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The agent's own tool name and arguments for a scripted call of `kind`."""
        return args["name"], args["args"]

    def render(self, req: Request, turn: Turn) -> str:
        body = req.body if isinstance(req.body, dict) else {}
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
        }
        calls = [self.tool(call.kind, call.args) for call in turn.calls]
        # As the real API streams it: no text beside tool calls is `null`, not "".
        delta: dict[str, Any] = {
            "role": "assistant",
            "content": turn.text or (None if calls else "OK"),
        }
        if calls:
            delta["tool_calls"] = [
                {
                    "index": i,
                    "id": f"call_{uuid.uuid4().hex[:16]}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(calls)
            ]
        usage = {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens,
        }
        chunks: list[dict[str, Any]] = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                **base,
                "choices": [
                    {"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}
                ],
            },
            {**base, "choices": [], "usage": usage},
        ]
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


class OpenCodeMock(ChatCompletionsMock):
    """OpenCode's tools: bash, write, todowrite."""

    vendor = "opencode"

    def error_headers(self, turn: Turn) -> dict[str, str]:
        # OpenCode 1.18.33 waits out any retry-after (an hour, if told so); with 1 s it tries
        # six times (about 9 s) and then gives the turn up (formats/opencode.md).
        return {"Retry-After": "1"}

    def tool(self, kind: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if kind == "shell":
            return "bash", {"command": args["command"], "description": "Run it"}
        if kind == "write":
            return "write", {"filePath": str(self.root / args["path"]), "content": args["content"]}
        if kind == "todos":
            items = [{"content": t, "status": s, "priority": "medium"} for t, s in args["items"]]
            return "todowrite", {"todos": items}
        return super().tool(kind, args)


class CopilotMock(ChatCompletionsMock):
    """Copilot CLI's tools: bash, create, and `sql` on its own todo database."""

    vendor = "copilot"
    model = "gpt-4.1"

    def error_headers(self, turn: Turn) -> dict[str, str]:
        return {"Retry-After": "1"}  # Copilot retries five times, honouring it

    def tool(self, kind: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if kind == "shell":
            return "bash", {"command": args["command"], "description": "Run a command"}
        if kind == "write":
            return "create", {"path": str(self.root / args["path"]), "file_text": args["content"]}
        if kind == "todos":
            status = {"completed": "done"}
            rows = ", ".join(
                f"('t{i}', '{t}', '', '{status.get(s, s)}')"
                for i, (t, s) in enumerate(args["items"], 1)
            )
            # the model's query, which Copilot runs on its own todo database
            query = f"INSERT INTO todos (id, title, description, status) VALUES {rows}"  # noqa: S608
            return "sql", {"description": "Insert todos", "query": query}
        return super().tool(kind, args)


MOCKS: dict[str, type[MockModel]] = {
    "claude": AnthropicMock,
    "codex": ResponsesMock,
    "gemini": GeminiMock,
    "opencode": OpenCodeMock,
    "copilot": CopilotMock,
}
