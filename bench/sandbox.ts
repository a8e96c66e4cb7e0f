/**
 * `deno task bench:sandbox`: what moving code hob did not write out of hob's
 * process costs per call. In one run, side by side, the latency of a sandboxed
 * no-op call (median and p90 over N calls):
 *
 * - **Worker** (before): a Deno Worker inside hob — the path hob's built-in
 *   tools still take, and the one run_code and user tools took before (the
 *   no-op is get_time);
 * - **process, tool in a Worker** (what hob starts from source): `deno run`
 *   of the tool process, the tool in a Worker with exactly its permissions, for
 *   run_code (`export default 1`) and for a no-op user tool;
 * - **process, `--allow-*` flags**: the tool on the process's main thread, its
 *   permissions as flags (what hob started from source before; it cannot see
 *   hob go while the tool loops, nor count buffers);
 * - **process, `hob __sandbox`**: the compiled-hob way (a Worker inside hob
 *   itself), here run from source, so it loads all of hob's modules;
 * - **floor**: an empty `deno run`, measured in the same run.
 *
 * Cold is back to back with nothing started ahead; warm leaves time between
 * calls (as a model thinking does) for the next sandbox to be started ahead.
 * Ratios are to the floor's median. Also the memory of one waiting process.
 *
 * ```sh
 * deno task bench:sandbox [--calls 20]
 * ```
 */

import { Buffer } from "node:buffer";
import { parseArgs } from "node:util";
import { HOB_FLAGS } from "../tests/helpers/hob_process.ts";
import { SANDBOX_ENTRIES } from "../src/builtins/sandbox_entries.ts";
import { type Launcher, ProcessSandbox } from "../src/sandbox/process.ts";
import type { SandboxContext, ToSandbox } from "../src/sandbox/protocol.ts";
import { NO_PERMISSIONS } from "../src/sandbox/permissions.ts";
import { type ExchangeResult, ToolSpawner } from "../src/sandbox/spawner.ts";
import { ms, percentile } from "./stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** Time between warm calls: enough for the next sandbox to be started and ready. */
const THINK_MS = 1_500;

/** One row of figures. */
interface Row {
  name: string;
  cold: number[];
  warm: number[];
}

const CONTEXT: SandboxContext = {
  conversation_id: "",
  now: new Date().toISOString(),
  workspace: "/tmp",
  roots: ["/tmp"],
  home: "/tmp",
  settings: {},
  max_output_chars: 10_000,
};

const NO_OP_TOOL = `export default {
  name: "noop", description: "does nothing", category: "bench", side_effect: "none",
  parameters: { type: "object", properties: {} },
  run() { return "ok"; },
};`;

const MESSAGES: Record<string, ToSandbox> = {
  getTime: {
    type: "call",
    tool: { kind: "builtin", name: "get_time" },
    args: {},
    context: CONTEXT,
  },
  runCode: {
    type: "call",
    tool: { kind: "builtin", name: "run_code" },
    args: { code: "export default 1", language: "typescript" },
    context: CONTEXT,
  },
  userTool: {
    type: "call",
    tool: {
      kind: "source",
      url: `data:application/typescript;base64,${Buffer.from(NO_OP_TOOL).toString("base64")}`,
    },
    args: {},
    context: CONTEXT,
  },
};

type Exchange = (message: ToSandbox) => Promise<ExchangeResult>;

/** Times `calls` exchanges, `gapMs` apart (outside the timing). */
async function timeCalls(
  exchange: Exchange,
  message: ToSandbox,
  calls: number,
  gapMs: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    if (gapMs > 0) await sleep(gapMs);
    const started = performance.now();
    const outcome = await exchange(message);
    times.push(performance.now() - started);
    if (!outcome.ok) throw new Error(`the no-op failed: ${outcome.error}`);
  }
  return times;
}

/** The Worker path, through ToolSpawner as hob uses it. */
async function measureWorker(calls: number): Promise<Row> {
  const timed = async (maxWarm: number, gapMs: number) => {
    const spawner = new ToolSpawner({ entries: SANDBOX_ENTRIES, maxWarm });
    try {
      const exchange: Exchange = (message) =>
        spawner.exchange(NO_PERMISSIONS, message, { timeoutMs: 60_000 });
      await timeCalls(exchange, MESSAGES.getTime, 2, gapMs); // compile the modules once
      return await timeCalls(exchange, MESSAGES.getTime, calls, gapMs);
    } finally {
      spawner.close();
    }
  };
  return {
    name: "Worker (before): get_time",
    cold: await timed(0, 0),
    warm: await timed(4, THINK_MS),
  };
}

/** The tool process path for one message. */
async function measureProcess(
  name: string,
  message: ToSandbox,
  calls: number,
  launcher: Launcher,
): Promise<Row> {
  const hob = [
    Deno.execPath(),
    "run",
    ...HOB_FLAGS,
    "--config",
    `${ROOT}deno.json`,
    `${ROOT}main.ts`,
  ];
  const timed = async (maxWarm: number, gapMs: number) => {
    const processes = new ProcessSandbox({
      entry: SANDBOX_ENTRIES.process,
      maxWarm,
      launcher,
      hob,
    });
    try {
      const exchange: Exchange = (m) =>
        processes.exchange(NO_PERMISSIONS, m, { timeoutMs: 60_000 });
      await timeCalls(exchange, message, 2, gapMs);
      return await timeCalls(exchange, message, calls, gapMs);
    } finally {
      processes.close();
    }
  };
  return { name, cold: await timed(0, 0), warm: await timed(2, THINK_MS) };
}

/** An empty `deno run`: the least any process can cost. */
async function measureFloor(calls: number): Promise<number[]> {
  const dir = await Deno.makeTempDir({ prefix: "hob-bench-floor-" });
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  try {
    const times: number[] = [];
    for (let i = 0; i < calls + 2; i++) {
      const started = performance.now();
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", "--quiet", empty],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      if (!output.success) throw new Error("an empty deno run failed");
      if (i >= 2) times.push(performance.now() - started);
    }
    return times;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The resident memory of a tool process waiting for its call, in MB. */
async function waitingProcessMb(): Promise<number> {
  const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process });
  try {
    await processes.exchange(NO_PERMISSIONS, MESSAGES.runCode, { timeoutMs: 60_000 });
    await sleep(THINK_MS);
    const [pid] = processes.waiting();
    const output = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] })
      .output();
    return Number(new TextDecoder().decode(output.stdout).trim()) / 1024;
  } finally {
    processes.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The figures as a table. */
function formatTable(floor: number[], rows: Row[], calls: number): string {
  const base = percentile(floor, 50);
  const ratio = (value: number) => `${(value / base).toFixed(2)}×`;
  const cells = (name: string, cold: number[], warm: number[]) =>
    [
      name.padEnd(48),
      ms(percentile(cold, 50)).padStart(11),
      ms(percentile(cold, 90)).padStart(11),
      (warm.length ? ms(percentile(warm, 50)) : "—").padStart(11),
      (warm.length ? ms(percentile(warm, 90)) : "—").padStart(11),
      ratio(percentile(cold, 50)).padStart(8),
      (warm.length ? ratio(percentile(warm, 50)) : "—").padStart(8),
    ].join(" ");
  return [
    `sandboxed no-op call, ${calls} calls per cell (warm: ${THINK_MS} ms between calls)`,
    [
      "".padEnd(48),
      "cold p50".padStart(11),
      "cold p90".padStart(11),
      "warm p50".padStart(11),
      "warm p90".padStart(11),
      "cold/fl".padStart(8),
      "warm/fl".padStart(8),
    ].join(" "),
    cells("floor: empty `deno run`", floor, []),
    ...rows.map((row) => cells(row.name, row.cold, row.warm)),
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { calls: { type: "string" } } });
  const calls = Number(values.calls ?? 20);
  const floor = await measureFloor(calls);
  const rows = [
    await measureWorker(calls),
    await measureProcess("process, tool in a Worker: run_code", MESSAGES.runCode, calls, "worker"),
    await measureProcess(
      "process, tool in a Worker: user tool",
      MESSAGES.userTool,
      calls,
      "worker",
    ),
    await measureProcess("process, `--allow-*` flags: run_code", MESSAGES.runCode, calls, "flags"),
    await measureProcess(
      "process, `--allow-*` flags: user tool",
      MESSAGES.userTool,
      calls,
      "flags",
    ),
    await measureProcess(
      "process, `hob __sandbox` from source: run_code",
      MESSAGES.runCode,
      calls,
      "hob",
    ),
  ];
  console.log(formatTable(floor, rows, calls));
  console.log(
    `a tool process waiting for its call: ${(await waitingProcessMb()).toFixed(1)} MB RSS`,
  );
}
