/**
 * The one place tool Workers are created. Each Worker gets exactly the
 * permissions it is given — never `inherit`, never FFI, sys or remote imports —
 * runs one call, and is terminated. To keep calls fast, a fresh Worker for a
 * recently used permission set is started ahead of time and waits, unused,
 * for the next call; no Worker ever serves two calls.
 */

import type { FromWorker, ToWorker } from "./protocol.ts";

/** Resolved, absolute permissions for one Worker. */
export interface WorkerPermissions {
  read: false | string[];
  write: false | string[];
  /** `true` for any host. */
  net: boolean | string[];
  env: false | string[];
  run: false | string[];
}

/** No permissions at all: what run_code and user-tool inspection get. */
export const NO_PERMISSIONS: WorkerPermissions = {
  read: false,
  write: false,
  net: false,
  env: false,
  run: false,
};

/** Raised when a Worker cannot be started or dies; the message says why. */
export class SandboxError extends Error {
  override name = "SandboxError";
}

/** Options for {@linkcode ToolSpawner}. */
export interface ToolSpawnerOptions {
  /** The Worker entry module. @default {worker.ts beside this file} */
  entry?: URL;
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
}

/** How one exchange with a Worker is handled. */
export interface ExchangeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Answers the Worker's host calls; a rejection becomes an error reply. */
  onHost?(method: string, params: unknown): Promise<unknown>;
}

/** What came back: the Worker's final message, or why there was none. */
export type ExchangeResult =
  | { ok: true; message: Extract<FromWorker, { type: "result" | "description" }> }
  | { ok: false; reason: "timeout" | "aborted" | "crashed"; error: string };

interface Started {
  worker: Worker;
  ready: Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
}

/** Time a stopped call is given to wind down before its Worker is terminated. */
const ABORT_GRACE_MS = 100;

/**
 * Starts tool Workers and runs exchanges with them.
 *
 * @example
 * ```ts
 * const spawner = new ToolSpawner();
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
  #closed = false;

  constructor(options: ToolSpawnerOptions = {}) {
    this.#entry = options.entry ?? new URL("./worker.ts", import.meta.url);
    this.#maxWarm = options.maxWarm ?? 4;
    this.#warmIdleMs = options.warmIdleMs ?? 60_000;
  }

  /** Sends `message` to a fresh Worker with `permissions` and waits for its answer. */
  async exchange(
    permissions: WorkerPermissions,
    message: ToWorker,
    options: ExchangeOptions,
  ): Promise<ExchangeResult> {
    if (this.#closed) throw new SandboxError("The tool sandbox is shut down");
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
      await started.ready;
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

  /** Terminates every waiting Worker; later exchanges fail. */
  close(): void {
    this.#closed = true;
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

  #keepWarm(key: string, permissions: WorkerPermissions): void {
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

  #start(permissions: WorkerPermissions): Started {
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
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (event.data.type === "ready") resolve();
      };
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new SandboxError(`The tool sandbox failed to start: ${event.message}`));
      };
    });
    return { worker, ready };
  }

  #run(worker: Worker, message: ToWorker, options: ExchangeOptions): Promise<ExchangeResult> {
    return new Promise<ExchangeResult>((resolve) => {
      let settled = false;
      const finish = (result: ExchangeResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish({
          ok: false,
          reason: "timeout",
          error: `timed out after ${formatSeconds(options.timeoutMs)} and was stopped`,
        });
      }, options.timeoutMs);
      const onAbort = () => {
        worker.postMessage({ type: "abort" } satisfies ToWorker);
        setTimeout(
          () => finish({ ok: false, reason: "aborted", error: "stopped" }),
          ABORT_GRACE_MS,
        );
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });

      worker.onmessage = async (event: MessageEvent<FromWorker>) => {
        const reply = event.data;
        if (reply.type === "result" || reply.type === "description") {
          finish({ ok: true, message: reply });
        } else if (reply.type === "host") {
          let answer: ToWorker;
          try {
            if (!options.onHost) throw new Error(`no host service '${reply.method}'`);
            answer = {
              type: "host_reply",
              id: reply.id,
              ok: true,
              value: await options.onHost(reply.method, reply.params),
            };
          } catch (error) {
            answer = {
              type: "host_reply",
              id: reply.id,
              ok: false,
              error: (error as Error).message,
            };
          }
          if (!settled) worker.postMessage(answer);
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
      worker.postMessage(message);
    });
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(2).replace(/0+$/, "")} s`;
}
