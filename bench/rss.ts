/**
 * Resident memory, beside a floor measured in the same run: an idle `deno
 * run` with hob's flags. Figures: `hob serve` idle on a home used before (its
 * memory indexed, so nothing loads the embedding model), the same process
 * with its tool processes, `hob serve` on a fresh home (its first start
 * embeds the template's memory, which loads the model), and a process that
 * searched a 100,000-chunk index with the model loaded.
 */

import { join } from "node:path";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { buildIndex } from "./memory.ts";
import {
  hobFlags,
  type Launch,
  spawn,
  templateHome,
  timeCommand,
  untilHealthy,
  withServe,
} from "./startup.ts";

const ROOT = new URL("..", import.meta.url).pathname;
/** How long a server idles after answering health before it is measured. */
const SETTLE_MS = 6_000;
/** Chunks of the large index. */
export const INDEX_CHUNKS = 100_000;

/** Megabytes resident. */
export interface RssResult {
  floor: number;
  /** `hob serve`, idle, on a home whose memory is indexed. */
  serve: number;
  /** The same, with the tool processes it keeps warm. */
  serveWithChildren: number;
  /** `hob serve` a few seconds after its first start on a fresh home. */
  serveFirstStart: number;
  /** A process that opened a 100,000-chunk index, loaded the model and searched. */
  largeIndex: number;
}

/** Resident megabytes of `pid`, and of `pid` with every process below it. */
export function residentMb(pid: number): { own: number; tree: number } {
  const rss = (p: number) => {
    const status = Deno.readTextFileSync(`/proc/${p}/status`);
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  };
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...children.get(parent) ?? [], Number(entry.name)]);
    } catch { /* gone meanwhile */ }
  }
  let tree = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.pop()!;
    try {
      tree += rss(p);
    } catch { /* gone meanwhile */ }
    queue.push(...children.get(p) ?? []);
  }
  return { own: rss(pid), tree };
}

/** Starts `args` under Deno, waits for `ready`, reads its memory, and stops it. */
async function measureProcess(
  cwd: string,
  args: string[],
  ready: () => Promise<void>,
): Promise<{ own: number; tree: number }> {
  const child = spawn(cwd, args);
  try {
    await ready();
    return residentMb(child.pid);
  } finally {
    child.kill("SIGKILL");
    await child.output();
  }
}

/** `hob serve` on `home`, measured once idle. */
function measureServe(launch: Launch, home: string): Promise<{ own: number; tree: number }> {
  return withServe(launch, home, async (port, _started, pid) => {
    await untilHealthy(port, performance.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return residentMb(pid);
  });
}

/** Measures every figure; the floor is an idle `deno run` with hob's flags. */
export async function measureRss(): Promise<RssResult> {
  await using fake = startFakeOpenAI({ fallback: { text: "Hello there" } });
  const scratch = await Deno.makeTempDir({ prefix: "hob-bench-rss-" });
  try {
    const launch: Launch = { root: ROOT, flags: hobFlags(ROOT), fake };
    const idle = join(scratch, "idle.ts");
    await Deno.writeTextFile(idle, "setTimeout(() => {}, 60_000);\n");
    const floor = await measureProcess(
      ROOT,
      ["run", ...launch.flags, idle],
      () => new Promise((resolve) => setTimeout(resolve, 1_000)),
    );

    const fresh = await templateHome(launch, join(scratch, "fresh"));
    const first = await measureServe(launch, fresh);
    const used = await templateHome(launch, join(scratch, "used"));
    await timeCommand(launch, ["memory", "reindex", "--home", used]);
    const serve = await measureServe(launch, used);

    const large = await templateHome(launch, join(scratch, "large"));
    const { db } = await buildIndex(large, INDEX_CHUNKS, "use-lite@0.2.0");
    db.close();
    const script = join(scratch, "search.ts");
    await Deno.writeTextFile(script, searchScript(large));
    const { code, stderr } = await spawn(ROOT, [
      "run",
      "--config",
      `${ROOT}deno.json`,
      // hob's own flags (its heap settings among them), as `hob serve` would run the search.
      ...launch.flags,
      script,
    ]).output();
    if (code !== 0) {
      throw new Error(`the search script exited with ${code}: ${new TextDecoder().decode(stderr)}`);
    }
    const largeIndex = Number(await Deno.readTextFile(`${script}.rss`));
    return {
      floor: floor.own,
      serve: serve.own,
      serveWithChildren: serve.tree,
      serveFirstStart: first.own,
      largeIndex,
    };
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/** A script that opens `home`'s runtime, searches its memory with the model loaded, and writes its RSS. */
function searchScript(home: string): string {
  const runtime = new URL("../src/runtime/runtime.ts", import.meta.url).href;
  return `import { openRuntime } from ${JSON.stringify(runtime)};
const runtime = await openRuntime({ home: ${JSON.stringify(home)}, env: {} });
await runtime.memory.ready;
for (let i = 0; i < 20; i++) await runtime.memory.search(\`what about the budget \${i}\`);
const mb = Deno.memoryUsage().rss / 1048576;
Deno.writeTextFileSync(new URL(import.meta.url).pathname + ".rss", String(mb));
await runtime.close();
Deno.exit(0);
`;
}

/** The figures, each beside the floor. */
export function formatRss(result: RssResult): string {
  const mb = (value: number) =>
    `${value.toFixed(0)} MB (${(value / result.floor).toFixed(2)}× floor)`;
  return [
    `resident memory · floor (an idle \`deno run\` with hob's flags): ${
      result.floor.toFixed(0)
    } MB`,
    `hob serve, idle, memory indexed (no model loaded): ${
      mb(result.serve)
    }; with its tool processes ${mb(result.serveWithChildren)}`,
    `hob serve, first start on a fresh home (the model loads to embed the template): ${
      mb(result.serveFirstStart)
    }`,
    `a ${INDEX_CHUNKS.toLocaleString("en")}-chunk index searched with the model loaded: ${
      mb(result.largeIndex)
    }`,
  ].join("\n");
}

if (import.meta.main) console.log(formatRss(await measureRss()));
