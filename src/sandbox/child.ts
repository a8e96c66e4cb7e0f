/**
 * The inside of a tool process: code hob did not write (run_code's argument,
 * user tools, skills, and their inspection) runs here, in an OS process of its
 * own, so calling `Deno.exit`, filling the heap or crashing ends only this
 * process. It talks to hob in frames (frames.ts) over its stdin and stdout;
 * the tool's console output goes to stderr, and anything else it writes to
 * stdout is noise the frames survive.
 *
 * It runs in one of two ways:
 * - **worker** (what hob starts): the tool runs in a Worker holding exactly
 *   its permissions, while this process's main thread stops the process when
 *   its memory passes the cap and exits when hob closes the pipe — even
 *   while the tool loops. From source the process is `deno run` of the entry;
 *   a `deno compile`d hob, its own executable, starts `hob __sandbox`.
 * - **direct**: started by `deno run` with exactly the tool's `--allow-*` flags
 *   and a V8 heap cap; the tool runs on this process's main thread (the
 *   "flags" launcher, which tests and benchmarks compare).
 */

import { encodeFrame, FrameReader, MAX_HOB_FRAME_BYTES } from "./frames.ts";
import { type ChildOptions, MEMORY_CAP_EXIT_CODE, parseChildArgs } from "./launch.ts";
import type { FromProcess, ToSandbox } from "./protocol.ts";
import { type ServeOptions, serveTools, type ToolPort, workerPort } from "./runner.ts";
import type { SandboxPermissions } from "./permissions.ts";

/** How often the worker way checks the process's memory. */
const MEMORY_CHECK_MS = 20;

/**
 * What one kind of process serves: the module its Worker runs the worker way
 * (one that calls {@linkcode serveInWorker} with its tools), and those tools
 * for the direct way, loaded only then, so the main thread of a process run
 * the worker way holds none of them. Tool processes serve code from outside
 * (src/builtins/tool_process.ts); document processes, the parsers
 * (src/memory/documents_process.ts).
 */
export interface ProcessServes {
  workerEntry: URL;
  /** The Worker's name, for traces and errors. */
  workerName: string;
  /** The tools, for the direct way. */
  loadTools(): Promise<ServeOptions>;
}

/**
 * Runs one process of the kind `serves` says until hob closes its stdin (or
 * kills it); returns the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await runChild(Deno.args, TOOL_PROCESS));
 * ```
 */
export async function runChild(args: string[], serves: ProcessServes): Promise<number> {
  let options: ChildOptions;
  try {
    options = parseChildArgs(args);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  // Taken before any tool code loads, so the tool cannot swap it.
  const send = frameWriter();
  const frames = new FrameReader(Deno.stdin.readable, MAX_HOB_FRAME_BYTES);
  if (options.mode === "direct") {
    quietConsole();
    reportUncaught(send);
    const handlers: ((message: ToSandbox) => void)[] = [];
    const port: ToolPort = { post: send, listen: (handler) => handlers.push(handler) };
    serveTools(port, await serves.loadTools());
    await relay(frames, (message) => handlers.forEach((handler) => handler(message)));
  } else {
    const worker = startToolWorker(serves, options.permissions, send);
    watchMemory(options.memoryCapMb, send);
    await relay(frames, (message) => worker.postMessage(message));
    worker.terminate();
  }
  return 0;
}

/**
 * The inner half of the worker way: serves the call inside the Worker that
 * holds the tool's permissions. A process's Worker module
 * (src/builtins/process_worker.ts) calls it when it is that Worker.
 *
 * @example
 * ```ts
 * serveInWorker(PROCESS_TOOLS); // src/builtins/process_worker.ts
 * ```
 */
export function serveInWorker(tools: ServeOptions): void {
  const port = workerPort();
  quietConsole();
  // In a Worker, Deno.exit ends only the Worker, silently: say so first.
  const exit = Deno.exit;
  Object.defineProperty(Deno, "exit", {
    value: (code?: number) => {
      port.post({ type: "crashed", error: `exited with code ${code ?? 0}` });
      exit(code);
    },
  });
  serveTools(port, tools);
}

/** Whether this code runs in a Worker. */
export function inWorker(): boolean {
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown })
    .WorkerGlobalScope;
  return typeof scope === "function" && globalThis instanceof scope;
}

/** Passes each frame from hob on, until hob closes the pipe. */
async function relay(frames: FrameReader, deliver: (message: ToSandbox) => void): Promise<void> {
  for (;;) {
    const message = await frames.next();
    if (message === null) return;
    if (message && typeof message === "object" && "type" in message) {
      deliver(message as ToSandbox);
    }
  }
}

/** Writes frames to the real stdout in whole, blocking writes (one frame is never split). */
function frameWriter(): (message: FromProcess) => void {
  const stdout = Deno.stdout;
  const writeSync = stdout.writeSync.bind(stdout);
  return (message) => {
    let bytes: Uint8Array;
    try {
      bytes = encodeFrame(message);
    } catch (error) {
      bytes = encodeFrame({
        type: "crashed",
        error: `sent hob something that is not data: ${(error as Error).message}`,
      });
    }
    for (let offset = 0; offset < bytes.length;) offset += writeSync(bytes.subarray(offset));
  };
}

/** The tool's console goes to stderr, which hob keeps only the end of (for crash reports). */
function quietConsole(): void {
  for (const method of ["log", "info", "debug", "dir", "table"] as const) {
    console[method] = (...values: unknown[]) => console.error(...values);
  }
}

/** An error nothing caught ends the call with its message, as a Worker's would. */
function reportUncaught(send: (message: FromProcess) => void): void {
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    send({ type: "crashed", error: `crashed: ${event.message}` });
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    const reason = event.reason;
    send({
      type: "crashed",
      error: `crashed: ${reason instanceof Error ? reason.message : String(reason)}`,
    });
  });
}

/** Starts the Worker that holds exactly the tool's permissions and relays what it says. */
function startToolWorker(
  serves: ProcessServes,
  permissions: SandboxPermissions,
  send: (message: FromProcess) => void,
): Worker {
  const worker = new Worker(serves.workerEntry, {
    type: "module",
    name: serves.workerName,
    deno: {
      permissions: { ...permissions, ffi: false, sys: false, import: false },
    },
  });
  worker.onmessage = (event: MessageEvent<FromProcess>) => send(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    send({ type: "crashed", error: `crashed: ${event.message || "the tool's Worker failed"}` });
  };
  return worker;
}

/**
 * Stops the process when its memory grows past `capMb` above what it started
 * with. The tool runs in a Worker, so this thread is free to look even while
 * the tool spins; it counts everything (heap and buffers), checked often.
 */
function watchMemory(capMb: number, send: (message: FromProcess) => void): void {
  const limit = Deno.memoryUsage().rss + capMb * 1024 * 1024;
  setInterval(() => {
    if (Deno.memoryUsage().rss <= limit) return;
    send({ type: "crashed", error: `ran out of memory (memory cap ${capMb} MB)` });
    Deno.exit(MEMORY_CAP_EXIT_CODE);
  }, MEMORY_CHECK_MS);
}
