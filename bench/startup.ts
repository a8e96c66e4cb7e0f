/**
 * Start-up figures, each beside a floor measured in the same run: `deno run`
 * of an empty script (bench/floor.ts) with hob's flags, timed between the
 * figures, so a machine that is slower or busier today moves both and the
 * ratio stays comparable. Every figure starts hob afresh on a fresh home (a
 * copy of one `hob init`, pointed at an instant fake provider), with Deno's
 * module cache warm, as after installation. A revision is a checkout of hob:
 * this tree, or one `--compare` made; their figures are taken in turns, in
 * one run, so they share the machine's weather too.
 */

import { type FakeOpenAI, startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml } from "../tests/helpers/home.ts";
import { floorRatio, percentile } from "./stats.ts";

/** A checkout of hob whose start-up is measured. */
export interface Revision {
  /** How the figures name it: "this tree", or a short commit. */
  label: string;
  /** Its root, where its main.ts and deno.json are. */
  root: string;
}

/** One start-up figure: from launching hob to the moment it names. */
export interface StartupFigure {
  /** What `deno task bench <name>` selects it by. */
  name: string;
  label: string;
  /** Whether the figure reads a home (`--version` does not: it is measured once). */
  usesHome?: false;
  /** Milliseconds from launch, for hob at `launch` on the fresh `home`. */
  measure(launch: Launch, home: string): Promise<number>;
}

/** How to start one revision's hob, as `deno task hob` does. */
export interface Launch {
  root: string;
  /** The flags of its deno.json's `hob` task. */
  flags: string[];
  /** The fake provider its homes point at. */
  fake: FakeOpenAI;
}

/** Launches of each figure that count; one more before them warms Deno's caches. */
export const RUNS = 7;
/** How long a launch may take before the run is abandoned as broken. */
const LAUNCH_TIMEOUT_MS = 30_000;
const ROOT = new URL("..", import.meta.url).pathname;

/**
 * The figures, in the order they are printed.
 *
 * @example
 * ```ts
 * const version = STARTUP_FIGURES.find((figure) => figure.name === "version");
 * ```
 */
export const STARTUP_FIGURES: StartupFigure[] = [
  {
    name: "version",
    label: "hob --version",
    usesHome: false,
    measure: (launch) => timeCommand(launch, ["--version"]),
  },
  {
    name: "serve",
    label: "hob serve → /api/health 200",
    measure: (launch, home) => timeServe(launch, home, untilHealthy),
  },
  {
    name: "status",
    label: "hob status",
    measure: (launch, home) => timeCommand(launch, ["status", "--home", home]),
  },
  {
    name: "cron",
    label: "hob cron list",
    measure: (launch, home) => timeCommand(launch, ["cron", "list", "--home", home]),
  },
  {
    name: "tools",
    label: "hob tool list",
    measure: (launch, home) => timeCommand(launch, ["tool", "list", "--home", home]),
  },
  ...(["status", "cron", "tools"] as const).map((name): StartupFigure => {
    const args = { status: ["status"], cron: ["cron", "list"], tools: ["tool", "list"] }[name];
    return {
      name: `${name}-served`,
      label: `hob ${args.join(" ")}, hob serve running`,
      measure: (launch, home) =>
        whileServing(launch, home, () => timeCommand(launch, [...args, "--home", home])),
    };
  }),
  {
    name: "first-token",
    label: "hob serve → first token of a chat",
    measure: (launch, home) =>
      timeServe(launch, home, async (port, deadline) => {
        await untilHealthy(port, deadline);
        await untilFirstToken(port, await Deno.readTextFile(`${home}/token`));
      }),
  },
  {
    // Not hob: the least the figure above can take while hob talks through the openai SDK.
    name: "sdk-first-token",
    label: "bound: openai SDK alone → first token",
    usesHome: false,
    measure: (launch) => timeScript(launch, [`${ROOT}bench/sdk_first_token.ts`, launch.fake.url]),
  },
];

/** What {@linkcode measureStartup} measures. */
export interface StartupOptions {
  /** The checkouts, compared in the order given. */
  revisions: Revision[];
  /** @default {STARTUP_FIGURES} */
  figures?: StartupFigure[];
  /** @default {RUNS} */
  runs?: number;
}

/** Medians in milliseconds: the floor's, and each figure's for each revision. */
export interface StartupResult {
  runs: number;
  floor: number;
  revisions: string[];
  figures: { label: string; medians: number[] }[];
}

/**
 * Measures every figure for every revision `runs` times, the floor before
 * each figure in each round, and the revisions in alternating order.
 *
 * @example
 * ```ts
 * const result = await measureStartup({ revisions: [{ label: "this tree", root: "." }] });
 * console.log(formatStartup(result));
 * ```
 */
export async function measureStartup(options: StartupOptions): Promise<StartupResult> {
  const { revisions, figures = STARTUP_FIGURES, runs = RUNS } = options;
  await using fake = startFakeOpenAI({ fallback: { text: "Hello there" } });
  const scratch = await Deno.makeTempDir({ prefix: "hob-bench-startup-" });
  try {
    const launches = revisions.map((revision) => ({
      root: revision.root,
      flags: hobFlags(revision.root),
      fake,
    }));
    // Each figure on a home hob never opened (its first start) and on one it has (every day).
    const templates = await Promise.all(launches.map(async (launch, i) => {
      const fresh = await templateHome(launch, `${scratch}/fresh-${i}`);
      const used = await templateHome(launch, `${scratch}/used-${i}`);
      await timeCommand(launch, ["tool", "list", "--home", used]);
      return { fresh, used };
    }));
    const rows = figures.flatMap((figure) =>
      (figure.usesHome === false ? ["fresh"] as const : ["fresh", "used"] as const)
        .map((home) => ({ figure, home }))
    );
    const floors: number[] = [];
    const samples = rows.map(() => revisions.map(() => [] as number[]));
    for (let round = 0; round <= runs; round++) {
      for (const [f, row] of rows.entries()) {
        const floor = await timeFloor(launches[0].flags);
        if (round > 0) floors.push(floor);
        for (const r of alternate(revisions.length, round)) {
          const home = `${scratch}/home-${round}-${f}-${r}`;
          await copyDirectory(templates[r][row.home], home);
          const took = await row.figure.measure(launches[r], home);
          await Deno.remove(home, { recursive: true });
          if (round > 0) samples[f][r].push(took);
        }
      }
    }
    return {
      runs,
      floor: percentile(floors, 50),
      revisions: revisions.map((revision) => revision.label),
      figures: rows.map((row, f) => ({
        label: row.home === "fresh" ? row.figure.label : `  …on a home used before`,
        medians: samples[f].map((times) => percentile(times, 50)),
      })),
    };
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/**
 * The floor alone: the median of `runs` empty `deno run`s with hob's flags,
 * for figures measured without the start-up ones.
 *
 * @example
 * ```ts
 * const floor = await measureFloor(5);
 * ```
 */
export async function measureFloor(runs: number = RUNS): Promise<number> {
  const flags = hobFlags(ROOT);
  await timeFloor(flags);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(await timeFloor(flags));
  return percentile(times, 50);
}

/**
 * The figures as a table: each revision's median and its ratio to the floor,
 * and with two revisions the first's time as a share of the second's.
 *
 * @example
 * ```ts
 * console.log(formatStartup(await measureStartup({ revisions })));
 * ```
 */
export function formatStartup(result: StartupResult): string {
  const { floor, revisions } = result;
  const cell = (value: number) =>
    `${ms0(value).padStart(8)} ${floorRatio(value, floor).padStart(6)}`;
  const head = ["figure".padEnd(36), ...revisions.map((label) => label.padStart(15))];
  if (revisions.length === 2) head.push(`${revisions[0]} / ${revisions[1]}`.padStart(24));
  const rows = result.figures.map(({ label, medians }) => {
    const row = [label.padEnd(36), ...medians.map(cell)];
    if (medians.length === 2) row.push((medians[0] / medians[1]).toFixed(2).padStart(24));
    return row.join("  ");
  });
  return [
    `start-up, medians of ${result.runs} launches, each on a home hob never opened and on one it has · floor (an empty \`deno run\` with hob's flags, measured between them): ${
      ms0(floor)
    }`,
    head.join("  "),
    ...rows,
  ].join("\n");
}

function ms0(value: number): string {
  return `${Math.round(value)} ms`;
}

/** The revisions' indexes, forwards in even rounds and backwards in odd ones. */
function alternate(count: number, round: number): number[] {
  const order = [...Array(count).keys()];
  return round % 2 === 0 ? order : order.reverse();
}

/** The flags `deno task hob` runs main.ts with, from the deno.json at `root`. */
export function hobFlags(root: string): string[] {
  const manifest = JSON.parse(Deno.readTextFileSync(`${root}/deno.json`));
  const words = String(manifest.tasks.hob).split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"));
}

/** What Deno needs, and nothing of the caller's hob settings (HOB_HOME, HOB_MODEL…). */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR", "LANG", "TZ"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export function spawn(cwd: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: cleanEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function timeFloor(flags: string[]): Promise<number> {
  const started = performance.now();
  const { code } = await spawn(ROOT, ["run", ...flags, `${ROOT}bench/floor.ts`]).output();
  if (code !== 0) throw new Error(`the floor script exited with ${code}`);
  return performance.now() - started;
}

/** Runs a script of this tree with the revision's flags, from this tree, to its end. */
function timeScript(launch: Launch, args: string[]): Promise<number> {
  return timeRun(ROOT, ["run", ...launch.flags, ...args], args[0]);
}

/** Runs `hob <args>` to its end; a failure ends the run, with what hob said. */
export function timeCommand(launch: Launch, args: string[]): Promise<number> {
  return timeRun(
    launch.root,
    ["run", ...launch.flags, "main.ts", ...args],
    `hob ${args.join(" ")}`,
  );
}

async function timeRun(cwd: string, args: string[], what: string): Promise<number> {
  const started = performance.now();
  const { code, stderr } = await spawn(cwd, args).output();
  const took = performance.now() - started;
  if (code !== 0) {
    throw new Error(`${what} exited with ${code}: ${new TextDecoder().decode(stderr)}`);
  }
  return took;
}

/**
 * Launches `hob serve` on `home` on a free port, runs `during` with the port,
 * the moment of launch and the process id, and stops it.
 */
export async function withServe<T>(
  launch: Launch,
  home: string,
  during: (port: number, started: number, pid: number) => Promise<T>,
): Promise<T> {
  // A port chosen here lets a figure poll from the moment of launch, without reading stdout.
  const port = freePort();
  const started = performance.now();
  const child = spawn(launch.root, [
    "run",
    ...launch.flags,
    "main.ts",
    "serve",
    "--home",
    home,
    "--port",
    String(port),
  ]);
  try {
    return await during(port, started, child.pid);
  } finally {
    child.kill("SIGKILL");
    await child.output();
  }
}

/** Launches `hob serve`, waits for `until`, and stops it: the milliseconds it took. */
function timeServe(
  launch: Launch,
  home: string,
  until: (port: number, deadline: number) => Promise<void>,
): Promise<number> {
  return withServe(launch, home, async (port, started) => {
    await until(port, started + LAUNCH_TIMEOUT_MS);
    return performance.now() - started;
  });
}

/** Runs `measure` while `hob serve` runs on `home`, started and ready (its tools loaded) before. */
function whileServing(
  launch: Launch,
  home: string,
  measure: () => Promise<number>,
): Promise<number> {
  return withServe(launch, home, async (port) => {
    await untilHealthy(port, performance.now() + LAUNCH_TIMEOUT_MS);
    const token = (await Deno.readTextFile(`${home}/token`)).trim();
    const tools = await fetch(`http://127.0.0.1:${port}/api/tools`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await tools.body?.cancel();
    return await measure();
  });
}

export async function untilHealthy(port: number, deadline: number): Promise<void> {
  while (true) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) throw new Error("hob serve did not answer /api/health");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Sends a first message and reads the stream until its first `text` event. */
async function untilFirstToken(port: number, token: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/api/chat`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token.trim()}`,
      "content-type": "application/json",
      accept: "text/event-stream",
    },
    body: JSON.stringify({ message: "Hello" }),
  });
  if (!response.ok || !response.body) throw new Error(`POST /api/chat: ${response.status}`);
  let seen = "";
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    seen += chunk;
    if (/^event: text$/m.test(seen)) break;
    if (/^event: (error|done)$/m.test(seen)) throw new Error(`no token in the reply: ${seen}`);
  }
  await response.body.cancel().catch(() => {});
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A home made by the revision's own `hob init`, its model served by the fake. */
export async function templateHome(launch: Launch, home: string): Promise<string> {
  await timeCommand(launch, ["init", "--home", home]);
  await Deno.writeTextFile(`${home}/hob.yaml`, fakeProviderYaml(launch.fake.url));
  return home;
}

/** Copies a directory tree, keeping each file's and directory's mode. */
async function copyDirectory(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { mode: (await Deno.stat(from)).mode ?? 0o700 });
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyDirectory(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

if (import.meta.main) {
  console.log(
    formatStartup(await measureStartup({ revisions: [{ label: "this tree", root: ROOT }] })),
  );
}
