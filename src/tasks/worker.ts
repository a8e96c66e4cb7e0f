/**
 * A task worker: claims the next task from the queue, runs the agent on it in
 * the task's own conversation with three terminal tools — complete_task,
 * fail_task, wait_task — and records what the model declared. A model that
 * stops without declaring is nudged once, then the task fails: an unfinished
 * run is never a silent success. Many workers, in one process or many, share
 * one hob.db; a worker's writes wait (without blocking) while another program
 * holds it, so a run's outcome is recorded once the lock is released.
 */

import type { TurnInput } from "../core/agent.ts";
import type { ToolCallContext, ToolRegistryPort } from "../core/ports.ts";
import { collectReply } from "../core/reply.ts";
import { sleep } from "../core/timeout.ts";
import { derivedText, hobWrote } from "../core/untrusted.ts";
import type {
  AgentEvent,
  Conversation,
  ConversationKind,
  ToolCall,
  ToolResult,
  ToolSpec,
} from "../core/types.ts";
import { StorageError, storageProblem } from "../home/storage.ts";
import { PROCESS_OWNER } from "../store/owner.ts";
import type { SqliteTasks, Task } from "../store/tasks.ts";

/** What a task run declared through a terminal tool. */
type Declaration =
  | { status: "complete"; text: string }
  | { status: "failed"; text: string }
  | { status: "waiting"; text: string };

/** The terminal tools, offered only in a task's turn — and always in it: a task must be able to end. */
export const TERMINAL_TOOLS: readonly ToolSpec[] = [
  {
    name: "complete_task",
    description:
      "Declare the background task done. The summary becomes the task's output: say what was done and found.",
    category: "tasks",
    always: true,
    parameters: {
      type: "object",
      properties: { summary: { type: "string", description: "What was done, and the result" } },
      required: ["summary"],
    },
  },
  {
    name: "fail_task",
    description: "Declare that the background task cannot be done, and why.",
    category: "tasks",
    always: true,
    parameters: {
      type: "object",
      properties: { reason: { type: "string", description: "Why it cannot be done" } },
      required: ["reason"],
    },
  },
  {
    name: "wait_task",
    description:
      "Park the background task until the user resumes it: use when it must wait for someone or something. Say what it waits for.",
    category: "tasks",
    always: true,
    parameters: {
      type: "object",
      properties: { reason: { type: "string", description: "What the task waits for" } },
      required: ["reason"],
    },
  },
];

const TERMINAL_STATUS: Record<string, Declaration["status"]> = {
  complete_task: "complete",
  fail_task: "failed",
  wait_task: "waiting",
};

/** How long a worker waits before trying again when the disk is full or read-only. */
const STORAGE_RETRY_MS = 5_000;

/** The nudge sent once to a model that stopped without declaring. */
export const NUDGE =
  "You stopped without declaring how the task ended. Call exactly one of complete_task(summary), fail_task(reason) or wait_task(reason) now.";

/** What a worker needs. */
export interface TaskWorkerDeps {
  tasks: SqliteTasks;
  /** Runs a turn with the given tools in place of the runtime's. */
  turn(input: TurnInput, tools: ToolRegistryPort): AsyncGenerator<AgentEvent>;
  tools: ToolRegistryPort;
  conversations: {
    getConversation(id: string): Conversation | undefined;
    createConversation(init: { title: string; kind: ConversationKind }): Conversation;
  };
  notify?(notification: { kind: string; title: string; body: string }): void;
  /** Longest one run may take before it is stopped and failed. */
  maxRunMs: number;
  /**
   * How often a running task is checked for cancellation.
   * @default {2_000}
   */
  cancelPollMs?: number;
}

/** How one run ended. */
export interface TaskRunResult {
  task: Task;
  status: "complete" | "failed" | "waiting" | "pending" | "cancelled";
  output: string;
}

let nextSlot = 0;

/**
 * One worker. `id` is unique across processes (this process's owner id and a slot).
 *
 * @example
 * ```ts
 * const worker = new TaskWorker("worker", deps);
 * await worker.loop(signal);
 * ```
 */
export class TaskWorker {
  readonly id: string;
  readonly #kind: string;
  readonly #deps: TaskWorkerDeps;

  constructor(kind: string, deps: TaskWorkerDeps) {
    this.id = `${PROCESS_OWNER}/${nextSlot++}`;
    this.#kind = kind;
    this.#deps = deps;
  }

  /** Registers this worker (and notes it alive). */
  register(taskId: number | null = null): void {
    this.#deps.tasks.heartbeat({ id: this.id, kind: this.#kind, task_id: taskId });
  }

  unregister(): void {
    this.#deps.tasks.unregister(this.id);
  }

  /**
   * Claims and runs one task; undefined when the queue has none ready.
   * Resets stale claims and fails tasks whose blockers failed first.
   */
  async runOnce(signal?: AbortSignal): Promise<TaskRunResult | undefined> {
    const { tasks } = this.#deps;
    const task = await tasks.write(() => {
      tasks.resetStale(this.#deps.maxRunMs * 3);
      tasks.failBlocked();
      const claimed = tasks.claim(this.id);
      if (claimed) this.register(claimed.id);
      return claimed;
    });
    if (!task) return undefined;
    try {
      return await this.#run(task, signal);
    } finally {
      this.#beat(null);
    }
  }

  /** Notes this worker alive, unless hob.db cannot be written now: the next beat will. */
  #beat(taskId: number | null): void {
    try {
      this.register(taskId);
    } catch (error) {
      if (!storageProblem(error)) throw error;
    }
  }

  /**
   * Runs tasks until `signal` aborts, polling the queue when it is empty;
   * with `once`, until the queue has no task ready.
   */
  async loop(
    signal: AbortSignal,
    options: { once?: boolean; pollMs?: number; onRun?: (result: TaskRunResult) => void } = {},
  ): Promise<number> {
    const pollMs = options.pollMs ?? 1_000;
    let ran = 0;
    let paused = false;
    let registered = false;
    try {
      while (!signal.aborted) {
        let result: TaskRunResult | undefined;
        try {
          // Through the write lock: workers starting together (four `hob worker` at once)
          // wait their turn instead of one failing on a busy hob.db.
          if (!registered) await this.#deps.tasks.write(() => this.register());
          registered = true;
          result = await this.runOnce(signal);
          if (!result && !options.once) await this.#deps.tasks.write(() => this.register());
          paused = false;
        } catch (error) {
          // A full disk or a read-only home can be fixed while hob runs: wait, then work on.
          const problem = storageProblem(error);
          if (options.once || !problem) throw error;
          if (!paused) {
            console.error(
              `hob: a task worker waits: ${new StorageError(problem, undefined).message}`,
            );
          }
          paused = true;
          await sleep(STORAGE_RETRY_MS, signal);
          continue;
        }
        if (result) {
          ran++;
          options.onRun?.(result);
          continue;
        }
        if (options.once) break;
        await sleep(pollMs, signal);
      }
    } finally {
      this.#leave();
    }
    return ran;
  }

  /** Unregisters; on a full disk the row stays, to be swept like a crashed worker's. */
  #leave(): void {
    try {
      this.unregister();
    } catch (error) {
      if (!storageProblem(error)) throw error;
    }
  }

  async #run(task: Task, outer?: AbortSignal): Promise<TaskRunResult> {
    const { tasks, conversations } = this.#deps;
    const existing = task.conversation_id
      ? conversations.getConversation(task.conversation_id)
      : undefined;
    const conversation = existing ?? await tasks.write(() => {
      const created = conversations.createConversation({
        title: `Task ${task.id}: ${task.title}`.slice(0, 80),
        kind: "task",
      });
      tasks.setConversation(task.id, created.id);
      return created;
    });

    const controller = new AbortController();
    const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#deps.maxRunMs);
    let cancelled = false;
    const poll = setInterval(() => {
      if (tasks.get(task.id)?.status === "cancelled") {
        cancelled = true;
        controller.abort();
      } else {
        this.#beat(task.id);
      }
    }, this.#deps.cancelPollMs ?? 2_000);

    let declared: Declaration | undefined;
    const tools = withTerminalTools(this.#deps.tools, (declaration) => declared ??= declaration);
    // Set once a turn of this run has read untrusted content (or the task came from one).
    const run = { taint: task.taint };
    const end = async (
      status: TaskRunResult["status"],
      output: string,
      reason: string | null = null,
    ): Promise<TaskRunResult> => {
      if (status !== "cancelled") {
        await tasks.write(() =>
          tasks.finish(task.id, this.id, {
            status,
            output: status === "waiting" || status === "pending" ? undefined : output,
            waiting_reason: reason,
          })
        );
      }
      const finished = tasks.get(task.id) ?? task;
      if (status === "complete" || status === "failed") {
        this.#deps.notify?.({
          kind: "task",
          title: `Task ${task.id} ${status === "complete" ? "done" : "failed"}: ${task.title}`,
          body: output,
        });
      }
      return { task: finished, status, output };
    };

    try {
      const first = await this.#turn(
        task,
        conversation.id,
        taskMessage(task, existing !== undefined),
        tools,
        signal,
        run,
      );
      if (!declared && first.ok && !signal.aborted) {
        await this.#turn(task, conversation.id, NUDGE, tools, signal, run);
      }
      if (cancelled) return end("cancelled", "");
      if (timedOut) {
        return end(
          "failed",
          `Stopped: the run took longer than ${Math.round(this.#deps.maxRunMs / 60_000)} min.`,
        );
      }
      if (outer?.aborted) {
        return end("pending", "", "hob stopped during the run; it will run again");
      }
      if (declared) {
        // What the model declared after reading untrusted content is untrusted: it keeps the label.
        const text: string = derivedText(declared.text, run.taint, `task ${task.id}`);
        return declared.status === "waiting"
          ? end("waiting", "", text)
          : end(declared.status, text);
      }
      if (!first.ok) return end("failed", `The model could not be reached: ${first.error}`);
      return end(
        "failed",
        "The model stopped twice without calling complete_task, fail_task or wait_task, so the task is not known to be done.",
      );
    } finally {
      clearTimeout(deadline);
      clearInterval(poll);
    }
  }

  /** One turn of a task, parking it while an approval is pending. */
  async #turn(
    task: Task,
    conversationId: string,
    message: string,
    tools: ToolRegistryPort,
    signal: AbortSignal,
    run: { taint: string | null },
  ): Promise<{ ok: boolean; error?: string }> {
    const { tasks } = this.#deps;
    const events = this.#deps.turn({
      message,
      conversation_id: conversationId,
      signal,
      // A task a tainted turn created runs tainted: its prompt may carry an injection.
      tainted: task.taint ?? undefined,
    }, tools);
    const watched = (async function* (workerId: string) {
      for await (const event of events) {
        if (event.type === "notice" && event.code === "tainted") run.taint ??= event.source ?? null;
        if (event.type === "approval_required") {
          const reason = `approval ${event.approval_id}: may ${event.name} run?`;
          await tasks.write(() => tasks.park(task.id, workerId, reason));
        } else if (event.type === "approval_resolved") {
          await tasks.write(() => tasks.unpark(task.id, workerId));
        }
        yield event;
      }
    })(this.id);
    const reply = await collectReply(watched);
    return reply.error && reply.status === "error"
      ? { ok: false, error: reply.error.message }
      : { ok: true };
  }
}

/** The first message of a task's run. */
function taskMessage(task: Task, resumed: boolean): string {
  return [
    resumed
      ? `Background task #${task.id} ("${task.title}") is resumed. Carry on from where it stopped.`
      : `Background task #${task.id}: "${task.title}". No one is watching this conversation: work on your own with your tools.`,
    "When it is done, call complete_task with a summary of the result. If it cannot be done, call fail_task with the reason. If it must wait for someone or something, call wait_task saying what.",
    "",
    "Task:",
    task.prompt,
  ].join("\n");
}

/** The registry with the terminal tools added; calling one records the declaration and ends the turn. */
export function withTerminalTools(
  base: ToolRegistryPort,
  declare: (declaration: Declaration) => void,
): ToolRegistryPort {
  return {
    specs:
      () => [...base.specs().filter((spec) => !(spec.name in TERMINAL_STATUS)), ...TERMINAL_TOOLS],
    execute(call: ToolCall, context: ToolCallContext): Promise<ToolResult> {
      const status = TERMINAL_STATUS[call.name];
      if (!status) return base.execute(call, context);
      let args: Record<string, unknown> = {};
      try {
        args = call.arguments ? JSON.parse(call.arguments) : {};
      } catch { /* reported below */ }
      const key = call.name === "complete_task" ? "summary" : "reason";
      const text = typeof args[key] === "string" ? (args[key] as string).trim() : "";
      if (!text) {
        return Promise.resolve({
          content: hobWrote(`${call.name} needs '${key}': a non-empty string.`),
          is_error: true,
        });
      }
      declare({ status, text });
      return Promise.resolve({
        content: hobWrote(`Task marked ${status}.`),
        is_error: false,
        stop: true,
      });
    },
  };
}
