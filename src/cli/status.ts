/**
 * `hob status`: one view of the whole assistant. A translator: the app's
 * status action (src/app/status.ts), printed as text or JSON.
 */

import type { HobStatus } from "../app/status.ts";
import { showSize } from "../app/sizes.ts";
import { showTime } from "../app/times.ts";
import { type Command, EXIT, type ParsedArgs } from "./command.ts";
import { existingHome, openHome } from "./open.ts";
import { runningServer, seenBy } from "./running.ts";
import { dim, green, out, outJson, red } from "./output.ts";

export const status: Command = {
  name: "status",
  summary: "Show the server, model, jobs, heartbeat, tasks, workers, memory, backups",
  help: `Usage: hob status [--json] [--home DIR]

One view of hob: whether 'hob serve' runs, whether the model's provider
answers, scheduled jobs (next runs, failures, missed runs), the heartbeat
(last and next tick), tasks by state and who holds them, live workers, the
memory index, the database and the backups (schedule, last made, last failure).

Options:
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { json: { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    const home = await existingHome(parsed);
    // A running server knows all of it already: asking takes a request, opening the home a load.
    const server = await runningServer(home);
    const asked = await server?.get<HobStatus>("/api/status");
    const report = asked ?? await collectHere(parsed);
    if (parsed.values.json) outJson(report);
    else out(`${render(report)}${asked ? dim(seenBy(server!)) : ""}`);
    return EXIT.ok;
  },
};

/** The status, from the home opened by this process. */
async function collectHere(parsed: ParsedArgs): Promise<HobStatus> {
  const hob = await openHome(parsed);
  try {
    return await hob.app.status.collect();
  } finally {
    await hob.close();
  }
}

function render(s: HobStatus): string {
  const ok = (yes: boolean, text: string) => yes ? green(text) : red(text);
  const at = (iso: string | null) => showTime(iso, { seconds: true });
  const lines: string[] = [];
  lines.push(`${dim("home")}       ${s.home}`);
  lines.push(
    `${dim("server")}     ${
      s.server.running ? green(`running at ${s.server.url}`) : `not running (${s.server.url})`
    }`,
  );
  const model = (label: string, m: HobStatus["model"]) =>
    `${dim(label)}${m.id} — ${
      ok(
        m.reachable,
        m.reachable ? `${m.provider} reachable` : `${m.provider} unreachable: ${m.error}`,
      )
    }`;
  lines.push(model("model      ", s.model));
  if (s.heartbeat_model) lines.push(model("hb model   ", s.heartbeat_model));

  const j = s.jobs;
  lines.push(
    `${dim("jobs")}       ${j.total} (${j.enabled} enabled)${
      j.next ? `, next '${j.next.name}' at ${at(j.next.at)}` : ""
    }`,
  );
  for (const f of j.failing) {
    lines.push(red(`             '${f.name}' failed at ${at(f.at)}: ${f.error}`));
  }
  for (const m of j.missed) {
    lines.push(
      `             '${m.name}' missed ${m.runs} run(s) while hob was down (noticed ${
        at(m.last_noticed)
      })`,
    );
  }

  const h = s.heartbeat;
  lines.push(
    `${dim("heartbeat")}  ${h.enabled ? `every ${h.interval_minutes} min` : "off"}${
      heartbeatState(h)
    }${h.enabled && h.next_tick ? `, next ${at(h.next_tick)}` : ""}`,
  );

  const c = s.tasks.counts;
  lines.push(
    `${
      dim("tasks")
    }      ${c.pending} pending · ${c.in_progress} in progress · ${c.waiting} waiting · ${c.complete} complete · ${c.failed} failed · ${c.cancelled} cancelled`,
  );
  for (const t of s.tasks.held) {
    lines.push(
      `             #${t.id} ${t.title} — ${t.status}, held by ${
        t.worker.split("/")[0].split(":")[0]
      } since ${at(t.since)}`,
    );
  }
  lines.push(
    `${dim("workers")}    ${s.workers.length} alive${
      s.workers.length
        ? ` (${
          s.workers.map((w) => `${w.kind} pid ${w.pid}${w.task_id ? ` on #${w.task_id}` : ""}`)
            .join(", ")
        })`
        : ""
    }`,
  );
  lines.push(`${dim("notices")}    ${s.notifications.unread} unread`);
  lines.push(
    `${
      dim("memory")
    }     ${s.memory.files} files, ${s.memory.chunks} chunks, ${s.memory.vectors} vectors (${
      s.memory.embedder ?? "keyword search only"
    })${s.memory.pending ? `, ${s.memory.pending} waiting for vectors` : ""}`,
  );
  lines.push(
    `${dim("database")}   ${(s.database.bytes / 1_048_576).toFixed(1)} MiB ${dim(s.database.path)}`,
  );
  if (s.backup) lines.push(backupLine(s.backup, at));
  lines.push(...channelLines(s.channels ?? [], at), ...mcpLines(s.mcp));
  if (s.voice) lines.push(voiceLine(s.voice));
  return lines.join("\n") + "\n";
}

/** One line: the backup schedule, the last backup made and the last one that failed since. */
function backupLine(b: HobStatus["backup"], at: (iso: string | null) => string): string {
  const schedule = b.every
    ? `every ${b.every}, keep ${b.keep}${b.next ? `, next ${at(b.next)}` : ""}`
    : "not scheduled";
  const made = b.last_ok
    ? `, last ${at(b.last_ok.at)} ${showSize(b.last_ok.bytes ?? 0)} ${dim(b.last_ok.file ?? "")}`
    : ", none made yet";
  const failed = b.last && !b.last.ok ? red(` — failed ${at(b.last.at)}: ${b.last.error}`) : "";
  return `${dim("backups")}    ${schedule}${made}${failed}`;
}

/** How the heartbeat last went: its last tick that ran, and why the latest did nothing, if it did. */
function heartbeatState(h: HobStatus["heartbeat"]): string {
  const at = (iso: string) => showTime(iso, { seconds: true });
  const idle = h.last_status === "empty_checklist"
    ? "HEARTBEAT.md has nothing to check, so no model calls"
    : h.last_status === "outside_hours"
    ? "outside its active hours"
    : h.last_status === "paused"
    ? red(`paused: ${h.last_error}`)
    : undefined;
  if (idle) return `${h.last_tick ? `, last ran ${at(h.last_tick)}` : ""}, idle: ${idle}`;
  if (!h.last_tick) return ", not yet ticked";
  return `, last ${at(h.last_tick)} ${
    h.last_status === "error" ? red(`error: ${h.last_error}`) : h.last_status
  }`;
}

/** One line: what hob hears and speaks with, and whether it can read video. */
function voiceLine(voice: HobStatus["voice"]): string {
  const hears = voice.transcribe.available ? `hears by ${voice.transcribe.by}` : "hears nothing";
  const speaks = voice.speak.available
    ? `speaks by ${voice.speak.by}`
    : "speaks only in the page (the browser's voice)";
  const video = voice.video.available ? "video frames by ffmpeg" : "no video (no ffmpeg)";
  return `${dim("voice")}      ${hears} · ${speaks} · ${video}`;
}

/** A line per channel: its account, its state, when it last heard and spoke, its last error. */
function channelLines(channels: HobStatus["channels"], at: (iso: string | null) => string) {
  const lines: string[] = [];
  for (const channel of channels) {
    const seen = [
      channel.last_inbound ? `in ${at(channel.last_inbound)}` : "",
      channel.last_outbound ? `out ${at(channel.last_outbound)}` : "",
      channel.restarts ? `${channel.restarts} restart(s)` : "",
    ].filter(Boolean).join(", ");
    lines.push(
      `${dim("channel")}    ${channel.name}${channel.account ? ` ${channel.account}` : ""}: ${
        channel.state === "connected"
          ? green("connected")
          : channel.state === "retrying"
          ? red("retrying")
          : channel.state
      }${seen ? ` (${seen})` : ""}${
        channel.last_error && channel.state !== "connected" ? red(` — ${channel.last_error}`) : ""
      }`,
    );
  }
  return lines;
}

/**
 * A line per MCP server: connected with its tools, or why not — and, when
 * tools wait for the owner's approval (not offered to models until then),
 * how many and the command that shows and approves them.
 */
function mcpLines(servers: HobStatus["mcp"]): string[] {
  const lines: string[] = [];
  for (const server of servers) {
    const { pending } = server;
    const waiting = pending.length
      ? red(
        `, ${pending.length} waiting for your approval (not offered) — 'hob mcp approve ${server.name}'`,
      )
      : "";
    lines.push(
      `${dim("mcp")}        ${server.name}: ${
        server.state === "connected" ? `connected, ${server.tools.length} tools` : server.state
      }${waiting}${server.error ? ` — ${server.error}` : ""}`,
    );
  }
  return lines;
}
