/**
 * Where the shell policy judges the lines tools propose: in a Worker of its
 * own (judge_worker.ts), never on hob's main thread. Judging is bounded by
 * its budget (budget.ts), but some of its steps are single calls that no
 * deadline can interrupt — the parser's work on a long line, a look-up on a
 * path that hangs — and hob must keep answering meanwhile. So:
 *
 * 1. One Worker, started on first use, that may read files and the
 *    environment and nothing else: judging looks at paths and git's
 *    configuration, and the parser copies the environment as it loads. It
 *    writes, runs and sends nothing.
 * 2. One line at a time, in the order asked.
 * 3. A line not judged within JUDGE_TIMEOUT_MS ends the Worker, and the
 *    verdict asks (under 'allowlist', denies): the person decides. The next
 *    line starts a new Worker.
 * 4. The Worker stops after JUDGE_IDLE_MS unused, and with hob's process
 *    (loading it belongs to the first command line, not to hob's start).
 *
 * A Worker ended while it waits in a system call (a FIFO, a hung mount)
 * keeps its thread until the call returns; hob goes on without it. The
 * judging itself opens no such file (see git.ts).
 *
 * Knows nothing of what judging means: the Worker runs policy.ts's `judgeCommand`.
 */

import type { ShellPolicySettings, ShellVerdict } from "./policy.ts";
import { unjudgedVerdict } from "./unjudged.ts";

/**
 * How long one line may take in the Worker. The budget's deadline (1 s) stops
 * judging between steps; this stops a single step that does not return.
 */
export const JUDGE_TIMEOUT_MS = 5_000;
/** How long the Worker may take to start and load the parser (~0.5 s), on a busy machine. */
const START_TIMEOUT_MS = 60_000;
/** How long the Worker waits for the next line: loading the parser again costs ~0.5 s. */
const JUDGE_IDLE_MS = 5 * 60_000;

/** A line for the Worker to judge. */
export interface ToJudge {
  id: number;
  command: string;
  settings: ShellPolicySettings;
}

/** What the Worker says: it is ready, it failed to start, or a line's verdict. */
export type FromJudge =
  | { ready: true }
  | { failed: string }
  | { id: number; verdict: ShellVerdict }
  | { id: number; error: string };

/** Options for {@linkcode JudgeThread}. */
export interface JudgeThreadOptions {
  /** @default {JUDGE_TIMEOUT_MS} */
  timeoutMs?: number;
  /** @default {JUDGE_IDLE_MS} */
  idleMs?: number;
}

interface Job {
  command: string;
  settings: ShellPolicySettings;
  resolve(verdict: ShellVerdict): void;
  reject(error: Error): void;
}

/** What a line's wait ended with. */
type Outcome = { verdict: ShellVerdict } | { error: string } | { timedOut: true };

interface Started {
  worker: Worker;
  ready: Promise<void>;
  /** Fails `ready`, for a line still waiting for the Worker to start. */
  fail(error: Error): void;
  /** Set while a line waits for its verdict. */
  waiting?: (outcome: Outcome, id?: number) => void;
}

/**
 * Judges command lines in a Worker, one at a time, each within a time limit.
 *
 * @example
 * ```ts
 * const thread = new JudgeThread();
 * const verdict = await thread.judge("ls -la", { policy: "ask", allowlist: ["ls"], roots: ["/work"] });
 * thread.close();
 * ```
 */
export class JudgeThread {
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  readonly #queue: Job[] = [];
  #started: Started | undefined;
  #draining = false;
  #ids = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: JudgeThreadOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? JUDGE_TIMEOUT_MS;
    this.#idleMs = options.idleMs ?? JUDGE_IDLE_MS;
  }

  /** The policy's verdict on `command`, judged in the Worker. */
  judge(command: string, settings: ShellPolicySettings): Promise<ShellVerdict> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ command, settings, resolve, reject });
      this.#drain();
    });
  }

  /** Stops the Worker; the line being judged and those still waiting fail. */
  close(): void {
    const closed = "the shell policy's judge was closed";
    for (const job of this.#queue.splice(0)) job.reject(new Error(closed));
    this.#started?.waiting?.({ error: closed });
    this.#started?.fail(new Error(closed));
    this.#stop();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    clearTimeout(this.#idleTimer);
    try {
      for (let job = this.#queue.shift(); job; job = this.#queue.shift()) await this.#run(job);
    } finally {
      this.#draining = false;
    }
    const idle = setTimeout(() => this.#stop(), this.#idleMs);
    // The timer keeps no process alive.
    Deno.unrefTimer(idle);
    this.#idleTimer = idle;
  }

  async #run(job: Job): Promise<void> {
    let started: Started;
    try {
      started = await this.#ready();
    } catch (error) {
      return job.reject(error as Error);
    }
    const id = ++this.#ids;
    const outcome = await new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => resolve({ timedOut: true }), this.#timeoutMs);
      started.waiting = (outcome, replyId) => {
        if (replyId !== undefined && replyId !== id) return;
        clearTimeout(timer);
        resolve(outcome);
      };
      started.worker.postMessage(
        { id, command: job.command, settings: job.settings } satisfies ToJudge,
      );
    });
    started.waiting = undefined;
    if ("verdict" in outcome) return job.resolve(outcome.verdict);
    if ("error" in outcome) return job.reject(new Error(outcome.error));
    // The Worker is stuck in a step no deadline reaches: end it; the next line gets a new one.
    this.#stop();
    job.resolve(
      await unjudgedVerdict(
        job.command,
        `the line took more than ${this.#timeoutMs / 1000} s to judge`,
        job.settings.policy,
      ),
    );
  }

  /** The Worker, started and ready; a new one when there is none. */
  async #ready(): Promise<Started> {
    this.#started ??= this.#start();
    const started = this.#started;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error("the shell policy's judge did not start in time")),
        START_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([started.ready, late]);
    } catch (error) {
      if (this.#started === started) this.#stop();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return started;
  }

  #start(): Started {
    const worker = new Worker(new URL("./judge_worker.ts", import.meta.url), {
      type: "module",
      name: "hob-shell-judge",
      deno: {
        permissions: {
          read: true,
          write: false,
          net: false,
          // The parser (Go compiled by GopherJS) copies the environment as it loads.
          env: true,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    });
    let ready!: () => void;
    let failed!: (error: Error) => void;
    const started: Started = {
      worker,
      ready: new Promise<void>((resolve, reject) => {
        ready = resolve;
        failed = reject;
      }),
      fail: (error) => failed(error),
    };
    // Nobody may be waiting yet: a failed start is reported to the line that waits for it.
    started.ready.catch(() => {});
    worker.onmessage = (event: MessageEvent<FromJudge>) => {
      const message = event.data;
      if ("ready" in message) ready();
      else if ("failed" in message) {
        failed(new Error(`the shell policy could not start: ${message.failed}`));
      } else {started.waiting?.(
          "verdict" in message ? { verdict: message.verdict } : { error: message.error },
          message.id,
        );}
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const why = `the shell policy's judge stopped: ${event.message}`;
      failed(new Error(why));
      started.waiting?.({ error: why });
      if (this.#started === started) this.#stop();
    };
    return started;
  }

  #stop(): void {
    clearTimeout(this.#idleTimer);
    this.#started?.worker.terminate();
    this.#started = undefined;
  }
}

let shared: JudgeThread | undefined;

/**
 * The policy's verdict on a command line, judged off hob's main thread: what
 * run_command's review calls. The HOME and PATH the line is judged with are
 * hob's, read here and sent with it: the Worker's own environment is only
 * there because the parser copies it as it loads.
 *
 * @example
 * ```ts
 * await judgeInWorker("ls -la", { policy: "allowlist", allowlist: ["ls"], roots: ["/work"] });
 * // { decision: "allow", reason: "runs ls", shape: "ls" }
 * ```
 */
export async function judgeInWorker(
  command: string,
  settings: ShellPolicySettings,
): Promise<ShellVerdict> {
  if (settings.policy === "deny") {
    // Nothing to judge: the verdict needs no parser (loaded here only when asked for).
    const { judgeCommand } = await import("./policy.ts");
    return judgeCommand(command, settings);
  }
  shared ??= new JudgeThread();
  return await shared.judge(command, {
    ...settings,
    home: settings.home ?? environment("HOME"),
    path: settings.path ?? environment("PATH"),
  });
}

/** Stops the shared judge's Worker (for tests and benchmarks); the next line starts it again. */
export function closeJudge(): void {
  shared?.close();
  shared = undefined;
}

function environment(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
