/**
 * `hob task`: background tasks — add, list, show, cancel, resume. A
 * translator: arguments become the app's task actions (src/app/tasks.ts),
 * which check them, and their refusals become exit 2 (bad usage, naming the
 * flag) or exit 1 (a task that cannot do it), one line each.
 */

import { ActionError, received } from "../app/errors.ts";
import {
  listTasksInput,
  MAX_BLOCKERS,
  MAX_PRIORITY,
  MAX_TASK_LIST,
  type NewTaskInput,
  newTaskInput,
  TASK_STATUSES,
} from "../app/tasks.ts";
import { plainText } from "../core/untrusted.ts";
import type { Hob } from "../app/hob.ts";
import type { Task, TaskStatus } from "../store/tasks.ts";
import type { StoredMessage } from "../core/types.ts";
import {
  type Command,
  CommandError,
  EXIT,
  intOption,
  type ParsedArgs,
  UsageError,
} from "./command.ts";
import { openHome } from "./open.ts";
import { dim, out, outJson, red } from "./output.ts";

const ACTIONS = ["add", "list", "show", "cancel", "resume"];

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
  --status S       list only: ${TASK_STATUSES.join(", ")}
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
    const request = readRequest(parsed);
    const hob = await openHome(parsed);
    try {
      return perform(hob, request, Boolean(parsed.values.json));
    } catch (error) {
      if (!(error instanceof ActionError)) throw error;
      throw refusal(error, parsed, request);
    } finally {
      await hob.close();
    }
  },
};

/** What the command line asks for, as the app's task actions take it: they check it. */
interface TaskRequest {
  action: string;
  id: number;
  add?: NewTaskInput;
  status?: TaskStatus;
  limit: number;
  note?: string;
}

/**
 * How a refusal of a flag's value is said: by the field the task action
 * names, the flag and what it takes, with the value as typed. The one place
 * the CLI words the action's checks of its flags.
 */
const FLAG_REFUSALS: Record<string, (raw: string) => string> = {
  priority: (raw) =>
    `--priority must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}: got '${raw}'`,
  blocked_by: (raw) =>
    `--blocked-by takes task ids such as 3,4 (at most ${MAX_BLOCKERS}): got '${raw}'`,
  status: (raw) => `--status must be one of ${TASK_STATUSES.join(", ")}: got '${raw}'`,
};
/** The flag each field of the task actions is given by. */
const FLAGS: Record<string, string> = {
  priority: "priority",
  blocked_by: "blocked-by",
  status: "status",
};

/**
 * A task action's refusal as the CLI says it: a flag's value the action's
 * schema refused names the flag; any other bad input is bad usage (a blocker
 * that does not exist, as a malformed one); a task that is not there, or
 * cannot do it, exit 1.
 */
function refusal(error: ActionError, parsed: ParsedArgs, request: TaskRequest): Error {
  const field = error.field?.split(".")[0] ?? "";
  if (error.code === "invalid" && error.issue && FLAG_REFUSALS[field]) {
    return new UsageError(FLAG_REFUSALS[field](String(parsed.values[FLAGS[field]])));
  }
  if (error.code === "invalid" && error.field !== "id") {
    // What the schema refused of the arguments is refused before anything is added.
    const verb = error.issue && request.action === "add" ? "task add" : "task";
    return new UsageError(`hob ${verb}: ${error.message}`);
  }
  return new CommandError(
    error.code === "invalid" ? `There is no task ${request.id}` : error.message,
  );
}

/** Reads the arguments into a request; bad usage of the positionals is a UsageError. */
function readRequest(parsed: ParsedArgs): TaskRequest {
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
  const { values } = parsed;
  const limit = intOption(parsed, "limit", [1, MAX_TASK_LIST]) ?? 50;
  const [title, prompt] = rest;
  const add = action === "add"
    ? received(newTaskInput, {
      title,
      prompt,
      priority: flagNumber(values.priority),
      blocked_by: flagIds(values["blocked-by"]),
    })
    : undefined;
  const status = received(listTasksInput, { status: values.status }).status;
  const note = typeof values.note === "string" ? values.note : undefined;
  return { action, id, add, status, limit, note };
}

/** A flag's digits as the number they spell; anything else as typed, for the action to refuse. */
function flagNumber(raw: unknown): unknown {
  return typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

/** `--blocked-by 3,4` as the ids it lists; anything else as typed, for the action to refuse. */
function flagIds(raw: unknown): unknown {
  if (raw === undefined) return undefined;
  const parts = String(raw).split(",");
  return parts.every((part) => /^\s*\d+\s*$/.test(part)) ? parts.map(Number) : raw;
}

/** Does what was asked and prints it; returns the exit code. */
function perform(hob: Hob, request: TaskRequest, json: boolean): number {
  const { tasks } = hob.app;
  const { id } = request;
  switch (request.action) {
    case "add": {
      const added = tasks.add(request.add!);
      if (json) outJson(added);
      else {out(
          `Added task ${added.id} '${added.title}'. A worker picks it up while 'hob serve' or 'hob worker' runs.\n`,
        );}
      return EXIT.ok;
    }
    case "list": {
      const { status } = request;
      const list = tasks.list({ status, limit: request.limit });
      if (json) outJson({ tasks: list, counts: tasks.counts() });
      else if (list.length === 0) {
        out(
          status ? `No ${status} tasks.\n` : "No tasks. Add one with: hob task add TITLE PROMPT\n",
        );
      } else list.forEach((each) => out(describe(each)));
      return EXIT.ok;
    }
    case "show":
      show(hob, tasks.get({ id }), json);
      return EXIT.ok;
    case "cancel": {
      const cancelled = tasks.cancel({ id });
      if (json) outJson(cancelled);
      else out(`Cancelled task ${id}.\n`);
      return EXIT.ok;
    }
    default: {
      const resumed = tasks.resume({ id, note: request.note });
      if (json) outJson(resumed);
      else out(`Task ${id} is pending again.\n`);
      return EXIT.ok;
    }
  }
}

/** The messages of a task's run; none once its conversation was deleted. */
function runMessages(hob: Hob, id: string): StoredMessage[] {
  try {
    return hob.app.conversations.messages({ id });
  } catch (error) {
    if (error instanceof ActionError && error.code === "not_found") return [];
    throw error;
  }
}

/** A task with its prompt, output and the messages of its run. */
function show(hob: Hob, found: Task, json: boolean): void {
  const messages = found.conversation_id ? runMessages(hob, found.conversation_id) : [];
  if (json) return outJson({ ...found, messages });
  out(describe(found));
  out(`${dim("prompt")}  ${found.prompt}\n`);
  if (found.output) out(`${dim("output")}  ${plainText(found.output)}\n`);
  if (!found.conversation_id) return;
  out(dim(`conversation ${found.conversation_id} (${messages.length} messages):\n`));
  for (const message of messages) {
    const text = message.role === "assistant" && message.tool_calls?.length
      ? `${message.content} → ${
        message.tool_calls.map((c) => `${c.name}(${c.arguments})`).join(", ")
      }`
      : message.content;
    const line = plainText(text).replace(/\s+/g, " ").slice(0, 200);
    // A failed reply says why, after whatever it wrote.
    const failed = message.error ? red(`failed: ${message.error.message}`) : "";
    out(`  ${dim(message.role.padEnd(9))} ${[line, failed].filter(Boolean).join(" ")}\n`);
  }
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
