/** `hob task`: background tasks — add, list, show, cancel, resume. */

import { MAX_PRIORITY, type Task, TaskError, type TaskStatus } from "../store/tasks.ts";
import { type Command, CommandError, EXIT, intOption, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, out, outJson, red } from "./output.ts";

const ACTIONS = ["add", "list", "show", "cancel", "resume"];
const STATUSES: TaskStatus[] = [
  "pending",
  "in_progress",
  "waiting",
  "complete",
  "failed",
  "cancelled",
];

export const task: Command = {
  name: "task",
  summary: "Background tasks: add, list, show, cancel, resume",
  help: `Usage: hob task add TITLE [PROMPT] [--priority N] [--blocked-by ID,ID] [--json]
       hob task list [--status S] [--limit N] [--json]
       hob task show ID [--json]
       hob task cancel ID [--json]
       hob task resume ID [--note TEXT] [--json]

A task is work the agent does on its own: a worker (inside 'hob serve', or a
'hob worker' process) claims the highest-priority task whose blockers are
complete, and the agent works on it until it calls complete_task, fail_task
or wait_task. Each run is a conversation you can open (see 'show').

Options:
  --priority N     higher runs first (default 0)
  --blocked-by L   ids of tasks that must complete first, comma-separated
  --status S       list only: ${STATUSES.join(", ")}
  --limit N        how many to list (default 50)
  --note TEXT      resume: added to the task's prompt
  --json           print machine-readable output
  --home DIR       hob home (default: $HOB_HOME or ~/.hob)
  -h, --help       show this help`,
  options: {
    priority: { type: "string" },
    "blocked-by": { type: "string" },
    status: { type: "string" },
    limit: { type: "string" },
    note: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: [1, 3],
  async run(parsed) {
    const [action, ...rest] = parsed.positionals;
    if (!ACTIONS.includes(action)) {
      throw new UsageError(`hob task: unknown action '${action}' — use ${ACTIONS.join(", ")}`);
    }
    if (action === "add" && (rest.length === 0 || rest.some((text) => !text.trim()))) {
      throw new UsageError("hob task add: needs a TITLE (and a PROMPT), neither empty");
    }
    if (action === "list" && rest.length > 0) {
      throw new UsageError(`hob task list: unexpected argument '${rest[0]}'`);
    }
    let id = 0;
    if (action !== "add" && action !== "list") {
      if (rest.length !== 1 || !/^\d+$/.test(rest[0])) {
        throw new UsageError(`hob task ${action}: needs a task id`);
      }
      id = Number(rest[0]);
    }
    const status = parsed.values.status as string | undefined;
    if (status !== undefined && !STATUSES.includes(status as TaskStatus)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(", ")}: got '${status}'`);
    }
    const rawPriority = parsed.values.priority as string | undefined;
    const priority = rawPriority === undefined ? 0 : Number(rawPriority);
    // The queue's range, checked here to name the flag.
    if (
      rawPriority !== undefined &&
      (!/^-?\d+$/.test(rawPriority) || Math.abs(priority) > MAX_PRIORITY)
    ) {
      throw new UsageError(
        `--priority must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}: got '${rawPriority}'`,
      );
    }
    const blockedBy = parseIds(parsed.values["blocked-by"] as string | undefined);
    const limit = intOption(parsed, "limit", [1, 10_000]) ?? 50;
    const json = Boolean(parsed.values.json);

    const runtime = await openHome(parsed);
    try {
      const { tasks } = runtime.background;
      try {
        switch (action) {
          case "add": {
            const [title, prompt] = rest;
            const added = tasks.add({
              title,
              prompt: prompt ?? title,
              priority,
              blocked_by: blockedBy,
            });
            if (json) outJson(added);
            else {out(
                `Added task ${added.id} '${added.title}'. A worker picks it up while 'hob serve' or 'hob worker' runs.\n`,
              );}
            return EXIT.ok;
          }
          case "list": {
            const list = tasks.list({ status: status as TaskStatus | undefined, limit });
            if (json) outJson({ tasks: list, counts: tasks.counts() });
            else if (list.length === 0) {
              out(
                status
                  ? `No ${status} tasks.\n`
                  : "No tasks. Add one with: hob task add TITLE PROMPT\n",
              );
            } else list.forEach((each) => out(describe(each)));
            return EXIT.ok;
          }
          case "show": {
            const found = tasks.get(id);
            if (!found) throw new TaskError("not_found", `There is no task ${id}`);
            const messages = found.conversation_id
              ? runtime.store.listMessages(found.conversation_id)
              : [];
            if (json) outJson({ ...found, messages });
            else {
              out(describe(found));
              out(`${dim("prompt")}  ${found.prompt}\n`);
              if (found.output) out(`${dim("output")}  ${found.output}\n`);
              if (found.conversation_id) {
                out(dim(`conversation ${found.conversation_id} (${messages.length} messages):\n`));
                for (const message of messages) {
                  const text = message.role === "assistant" && message.tool_calls?.length
                    ? `${message.content} → ${
                      message.tool_calls.map((c) => `${c.name}(${c.arguments})`).join(", ")
                    }`
                    : message.content;
                  out(
                    `  ${dim(message.role.padEnd(9))} ${text.replace(/\s+/g, " ").slice(0, 200)}\n`,
                  );
                }
              }
            }
            return EXIT.ok;
          }
          case "cancel": {
            const cancelled = tasks.cancel(id);
            if (json) outJson(cancelled);
            else out(`Cancelled task ${id}.\n`);
            return EXIT.ok;
          }
          default: {
            const resumed = tasks.resume(id, parsed.values.note as string | undefined);
            if (json) outJson(resumed);
            else out(`Task ${id} is pending again.\n`);
            return EXIT.ok;
          }
        }
      } catch (error) {
        if (error instanceof TaskError) {
          if (error.code === "invalid") throw new UsageError(`hob task: ${error.message}`);
          throw new CommandError(error.message);
        }
        throw error;
      }
    } finally {
      await runtime.close();
    }
  },
};

function parseIds(text: string | undefined): number[] {
  if (!text) return [];
  return text.split(",").map((part) => {
    if (!/^\s*\d+\s*$/.test(part)) {
      throw new UsageError(`--blocked-by takes task ids such as 3,4: got '${text}'`);
    }
    return Number(part);
  });
}

function describe(task: Task): string {
  const status = task.status === "failed" ? red(task.status) : task.status;
  const extra = [
    task.priority ? `priority ${task.priority}` : "",
    task.blocked_by.length ? `after ${task.blocked_by.join(", ")}` : "",
    task.claimed_by ? `held by ${task.claimed_by.split(":")[0]}` : "",
    task.waiting_reason ? `waiting: ${task.waiting_reason}` : "",
  ].filter(Boolean).join(" · ");
  return `${String(task.id).padStart(4)}  ${status.padEnd(11)} ${task.title}${
    extra ? dim(`  ${extra}`) : ""
  }\n`;
}
