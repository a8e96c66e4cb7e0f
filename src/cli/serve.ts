/**
 * `hob serve`: the HTTP API (and the page) on localhost until Ctrl-C or
 * SIGTERM, started as a list of steps: read the flags and hob.yaml, listen
 * (the gate answers health at once), open the home, start the work beside
 * the server, build the API, let requests in, serve until stopped. What no
 * request needs yet — the runtime, the API, the page — loads after listening.
 */

import { loadConfig } from "../config/load.ts";
import type { HobConfig } from "../config/schema.ts";
import { type Fetch, type Gate, openGate, pathOf } from "../http/gate.ts";
import { DATA_CSP } from "../http/guard.ts";
import { ensureHome, homeExposure, readToken, resolveHome } from "../home/home.ts";
import { probeStorage, StorageError } from "../home/storage.ts";
import type { StartedWork } from "../app/hob.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { PROCESS_OWNER } from "../store/owner.ts";
import { VERSION } from "../version.ts";
import {
  type Command,
  CommandError,
  EXIT,
  intOption,
  type ParsedArgs,
  UsageError,
} from "./command.ts";
import { dim, err, out } from "./output.ts";

export const serve: Command = {
  name: "serve",
  summary: "Start hob's HTTP API on localhost",
  help: `Usage: hob serve [--home DIR] [--host HOST] [--port PORT]

Starts hob's HTTP API and prints a link with the API token, creating the
home first when there is none (as 'hob init' does). Stops on Ctrl-C or
SIGTERM, saving replies in progress.

Options:
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  --host HOST    address to listen on (default: server.host, 127.0.0.1)
  --port PORT    port to listen on, 0 for any free port (default: server.port, 8484)
  --debug        print stack traces on errors
  -h, --help     show this help`,
  options: { host: { type: "string" }, port: { type: "string" } },
  positionals: [0, 0],
  async run(parsed) {
    const flags = readFlags(parsed);
    const config = await readConfig(parsed);
    const host = flags.host ?? config.server.host;
    const startedAt = Date.now();
    // Aborted when the server starts to stop: what waits to load then loads no more.
    const stopping = new AbortController();
    const gate = openGate({ bind: host, allowedHosts: config.server.allowed_hosts }, startedAt);
    const server = listen({ host, port: flags.port ?? config.server.port, fetch: gate.fetch });
    const { runtime, token, started } = await startBehindGate(parsed, {
      host,
      startedAt,
      gate,
      server,
      stopping: stopping.signal,
    });
    announce(runtime, { host, token, started }, server.addr as Deno.NetAddr);
    adviseOnModel(runtime, stopping.signal);
    await serveUntilStopped(runtime, server, stopping);
    return EXIT.ok;
  },
};

/** What `hob serve` was asked to listen on, checked before the home is opened. */
function readFlags(parsed: ParsedArgs): { host?: string; port?: number } {
  const port = intOption(parsed, "port", [0, 65_535]);
  const host = parsed.values.host as string | undefined;
  if (host !== undefined && !isHost(host)) {
    throw new UsageError(`--host must be a host name or an IP address: got '${host}'`);
  }
  return { host, port };
}

/** hob.yaml, all `hob serve` needs to listen; the home is created first when there is none. */
async function readConfig(parsed: ParsedArgs): Promise<HobConfig> {
  const home = resolveHome(parsed.values.home as string | undefined);
  await ensureHome(home);
  return (await loadConfig({ home })).config;
}

/** The listening server and its gate, and what the API is built with. */
interface Listening {
  host: string;
  startedAt: number;
  gate: Gate;
  server: Deno.HttpServer;
  stopping: AbortSignal;
}

/** What serving runs on once hob has started. */
interface Serving {
  runtime: Runtime;
  token: string;
  started: StartedWork;
}

/**
 * Behind the gate: opens the home, starts the work beside the server, builds
 * the API, then lets requests in. If any of it fails, the server stops and the home
 * closes before the error is told.
 */
async function startBehindGate(parsed: ParsedArgs, listening: Listening): Promise<Serving> {
  let runtime: Runtime | undefined;
  try {
    await loadInSteps(SERVING_MODULES);
    const opened = await openServingHome(parsed);
    runtime = opened.runtime;
    // First, so the tools load (user tools in processes of their own) while the API loads.
    const started = await startWork(runtime);
    const [{ createApi }, { pageRoutes }] = await Promise.all([
      import("../http/api.ts"),
      import("../page/routes.ts"),
    ]);
    const { host, startedAt } = listening;
    const api = createApi(runtime, { token: opened.token, host, page: pageRoutes, startedAt });
    // The tools are loading already (startWork); the model's SDK loads when someone comes.
    listening.gate.admit(
      preparingOnFirstUse(runtime.llm, runtime.config.model, api.fetch, {
        signal: listening.stopping,
      }),
    );
    return { runtime, token: opened.token, started };
  } catch (error) {
    listening.gate.refuse();
    await listening.server.shutdown();
    await runtime?.close();
    throw error;
  }
}

/**
 * What serving loads before it can answer more than health, heaviest
 * libraries first. Each literal import is checked by `deno check`, so the
 * list cannot name a module that is gone.
 */
const SERVING_MODULES: (() => Promise<unknown>)[] = [
  () => import("zod"),
  () => import("../store/database.ts"),
  () => import("../app/app.ts"),
  () => import("../runtime/runtime.ts"),
  () => import("../http/api.ts"),
  () => import("../page/routes.ts"),
];

/**
 * Runs `steps` one after another, letting the event loop run before each: a
 * module graph is evaluated in one piece, so a health check that arrives
 * while hob loads waits for the step in progress, not for all of hob.
 */
export async function loadInSteps(steps: (() => Promise<unknown>)[]): Promise<void> {
  for (const step of steps) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await step();
  }
}

/** How long the server is asked nothing before it loads the model's SDK. */
const PREPARE_WHEN_QUIET_MS = 200;

/** The timer {@linkcode preparingOnFirstUse} waits with; tests pass their own. */
export interface QuietTimer {
  start(callback: () => void, ms: number): number;
  cancel(id: number): void;
}

const REAL_TIMER: QuietTimer = {
  start(callback, ms) {
    // Deno's timers are numbers (Node's types in scope say otherwise).
    const id = setTimeout(callback, ms) as unknown as number;
    // A server that stops before then is not kept waiting for it.
    Deno.unrefTimer(id);
    return id;
  },
  cancel: (id) => clearTimeout(id),
};

/**
 * The API, which loads the default model's SDK (~8 MB, 130–150 ms of one core)
 * once someone other than a health check has come and the server has then
 * been asked nothing for {@linkcode PREPARE_WHEN_QUIET_MS}: someone opening the
 * page is about to chat, and loads it while they type, while a server nobody
 * uses stays small — and a burst of requests (the page's first, a `hob status`
 * asking) is answered first, not after the SDK, whose loading holds the event
 * loop. A chat that comes sooner loads it itself.
 */
export function preparingOnFirstUse(
  llm: Pick<Runtime["llm"], "prepare">,
  model: string,
  fetch: Fetch,
  options: { signal?: AbortSignal; timer?: QuietTimer } = {},
): Fetch {
  const { signal, timer = REAL_TIMER } = options;
  let prepared = false;
  let pending: number | undefined;
  // A server that is stopping loads nothing more: a wait still running is called off.
  signal?.addEventListener("abort", () => {
    if (pending !== undefined) timer.cancel(pending);
  }, { once: true });
  return (request) => {
    const path = pathOf(request);
    if (!prepared && !signal?.aborted && path !== null && path !== "/api/health") {
      if (pending !== undefined) timer.cancel(pending);
      pending = timer.start(() => {
        prepared = true;
        llm.prepare(model).catch(() => {/* the chat says what is wrong */});
      }, PREPARE_WHEN_QUIET_MS);
    }
    return fetch(request);
  };
}

/** Opens the home, refusing one that cannot be written; warns when others can read it. */
async function openServingHome(parsed: ParsedArgs): Promise<{ runtime: Runtime; token: string }> {
  const { homeOf, openProcessHome } = await import("./open.ts");
  const runtime = await openProcessHome(parsed, {
    create: true,
    log: (line) => err(dim(`${line}\n`)),
  });
  // A server that cannot write would fail at every turn: say so now, in one line.
  const problem = probeStorage(runtime.home);
  if (problem) {
    await runtime.close();
    throw new StorageError(problem, runtime.home);
  }
  const token = await readToken(homeOf(parsed));
  for (const problem of await homeExposure(runtime.home)) err(`warning: ${problem}\n`);
  return { runtime, token };
}

/** Starts what runs beside the server, and says what a crash or a stop left undone. */
async function startWork(runtime: Runtime): Promise<StartedWork> {
  const started = await runtime.start();
  for (const missed of started.missed) err(describeMissed(missed));
  if (started.recovered > 0) {
    err(
      dim(
        `Marked ${started.recovered} reply(s) cut off by an earlier crash as interrupted.\n`,
      ),
    );
  }
  return started;
}

/** A job that missed runs while hob was down, and what happens to it now. */
function describeMissed(missed: StartedWork["missed"][number]): string {
  const what = [
    missed.interrupted ? "was cut off by an earlier crash" : "",
    missed.missed > 0 ? `missed ${missed.missed} run(s) while hob was not running` : "",
  ].filter(Boolean).join(" and ");
  return `Job '${missed.job}' ${what}; ${
    missed.policy === "run_once" ? "running it once now" : "skipped, as its policy says"
  }.\n`;
}

/**
 * Starts the server; a port in use or an address this machine does not have
 * is one line (exit 1).
 */
function listen(options: { host: string; port: number; fetch: Fetch }): Deno.HttpServer {
  const { host, port } = options;
  try {
    return Deno.serve({
      hostname: host,
      port,
      // Announced once hob has started (see announce), not when the socket opens.
      onListen: () => {},
      onError: internalError,
    }, options.fetch);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new CommandError(
        `port ${port} on ${host} is in use — is hob already running? Pick another with --port`,
      );
    }
    if (/lookup address|invalid host|not available|AddrNotAvailable/i.test(String(error))) {
      throw new CommandError(
        `cannot listen on '${host}': it is not an address of this machine — pick another with --host`,
      );
    }
    throw error;
  }
}

/** Records where the server listens and prints the link, what runs, and any exposure. */
function announce(
  runtime: Runtime,
  options: { host: string; token: string; started: StartedWork },
  { hostname, port }: Deno.NetAddr,
): void {
  const { token, started } = options;
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  const base = `http://${shown}:${port}`;
  // Every interface includes this machine's own: the link and `hob status` use loopback.
  const wildcard = hostname === "0.0.0.0" || hostname === "::";
  const local = wildcard ? `http://127.0.0.1:${port}` : base;
  // So `hob status` finds this server whatever port it was given.
  runtime.serverRecord.write({ url: local, pid: Deno.pid, owner: PROCESS_OWNER });
  out(`hob ${VERSION} listening on ${base}\n`);
  out(`Open ${local}/?token=${token}\n`);
  err(dim(`model ${runtime.config.model} · home ${runtime.home}\n`));
  err(dim(
    `scheduler ${started.scheduler ? "on" : "off"} · heartbeat ${
      started.heartbeat ? `every ${runtime.config.heartbeat.interval_minutes} min` : "off"
    } · ${started.workers} task worker(s)\n`,
  ));
  const warning = exposureWarning(hostname, options.host);
  if (warning) err(`${warning}\n`);
}

/**
 * Says on stderr, once it is known, that hob.yaml's model cannot answer and
 * what to do (the page banner's words): a missing key at once, a server that
 * does not answer after one request for its models, beside the start, never
 * in its way; nothing when it answers or hob is stopping.
 */
function adviseOnModel(runtime: Runtime, stopping: AbortSignal): void {
  import("../runtime/model_advice.ts")
    .then(({ startAdvice }) => startAdvice(runtime.llm, runtime.config, stopping))
    .then((advice) => {
      if (advice && !stopping.aborted) err(`hob: ${advice}\n`);
    })
    .catch(() => {/* stderr gone: the page's banner says it too */});
}

/** The answer to an error that escaped the API: a bug, logged, and a bare 500. */
function internalError(error: unknown): Response {
  console.error("hob: internal error:", error);
  return Response.json(
    { error: { code: "internal", message: "Internal error in hob" } },
    {
      status: 500,
      headers: {
        "content-security-policy": DATA_CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      },
    },
  );
}

/** Serves until Ctrl-C or SIGTERM: turns are interrupted, the server drains, the home closes. */
async function serveUntilStopped(
  runtime: Runtime,
  server: Deno.HttpServer,
  stopping: AbortController,
): Promise<void> {
  const stop = () => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    err(dim("Stopping…\n"));
    // Interrupt turns first so their streams end, then let the server drain.
    runtime.interrupt().then(() => server.shutdown());
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  await server.finished;
  runtime.serverRecord.clear();
  for (const signal of signals) Deno.removeSignalListener(signal, stop);
  await runtime.close();
}

/** A host name (`localhost`, `my-box.lan`), an IPv4 address, or an IPv6 one (bracketed or not). */
function isHost(text: string): boolean {
  if (/^[\d.]+$/.test(text)) {
    const parts = text.split(".");
    return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && +part <= 255);
  }
  if (text.includes(":")) return /^\[?[0-9A-Fa-f:.]+\]?$/.test(text);
  return /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(text);
}

/**
 * What `hob serve` says when it listens beyond this machine, or null on a
 * loopback address (all of 127.0.0.0/8, ::1, localhost).
 *
 * @example
 * ```ts
 * exposureWarning("0.0.0.0", "0.0.0.0"); // "warning: hob is listening on 0.0.0.0, …"
 * ```
 */
export function exposureWarning(hostname: string, host: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare)) return null;
  const wildcard = bare === "0.0.0.0" || bare === "::";
  return `warning: hob is listening on ${hostname}, reachable from other machines; anyone with the token can use it. Requests must name an IP address${
    wildcard ? "" : `, ${host},`
  } or a name in server.allowed_hosts.`;
}
