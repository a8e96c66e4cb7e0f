/**
 * The one place tool sandboxes are started. Every exchange goes through
 * {@linkcode ToolSpawner.exchange}, which picks the sandbox from the message
 * (routing.ts): hob's own built-in tools run in a Deno Worker inside hob;
 * anything carrying code hob did not write — user tools, skills, their
 * inspection, run_code — runs in a tool process of its own (process.ts), so
 * it cannot exit, starve or crash hob.
 *
 * Each Worker gets exactly the permissions it is given — never `inherit`,
 * never FFI, sys or remote imports — runs one call, and is terminated. To keep
 * calls fast, a fresh Worker for a recently used permission set is started
 * ahead of time and waits, unused, for the next call; no Worker ever serves
 * two calls. Tool processes work the same way.
 */

import {
  type ExchangeOptions,
  type ExchangeResult,
  formatSeconds,
  runExchange,
  serviceReply,
} from "./exchange.ts";
import { SandboxError } from "./errors.ts";
import type { SandboxPermissions } from "./permissions.ts";
import { ProcessSandbox, type ProcessSandboxOptions } from "./process.ts";
import type { FromSandbox, ToSandbox } from "./protocol.ts";
import { runsInProcess } from "./routing.ts";

/**
 * The modules the sandbox starts, which hold the tools it runs: the sandbox
 * imports none of them, they are handed in (hob's are `SANDBOX_ENTRIES`, in
 * src/builtins/sandbox_entries.ts).
 */
export interface SandboxEntries {
  /** Every tool Worker's module: one that serves its tools (`serveTools`, runner.ts). */
  worker: URL;
  /** A tool process's module for `deno run`: one that calls `runChild` (child.ts). */
  process: URL;
}

/** Options for {@linkcode ToolSpawner}. */
export interface ToolSpawnerOptions {
  /** The modules tool Workers and tool processes start from. */
  entries: SandboxEntries;
  /**
   * Workers kept started ahead, across all permission sets.
   * @default {4}
   */
  maxWarm?: number;
  /**
   * How long a started-ahead Worker waits before it is terminated unused.
   * @default {60_000}
   */
  warmIdleMs?: number;
  /** How tool processes (for code from outside hob) are run. */
  process?: Omit<ProcessSandboxOptions, "entry">;
}

export type { ExchangeOptions, ExchangeResult } from "./exchange.ts";

interface Started {
  worker: Worker;
  ready: Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Starts tool Workers and runs exchanges with them.
 *
 * @example
 * ```ts
 * const spawner = new ToolSpawner({ entries: SANDBOX_ENTRIES });
 * const result = await spawner.exchange(NO_PERMISSIONS, message, { timeoutMs: 5_000 });
 * spawner.close();
 * ```
 */
export class ToolSpawner {
  readonly #entry: URL;
  readonly #maxWarm: number;
  readonly #warmIdleMs: number;
  /** Started-ahead Workers by permission set, oldest first. */
  readonly #warm = new Map<string, Started>();
  readonly #processes: ProcessSandbox;
  #closed = false;

  constructor(options: ToolSpawnerOptions) {
    this.#entry = options.entries.worker;
    this.#maxWarm = options.maxWarm ?? 4;
    this.#warmIdleMs = options.warmIdleMs ?? 60_000;
    this.#processes = new ProcessSandbox({ ...options.process, entry: options.entries.process });
  }

  /**
   * Sends `message` to a fresh sandbox with `permissions` and waits for its
   * answer: a tool process when the message carries code from outside hob,
   * else a Worker.
   */
  async exchange(
    permissions: SandboxPermissions,
    message: ToSandbox,
    options: ExchangeOptions,
  ): Promise<ExchangeResult> {
    if (this.#closed) throw new SandboxError("The tool sandbox is shut down");
    if (runsInProcess(message)) {
      return await this.#processes.exchange(permissions, message, options);
    }
    const key = JSON.stringify(permissions);
    let started: Started;
    try {
      started = this.#take(key) ?? this.#start(permissions);
    } catch (error) {
      // Deno refuses a Worker more permissions than the process holds.
      return {
        ok: false,
        reason: "crashed",
        error: `could not be started with its permissions, which hob itself lacks: ${
          (error as Error).message
        }`,
      };
    }
    const { worker } = started;
    try {
      // A Worker that never says it is ready must not hold the call past its time.
      const unready = await readyWithin(started.ready, options);
      if (unready) return unready;
      return await this.#run(worker, message, options);
    } catch (error) {
      return { ok: false, reason: "crashed", error: (error as Error).message };
    } finally {
      worker.terminate();
      // The next call with these permissions will find a Worker waiting. It is
      // started after this call has answered: creating a Worker blocks this
      // thread for ~15 ms, which should not delay the answer.
      if (this.#maxWarm > 0) {
        setTimeout(() => {
          if (!this.#closed) this.#keepWarm(key, permissions);
        }, 0);
      }
    }
  }

  /** Terminates every waiting Worker and every tool process; later exchanges fail. */
  close(): void {
    this.#closed = true;
    this.#processes.close();
    for (const started of this.#warm.values()) {
      clearTimeout(started.timer);
      started.worker.terminate();
    }
    this.#warm.clear();
  }

  #take(key: string): Started | undefined {
    const started = this.#warm.get(key);
    if (!started) return undefined;
    this.#warm.delete(key);
    clearTimeout(started.timer);
    return started;
  }

  #keepWarm(key: string, permissions: SandboxPermissions): void {
    if (this.#warm.has(key)) return;
    while (this.#warm.size >= this.#maxWarm) {
      const [oldest] = this.#warm.keys();
      this.#take(oldest)?.worker.terminate();
    }
    const started = this.#start(permissions);
    started.ready.catch(() => this.#take(key));
    started.timer = setTimeout(() => this.#take(key)?.worker.terminate(), this.#warmIdleMs);
    // A waiting Worker must not keep hob alive.
    Deno.unrefTimer(started.timer as unknown as number);
    this.#warm.set(key, started);
  }

  #start(permissions: SandboxPermissions): Started {
    const worker = new Worker(this.#entry, {
      type: "module",
      name: "hob-tool",
      deno: {
        permissions: {
          read: permissions.read,
          write: permissions.write,
          net: permissions.net,
          env: permissions.env,
          run: permissions.run,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    });
    const ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromSandbox>) => {
        if (event.data.type === "ready") resolve();
      };
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new SandboxError(`The tool sandbox failed to start: ${event.message}`));
      };
    });
    return { worker, ready };
  }

  #run(worker: Worker, message: ToSandbox, options: ExchangeOptions): Promise<ExchangeResult> {
    const send = (reply: ToSandbox) => worker.postMessage(reply);
    return runExchange(send, message, options, (finish, settled) => {
      worker.onmessage = async (event: MessageEvent<FromSandbox>) => {
        const reply = event.data;
        if (reply.type === "result" || reply.type === "description") {
          finish({ ok: true, message: reply });
        } else if (reply.type === "service") {
          const answer = await serviceReply(reply, options);
          if (!settled()) send(answer);
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        finish({
          ok: false,
          reason: "crashed",
          error: event.message || "the tool's Worker crashed",
        });
      };
    });
  }
}

/**
 * Waits for a Worker's start, at most the call's time and only while the call
 * is wanted: null once it is ready, else why the call ends without it.
 */
async function readyWithin(
  ready: Promise<unknown>,
  options: ExchangeOptions,
): Promise<ExchangeResult | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<ExchangeResult>((resolve) => {
    timer = setTimeout(() =>
      resolve({
        ok: false,
        reason: "timeout",
        error: `its sandbox did not start within ${formatSeconds(options.timeoutMs)}`,
      }), options.timeoutMs);
    onAbort = () => resolve({ ok: false, reason: "aborted", error: "stopped" });
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([ready.then(() => null), ended]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
  }
}
