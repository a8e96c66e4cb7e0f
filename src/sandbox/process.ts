/**
 * Tool processes: code hob did not write runs in an OS process of its own
 * (child.ts), so it cannot exit, signal without permission, starve or crash
 * hob. The tool runs in a Worker with exactly its permissions (none at all
 * for run_code) inside the process, whose main thread caps the process's
 * memory (buffers too) and ends it the moment hob's end of its stdin closes —
 * however hob ended, and even while the tool loops. The process gets hob's
 * wall-clock limit, a piped stdin that only hob writes frames to, an
 * environment with nothing of hob's (no keys, no HOB_* settings) and a working
 * directory of its own. Like tool Workers, one process serves one call and is
 * killed after it — with anything it started, as it leads its own process
 * group — and a fresh one for a recently used permission set is started ahead
 * and waits, unref'd, for the next call.
 *
 * From source that process is `deno run` of the entry (the "worker"
 * launcher); a `deno compile`d hob is its own executable and starts `hob
 * __sandbox` (the "hob" launcher). The "flags" launcher runs the tool on the
 * process's main thread with its permissions as `--allow-*` flags and a V8
 * heap cap — it cannot see hob go while the tool loops, nor count buffers.
 */

import { tmpdir } from "node:os";
import { encodeFrame, FrameReader } from "./frames.ts";
import { childArgs, type ChildOptions, MEMORY_CAP_EXIT_CODE, SANDBOX_COMMAND } from "./launch.ts";
import type { FromProcess, ToSandbox } from "./protocol.ts";
import {
  type ExchangeOptions,
  type ExchangeResult,
  formatSeconds,
  runExchange,
  serviceReply,
} from "./exchange.ts";
import { SandboxError } from "./errors.ts";
import type { SandboxPermissions } from "./permissions.ts";

/** How a tool process is started. */
export type Launcher =
  /** `deno run` with the tool's permissions as flags; the tool runs on the main thread. */
  | "flags"
  /**
   * `hob __sandbox`: hob itself, with its own permissions, running the tool in
   * a Worker with exactly the tool's (what a compiled hob does).
   */
  | "hob"
  /**
   * `deno run` of the entry, the worker way: the process may read (to load the
   * Worker's modules) and the tool runs in a Worker with exactly its
   * permissions, so the main thread stays free to watch all the process's
   * memory and to exit when hob's end of the pipe closes, even while the
   * tool loops.
   */
  | "worker";

/** Options for {@linkcode ProcessSandbox}. */
export interface ProcessSandboxOptions {
  /**
   * The process's entry module, for `deno run`: one that calls `runChild`
   * (child.ts) with what its kind of process serves. The sandbox imports no
   * tool: hob's tool processes start src/builtins/process_entry.ts
   * (`SANDBOX_ENTRIES`), document processes src/memory/documents_entry.ts.
   */
  entry: URL;
  /** @default {"hob" in a compiled hob, else "worker"} */
  launcher?: Launcher;
  /**
   * The command that starts hob, for the "hob" launcher.
   * @default {[Deno.execPath()], which in a compiled hob is hob}
   */
  hob?: string[];
  /**
   * The hidden hob command the "hob" launcher starts, one per kind of process
   * (main.ts dispatches it); its Worker runs the same tools as `entry`.
   * @default {SANDBOX_COMMAND, a tool process}
   */
  command?: string;
  /**
   * The V8 heap cap of each process, in MB (with the "hob" and "worker"
   * launchers, the cap on the process's memory growth, buffers included).
   * @default {256}
   */
  heapMb?: number;
  /** Processes kept started ahead, across all permission sets. @default {2} */
  maxWarm?: number;
  /** How long a started-ahead process waits before it is killed unused. @default {60_000} */
  warmIdleMs?: number;
  /** The processes' working directory. @default {the system's temporary directory} */
  cwd?: string;
  /** How long a process may take to be ready for its call. @default {30_000} */
  startTimeoutMs?: number;
  /**
   * Calls running at once; more wait their turn (before their timeout starts),
   * so a burst of calls cannot fill the machine with heap-capped processes.
   * @default {8}
   */
  maxRunning?: number;
}

/** The default V8 heap cap of a tool process, in MB. */
export const DEFAULT_HEAP_MB = 256;

/** How much of a process's stderr is kept, for saying why it died. */
const STDERR_TAIL_CHARS = 16_384;
/** How long to wait for the rest of a dead process's stderr. */
const STDERR_DRAIN_MS = 1_000;

/** How to start one process. */
interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A started process and the pipe to it. */
interface Started {
  process: Deno.ChildProcess;
  frames: FrameReader;
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  stderr: StderrTail;
  /** Resolves when the process said it is ready; rejects with why it never will be. */
  ready: Promise<void>;
  exited: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Runs exchanges in tool processes. {@linkcode ToolSpawner} sends it every
 * exchange that carries code from outside hob.
 *
 * @example
 * ```ts
 * const processes = new ProcessSandbox({ heapMb: 128 });
 * const outcome = await processes.exchange(NO_PERMISSIONS, message, { timeoutMs: 10_000 });
 * processes.close();
 * ```
 */
export class ProcessSandbox {
  readonly #entry: URL;
  readonly #launcher: Launcher;
  readonly #hob: string[] | undefined;
  readonly #command: string;
  readonly #heapMb: number;
  readonly #maxWarm: number;
  readonly #warmIdleMs: number;
  readonly #cwd: string | undefined;
  readonly #startTimeoutMs: number;
  /** `--config` of hob's own deno.json when running from source, for its import map. */
  readonly #configFlags: string[];
  readonly #warm = new Map<string, Started>();
  readonly #running = new Set<Started>();
  readonly #maxRunning: number;
  /** Exchanges waiting for a turn: each is handed its turn, or false when hob shuts down. */
  readonly #queue: ((turn: boolean) => void)[] = [];
  #active = 0;
  #closed = false;

  constructor(options: ProcessSandboxOptions) {
    this.#entry = options.entry;
    this.#launcher = options.launcher ?? (Deno.build.standalone ? "hob" : "worker");
    this.#hob = options.hob;
    this.#command = options.command ?? SANDBOX_COMMAND;
    this.#heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
    this.#maxWarm = options.maxWarm ?? 2;
    this.#warmIdleMs = options.warmIdleMs ?? 60_000;
    this.#cwd = options.cwd;
    this.#startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.#maxRunning = options.maxRunning ?? 8;
    this.#configFlags = configFlags(this.#entry);
  }

  /** Sends `message` to a fresh process with `permissions` and waits for its answer. */
  async exchange(
    permissions: SandboxPermissions,
    message: ToSandbox,
    options: ExchangeOptions,
  ): Promise<ExchangeResult> {
    if (this.#closed) throw new SandboxError("The tool sandbox is shut down");
    const lacking = lackedPermission(permissions);
    if (lacking) {
      return crashed(
        `could not be started with its permissions, which hob itself lacks: ${lacking}`,
      );
    }
    const waited = await this.#turn(options.signal);
    if (waited) return waited;
    try {
      return await this.#exchange(permissions, message, options);
    } finally {
      this.#release();
    }
  }

  async #exchange(
    permissions: SandboxPermissions,
    message: ToSandbox,
    options: ExchangeOptions,
  ): Promise<ExchangeResult> {
    const key = JSON.stringify(permissions);
    let started: Started;
    try {
      started = this.#take(key) ?? this.#start(this.#launch(permissions));
    } catch (error) {
      return crashed(`could not be started: ${(error as Error).message}`);
    }
    this.#running.add(started);
    // While it serves a call, the process keeps hob alive like any work in progress.
    started.process.ref();
    try {
      const notReady = await this.#whenReady(started, options.signal);
      return notReady ?? await this.#run(started, message, options);
    } finally {
      this.#running.delete(started);
      stop(started);
      // The next call with these permissions will find a process waiting.
      if (this.#maxWarm > 0) {
        const timer = setTimeout(() => {
          if (!this.#closed) this.#keepWarm(key, permissions);
        }, 0);
        Deno.unrefTimer(timer as unknown as number);
      }
    }
  }

  /** Kills every waiting and running process; later exchanges fail. */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#queue.splice(0)) waiter(false);
    for (const started of [...this.#warm.values(), ...this.#running]) stop(started);
    this.#warm.clear();
  }

  /** Process ids of the processes started ahead, waiting for a call: for tests and diagnostics. */
  waiting(): number[] {
    return [...this.#warm.values()].map((started) => started.process.pid);
  }

  /**
   * The command line of a tool process with `permissions`: what {@linkcode exchange}
   * starts, for tests and benchmarks to inspect.
   */
  commandFor(permissions: SandboxPermissions): { command: string; args: string[] } {
    const worker: ChildOptions = { mode: "worker", permissions, memoryCapMb: this.#heapMb };
    if (this.#launcher === "hob") {
      const [command, ...args] = this.#hob ?? [Deno.execPath()];
      return { command, args: [...args, this.#command, ...childArgs(worker)] };
    }
    const run = ["run", ...RUN_FLAGS, ...this.#configFlags];
    if (this.#launcher === "worker") {
      // A Worker holds no more than its process: the tool's grants, and reading to load modules.
      const grants = permissionFlags(permissions).filter((flag) =>
        !flag.startsWith("--allow-read")
      );
      const flags = ["--allow-read", ...grants, "--unstable-worker-options"];
      return {
        command: Deno.execPath(),
        args: [...run, ...flags, this.#entry.href, ...childArgs(worker)],
      };
    }
    const flags = [
      `--v8-flags=--max-old-space-size=${this.#heapMb}`,
      ...permissionFlags(permissions),
    ];
    return {
      command: Deno.execPath(),
      args: [...run, ...flags, this.#entry.href, ...childArgs({ mode: "direct" })],
    };
  }

  /** Waits for a turn to run; undefined once it has one, else why it never will. */
  async #turn(signal: AbortSignal | undefined): Promise<ExchangeResult | undefined> {
    if (this.#active < this.#maxRunning) {
      this.#active++;
      return undefined;
    }
    const granted = await new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const at = this.#queue.indexOf(grant);
        if (at >= 0) this.#queue.splice(at, 1);
        resolve(false);
      };
      const grant = (turn: boolean) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(turn);
      };
      if (signal?.aborted) return resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(grant);
    });
    if (granted) return undefined;
    return {
      ok: false,
      reason: "aborted",
      error: this.#closed ? "stopped: hob is shutting down" : "stopped",
    };
  }

  /** Hands a finished call's turn to the next waiting one. */
  #release(): void {
    const next = this.#queue.shift();
    if (next) next(true);
    else this.#active--;
  }

  #take(key: string): Started | undefined {
    const started = this.#warm.get(key);
    if (!started) return undefined;
    this.#warm.delete(key);
    clearTimeout(started.timer);
    if (!started.exited) return started;
    stop(started);
    return undefined;
  }

  #keepWarm(key: string, permissions: SandboxPermissions): void {
    if (this.#warm.has(key)) return;
    while (this.#warm.size >= this.#maxWarm) {
      const [oldest] = this.#warm.keys();
      const dropped = this.#take(oldest);
      if (dropped) stop(dropped);
    }
    let started: Started;
    try {
      started = this.#start(this.#launch(permissions));
    } catch {
      return; // The next call starts one and reports why it cannot.
    }
    started.ready.catch(() => this.#drop(key, started));
    started.timer = setTimeout(() => this.#drop(key, started), this.#warmIdleMs);
    // A waiting process must not keep hob alive.
    Deno.unrefTimer(started.timer as unknown as number);
    this.#warm.set(key, started);
  }

  #drop(key: string, started: Started): void {
    if (this.#warm.get(key) === started) this.#warm.delete(key);
    clearTimeout(started.timer);
    if (!this.#running.has(started)) stop(started);
  }

  /** The command line and environment of a process for `permissions`; throws when there is none. */
  #launch(permissions: SandboxPermissions): Launch {
    const { command, args } = this.commandFor(permissions);
    if (Deno.permissions.querySync({ name: "run", command }).state !== "granted") {
      throw new SandboxError(`hob may not run ${command}`);
    }
    return { command, args, env: childEnv(permissions) };
  }

  #start({ command, args, env }: Launch): Started {
    const process = new Deno.Command(command, {
      args,
      cwd: this.#cwd ?? temporaryDirectory(),
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own process group (and session), so one signal reaches all it started.
      detached: Deno.build.os !== "windows",
    }).spawn();
    process.unref();
    const frames = new FrameReader(process.stdout);
    const started: Started = {
      process,
      frames,
      stdin: process.stdin.getWriter(),
      stderr: collectStderr(process.stderr),
      ready: Promise.resolve(),
      exited: false,
    };
    process.status.then(() => {
      started.exited = true;
    });
    started.ready = firstFrame(started, this.#heapMb);
    // Nobody may be waiting yet (a process started ahead); the call that takes it will see why.
    started.ready.catch(() => {});
    return started;
  }

  /** Waits until the process is ready; undefined when it is, else the failed outcome. */
  async #whenReady(
    started: Started,
    signal: AbortSignal | undefined,
  ): Promise<ExchangeResult | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<ExchangeResult>((resolve) => {
      timer = setTimeout(() => {
        resolve(crashed(`did not start within ${formatSeconds(this.#startTimeoutMs)}`));
      }, this.#startTimeoutMs);
      onAbort = () => resolve({ ok: false, reason: "aborted", error: "stopped" });
      if (signal?.aborted) onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([
        started.ready.then(() => undefined, (error: Error) => crashed(error.message)),
        gaveUp,
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  #run(started: Started, message: ToSandbox, options: ExchangeOptions): Promise<ExchangeResult> {
    return runExchange(
      (reply) => send(started, reply),
      message,
      options,
      (finish, settled) => this.#pump(started, options, finish, settled),
    );
  }

  /** Reads the process's frames until its answer, answering its service calls on the way. */
  async #pump(
    started: Started,
    options: ExchangeOptions,
    finish: (result: ExchangeResult) => void,
    settled: () => boolean,
  ): Promise<void> {
    for (;;) {
      const reply = checkFrame(await started.frames.next());
      if (settled()) return;
      if (reply === null) break;
      if (reply === undefined || reply.type === "ready") continue;
      if (reply.type === "result" || reply.type === "description") {
        return finish({ ok: true, message: reply });
      }
      if (reply.type === "crashed") return finish(crashed(reply.error));
      answerService(started, reply, options, settled);
    }
    // Its stdout closed: the process is gone. Say how it went.
    finish(crashed(await exitReason(started, this.#heapMb)));
  }
}

/** The system's temporary directory: a working directory that holds nothing of hob's. */
function temporaryDirectory(): string {
  try {
    return tmpdir();
  } catch {
    return Deno.build.os === "windows" ? "C:\\Windows\\Temp" : "/tmp";
  }
}

/**
 * Flags every tool process gets: no prompts, nothing fetched, and hob's
 * lockfile read but never written (`--frozen`). The lockfile is also what
 * says which version of each npm package another one depends on: without it
 * (`--no-lock`) Deno asks the registry's metadata, which a cache filled from
 * the lockfile does not hold, and `--cached-only` then fails on a package
 * that is there (mammoth's @xmldom/xmldom, for one).
 */
const RUN_FLAGS = ["--quiet", "--no-prompt", "--no-remote", "--cached-only", "--frozen"];

/**
 * The `--allow-*` flags for exactly `permissions`: none for an empty grant,
 * never `--allow-all`, ffi, sys or imports.
 *
 * @example
 * ```ts
 * permissionFlags({ ...NO_PERMISSIONS, read: ["/data"], net: true });
 * // ["--allow-read=/data", "--allow-net"]
 * ```
 */
export function permissionFlags(permissions: SandboxPermissions): string[] {
  const flags: string[] = [];
  const list = (name: string, grant: boolean | string[]) => {
    if (grant === true) flags.push(`--allow-${name}`);
    else if (Array.isArray(grant) && grant.length > 0) {
      // Deno splits flag values at commas and has no escape for them.
      const bad = grant.find((value) => value.includes(",") || value === "");
      if (bad !== undefined) {
        throw new SandboxError(`${name} permission '${bad}' cannot be given as a flag`);
      }
      flags.push(`--allow-${name}=${grant.join(",")}`);
    }
  };
  list("read", permissions.read);
  list("write", permissions.write);
  list("net", permissions.net);
  list("env", permissions.env);
  list("run", permissions.run);
  return flags;
}

/**
 * The whole environment of a tool process: what Deno needs (its cache, PATH)
 * and the variables the tool was granted. Nothing else of hob's: no API keys,
 * no HOB_* settings.
 */
export function childEnv(permissions: SandboxPermissions): Record<string, string> {
  const env: Record<string, string> = {
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    // A package.json in the working directory must not change how modules resolve.
    DENO_NO_PACKAGE_JSON: "1",
  };
  const cache = denoDir();
  if (cache) env.DENO_DIR = cache;
  // PATH lets Deno name a program it refuses ("Requires run access to id"); it is no secret.
  copyEnv(env, Deno.build.os === "windows" ? ["PATH", "SystemRoot"] : ["PATH"]);
  if (permissions.env) copyEnv(env, permissions.env);
  return env;
}

function copyEnv(env: Record<string, string>, names: string[]): void {
  let all: Record<string, string> | undefined;
  for (const name of names) {
    try {
      if (name.endsWith("*")) {
        all ??= Deno.env.toObject();
        const prefix = name.slice(0, -1);
        for (const [key, value] of Object.entries(all)) {
          if (key.startsWith(prefix)) env[key] = value;
        }
      } else {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      }
    } catch { /* hob may not read it either */ }
  }
}

/** Deno's cache directory as hob's own Deno uses it, so cached npm packages are found. */
function denoDir(): string | undefined {
  try {
    const env = Deno.env.toObject();
    if (env.DENO_DIR) return env.DENO_DIR;
    if (Deno.build.os === "windows") return env.LOCALAPPDATA && `${env.LOCALAPPDATA}\\deno`;
    if (Deno.build.os === "darwin") return env.HOME && `${env.HOME}/Library/Caches/deno`;
    if (env.XDG_CACHE_HOME) return `${env.XDG_CACHE_HOME}/deno`;
    return env.HOME && `${env.HOME}/.cache/deno`;
  } catch {
    return undefined;
  }
}

/**
 * hob's own deno.json when the entry sits in hob's source tree: tool code may
 * `import "zod"` and hob's own modules use its import map. Otherwise (a
 * bundle) none — and never a config found in the working directory.
 */
function configFlags(entry: URL): string[] {
  const config = new URL("../../deno.json", import.meta.url);
  const fromSource = import.meta.url.endsWith("/src/sandbox/process.ts");
  if (
    !fromSource || entry.protocol !== "file:" || !entry.href.startsWith(new URL(".", config).href)
  ) {
    return ["--no-config"];
  }
  try {
    if (Deno.statSync(config).isFile) return ["--config", decodeURIComponent(config.pathname)];
  } catch { /* not from source */ }
  return ["--no-config"];
}

/**
 * The first permission in `permissions` that hob itself does not hold, or null.
 * Deno refuses a Worker more than its process holds, but not a process: hob checks.
 */
function lackedPermission(permissions: SandboxPermissions): string | null {
  const wanted: Deno.PermissionDescriptor[] = [];
  for (const path of permissions.read || []) wanted.push({ name: "read", path });
  for (const path of permissions.write || []) wanted.push({ name: "write", path });
  if (permissions.net === true) wanted.push({ name: "net" });
  for (const host of Array.isArray(permissions.net) ? permissions.net : []) {
    wanted.push({ name: "net", host });
  }
  for (const variable of permissions.env || []) {
    wanted.push(variable.endsWith("*") ? { name: "env" } : { name: "env", variable });
  }
  for (const command of permissions.run || []) wanted.push({ name: "run", command });
  for (const descriptor of wanted) {
    if (Deno.permissions.querySync(descriptor).state !== "granted") {
      return describeDescriptor(descriptor);
    }
  }
  return null;
}

function describeDescriptor(descriptor: Deno.PermissionDescriptor): string {
  const target = "path" in descriptor
    ? descriptor.path
    : "host" in descriptor
    ? descriptor.host
    : "variable" in descriptor
    ? descriptor.variable
    : "command" in descriptor
    ? descriptor.command
    : undefined;
  return `Requires ${descriptor.name} access${target ? ` to ${target}` : ""}`;
}

/** Waits for the process's ready frame; rejects with why there is none. */
async function firstFrame(started: Started, heapMb: number): Promise<void> {
  for (;;) {
    const frame = checkFrame(await started.frames.next());
    if (frame === undefined) continue;
    if (frame === null) {
      throw new SandboxError(`${await exitReason(started, heapMb)} before it was ready`);
    }
    if (frame.type === "ready") return;
    if (frame.type === "crashed") throw new SandboxError(frame.error);
    throw new SandboxError(`said '${frame.type}' before it was ready`);
  }
}

/**
 * A frame from a tool process as a message, if it is one: undefined for
 * anything else (the process is untrusted), null at the end of the stream.
 */
function checkFrame(value: unknown): FromProcess | null | undefined {
  if (value === null) return null;
  if (!value || typeof value !== "object") return undefined;
  const frame = value as Record<string, unknown>;
  const text = (key: string) => typeof frame[key] === "string";
  switch (frame.type) {
    case "ready":
      return { type: "ready" };
    case "crashed":
      return text("error") ? frame as FromProcess : undefined;
    case "service":
      return typeof frame.id === "number" && text("method") ? frame as FromProcess : undefined;
    case "result":
      return (frame.ok === true && text("content")) || (frame.ok === false && text("error"))
        ? frame as FromProcess
        : undefined;
    case "description":
      return (frame.ok === true && frame.tool && typeof frame.tool === "object") ||
          (frame.ok === false && text("error"))
        ? frame as FromProcess
        : undefined;
  }
  return undefined;
}

function answerService(
  started: Started,
  call: Extract<FromProcess, { type: "service" }>,
  options: ExchangeOptions,
  settled: () => boolean,
): void {
  serviceReply(call, options).then((answer) => {
    if (!settled()) send(started, answer);
  });
}

/** Writes one frame to the process; a failed write shows as the process's end. */
function send(started: Started, message: ToSandbox): void {
  started.stdin.write(encodeFrame(message)).catch(() => {});
}

/** Kills the process and everything it started, and lets go of its pipes. */
function stop(started: Started): void {
  clearTimeout(started.timer);
  const { process } = started;
  if (Deno.build.os !== "windows") {
    try {
      // Its process group: what it started dies with it.
      Deno.kill(-process.pid, "SIGKILL");
    } catch { /* already gone */ }
  }
  try {
    process.kill("SIGKILL");
  } catch { /* already gone */ }
  process.unref();
  started.stdin.close().catch(() => {});
  started.frames.cancel();
}

/** The last characters a process wrote to stderr, read as it writes them. */
interface StderrTail {
  text(): string;
  /** Resolves at the end of the stream. */
  done: Promise<void>;
}

function collectStderr(stream: ReadableStream<Uint8Array>): StderrTail {
  let tail = "";
  const done = (async () => {
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        tail = (tail + chunk).slice(-STDERR_TAIL_CHARS);
      }
    } catch { /* the process is gone */ }
  })();
  return { text: () => tail, done };
}

/** Why a process ended, in words: its memory, a signal, or its exit code. */
async function exitReason(started: Started, heapMb: number): Promise<string> {
  const status = await started.process.status;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    started.stderr.done,
    new Promise<void>((resolve) => timer = setTimeout(resolve, STDERR_DRAIN_MS)),
  ]);
  clearTimeout(timer);
  return describeExit(status, started.stderr.text(), heapMb);
}

/**
 * Says how a tool process ended, from its status and the end of its stderr.
 *
 * @example
 * ```ts
 * describeExit({ success: false, code: 7, signal: null }, "", 256); // "exited with code 7"
 * ```
 */
export function describeExit(status: Deno.CommandStatus, stderr: string, heapMb: number): string {
  if (/out of memory|Reached heap limit|allocation failed/i.test(stderr)) {
    return `ran out of memory (heap cap ${heapMb} MB)`;
  }
  if (status.code === MEMORY_CAP_EXIT_CODE) return `ran out of memory (memory cap ${heapMb} MB)`;
  if (status.signal) {
    return status.signal === "SIGKILL"
      ? "was killed (SIGKILL; the system does that when memory runs out)"
      : `was killed by ${status.signal}`;
  }
  // deno-lint-ignore no-control-regex
  const last = stderr.replace(/\x1b\[[0-9;]*m/g, "").trim().split("\n").at(-1)?.trim() ?? "";
  const said = last ? `: ${last.slice(0, 300)}` : "";
  return status.code === 0
    ? `exited before it answered${said}`
    : `exited with code ${status.code}${said}`;
}

function crashed(error: string): ExchangeResult {
  return { ok: false, reason: "crashed", error };
}
