// baker: Continuity's OpenCode plugin. Installed by `baker init`/`sync`/`global sync`;
// `baker uninstall` removes it. It needs no npm package (OpenCode may load it offline) and
// does nothing where `baker` is not on PATH. What baker prints is data for the model, never
// run: it goes only into the system prompt or after a tool's output.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const AGENT = "opencode";
const PICKUP_MS = 8000;
const PRETOOL_MS = 3000;
// OpenCode waits out a provider's retry-after (an hour, if it says so): a wait this long is a
// limit baker records, so `baker run` can move on.
const LIMIT_WAIT_MS = 60000;

function findBaker() {
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!dir) continue;
    for (const name of process.platform === "win32" ? ["baker.exe", "baker.cmd"] : ["baker"]) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {}
    }
  }
  return null;
}

// `baker COMMAND --agent opencode` with the payload on stdin; resolves to its stdout ("" on
// any failure or past `ms`). With `wait` false the hook goes on by itself (a checkpoint must
// not hold OpenCode, and finishes after `opencode run` exits).
function baker(exe, command, payload, cwd, wait, ms) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(exe, [command, "--agent", AGENT], {
        cwd,
        detached: !wait,
        stdio: ["pipe", wait ? "pipe" : "ignore", "ignore"],
        env: process.env,
      });
    } catch {
      resolve("");
      return;
    }
    child.on("error", () => resolve(""));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ agent: AGENT, ...payload }));
    if (!wait) {
      child.unref();
      resolve("");
      return;
    }
    let out = "";
    const timer = setTimeout(() => {
      try { child.kill(); } catch {}
      resolve("");
    }, ms);
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("close", () => { clearTimeout(timer); resolve(out); });
  });
}

function context(out) {
  try {
    const value = JSON.parse(out);
    return typeof value?.context === "string" ? value.context : "";
  } catch {
    return "";
  }
}

export const BakerContinuity = async ({ directory, worktree }) => {
  const exe = findBaker();
  if (!exe) return {};
  const cwd = directory || worktree || process.cwd();
  const pickups = new Map(); // session id -> Promise of its pickup context
  const traps = new Map(); // tool call id -> traps to show after its output
  const subagents = new Set(); // sessions a `task` started: their parent had the pickup
  const hook = (name, sessionID, extra) => ({ hook_event_name: name, session_id: sessionID, cwd, ...extra });
  return {
    event: async ({ event }) => {
      const props = event?.properties ?? {};
      if (event?.type === "session.created" && props.info?.parentID) {
        subagents.add(props.info.id);
      } else if (event?.type === "session.idle" && props.sessionID) {
        await baker(exe, "checkpoint", hook("session.idle", props.sessionID, {}), cwd, false);
      } else if (event?.type === "session.error") {
        await baker(exe, "checkpoint", hook("session.error", props.sessionID, { error: props.error ?? null }), cwd, false);
      } else if (event?.type === "session.status" && props.status?.type === "retry" && props.sessionID) {
        if (Number(props.status.next) - Date.now() >= LIMIT_WAIT_MS) {
          await baker(exe, "checkpoint", hook("session.retry", props.sessionID, { retry: props.status }), cwd, false);
        }
      } else if (event?.type === "session.compacted" && props.sessionID) {
        await baker(exe, "checkpoint", hook("session.compacted", props.sessionID, {}), cwd, false);
        // From now on the system prompt carries what the summary dropped: the pickup of a
        // session just compacted (its last request before it, the commands that failed); the
        // earlier pickup stays where this one brings nothing.
        if (!subagents.has(props.sessionID)) {
          const compacted = hook("session.start", props.sessionID, { source: "compact" });
          const earlier = pickups.get(props.sessionID) ?? Promise.resolve("");
          const text = baker(exe, "pickup", compacted, cwd, true, PICKUP_MS).then(context);
          pickups.set(props.sessionID, text.then((t) => t || earlier));
        }
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input?.sessionID;
      if (!id || subagents.has(id)) return;
      if (!pickups.has(id)) {
        pickups.set(id, baker(exe, "pickup", hook("session.start", id, {}), cwd, true, PICKUP_MS).then(context));
      }
      const text = await pickups.get(id);
      if (text) output.system.push(text);
    },
    "tool.execute.before": async (input, output) => {
      const out = await baker(
        exe,
        "pretool",
        hook("tool.execute.before", input?.sessionID, { tool: input?.tool, call_id: input?.callID, args: output?.args ?? {} }),
        cwd,
        true,
        PRETOOL_MS,
      );
      const text = context(out);
      if (text && input?.callID) traps.set(input.callID, text);
    },
    "tool.execute.after": async (input, output) => {
      const text = input?.callID ? traps.get(input.callID) : undefined;
      if (!text) return;
      traps.delete(input.callID);
      if (typeof output?.output === "string") output.output += `\n\n${text}`;
    },
  };
};
