/**
 * `hob cron`: scheduled jobs — list, add, remove, enable, disable, run now,
 * and their run logs. A translator: arguments become the app's schedule
 * actions (src/app/schedules.ts), checked before the home is opened, and
 * their refusals become exit 2 (bad usage) or exit 1 (no such job, a name in
 * use, a job running already), one line each.
 */

import { ActionError, checkInput } from "../app/errors.ts";
import type { NewScheduleInput } from "../app/schedules.ts";
import { showTime } from "../app/times.ts";
import type { JobRun, JobView } from "../store/jobs.ts";
import type { Hob } from "../app/hob.ts";
import {
  type Command,
  CommandError,
  EXIT,
  intOption,
  type ParsedArgs,
  UsageError,
} from "./command.ts";
import { inHome } from "../home/where.ts";
import { existingHome, openHome } from "./open.ts";
import { runningServer, seenBy } from "./running.ts";
import { dim, out, outJson, red } from "./output.ts";

const ACTIONS = ["list", "add", "remove", "enable", "disable", "run", "runs"];

export const cron: Command = {
  name: "cron",
  summary: "Scheduled jobs: list, add, remove, enable, disable, run, runs",
  help: `Usage: hob cron list [--json]
       hob cron add NAME SCHEDULE PROMPT [--timezone TZ] [--missed run_once|skip] [--model M] [--deliver CH] [--disabled]
       hob cron remove|enable|disable JOB
       hob cron run JOB [--json]
       hob cron runs JOB [--limit N] [--json]

A job sends its PROMPT to the agent on its SCHEDULE, in the job's own
conversation, while 'hob serve' runs. JOB is a job's id or name.

Schedules:
  "0 9 * * 1-5"                 cron, five fields, in --timezone (default: the machine's)
  "every 10m"                   every N s, m, h or d
  "once:2026-12-24T18:00"       once (local time in --timezone, or give an offset)

Runs that fall due while hob is not running are logged as 'missed' and, by
default, caught up once when it starts (--missed skip: not caught up).
Times are shown in your zone (TZ, else the machine's), labelled with it; a
job's own zone is shown beside its schedule.

Options:
  --timezone TZ  IANA zone for the schedule, e.g. Europe/Berlin
  --missed P     run_once (default) or skip
  --model M      a model for this job, as <provider>/<model>
  --deliver CH   also send each result to you on channel CH (telegram)
  --disabled     add the job switched off
  --limit N      how many runs 'runs' lists (default 20)
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: {
    timezone: { type: "string" },
    missed: { type: "string" },
    model: { type: "string" },
    deliver: { type: "string" },
    disabled: { type: "boolean" },
    limit: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: [1, 4],
  async run(parsed) {
    const json = Boolean(parsed.values.json);
    // A running server knows the jobs already: asking takes a request, opening the home a load
    // (and a plain list needs none of the schemas that check what the other actions take).
    if (isPlainList(parsed)) {
      const home = await existingHome(parsed);
      const server = await runningServer(home);
      const listed = await server?.get<{ schedules: JobView[] }>("/api/schedules");
      if (listed) {
        listJobs(listed.schedules, json);
        if (!json) out(dim(seenBy(server!)));
        return EXIT.ok;
      }
      // With no server, the jobs table is all a list reads: no runtime, when hob.db allows.
      const { readJobViews } = await import("../store/read_only.ts");
      const views = readJobViews(inHome(home, "hob.db"));
      if (views) {
        listJobs(views, json);
        return EXIT.ok;
      }
    }
    const request = await readRequest(parsed);
    const hob = await openHome(parsed);
    try {
      return await perform(hob, request, json);
    } catch (error) {
      if (!(error instanceof ActionError)) throw error;
      // A key no job can have (too long for a name) names no job either.
      if (error.code === "not_found" || error.field === "key") {
        throw new CommandError(`no job '${request.key}' — see 'hob cron list'`);
      }
      if (error.code !== "invalid") throw new CommandError(error.message);
      throw new UsageError(
        error.field === "model" ? `--model: ${error.message}` : `hob cron: ${error.message}`,
      );
    } finally {
      await hob.close();
    }
  },
};

/** What the command line asks for, checked by the app's schemas before the home is opened. */
interface CronRequest {
  action: string;
  /** The job's id or name. */
  key: string;
  add?: NewScheduleInput;
  limit: number;
}

/** `hob cron list` and nothing more than `--json` or `--home`. */
function isPlainList(parsed: ParsedArgs): boolean {
  const { values, positionals } = parsed;
  return positionals.length === 1 && positionals[0] === "list" &&
    Object.keys(cron.options ?? {}).every((name) => name === "json" || values[name] === undefined);
}

/** Reads and checks the arguments; bad usage is a UsageError naming the flag or argument. */
async function readRequest(parsed: ParsedArgs): Promise<CronRequest> {
  const { MAX_RUNS_LIST, newScheduleInput } = await import("../app/schedules.ts");
  const [action, ...rest] = parsed.positionals;
  if (!ACTIONS.includes(action)) {
    throw new UsageError(`hob cron: unknown action '${action}' — use ${ACTIONS.join(", ")}`);
  }
  const wanted = action === "add" ? 3 : action === "list" ? 0 : 1;
  // An empty NAME, SCHEDULE or PROMPT (`""` in the shell) is as good as a missing one.
  if (rest.length !== wanted || rest.some((text) => !text.trim())) {
    throw new UsageError(
      action === "add"
        ? 'hob cron add: needs NAME, SCHEDULE and PROMPT — e.g. hob cron add standup "0 9 * * 1-5" "Plan my day"'
        : wanted === 0
        ? `hob cron list: unexpected argument '${rest[0]}'`
        : `hob cron ${action}: needs the job's id or name`,
    );
  }
  const missed = parsed.values.missed as string | undefined;
  if (!newScheduleInput.shape.missed_policy.safeParse(missed).success) {
    throw new UsageError(`--missed must be run_once or skip: got '${missed}'`);
  }
  const limit = intOption(parsed, "limit", [1, MAX_RUNS_LIST]) ?? 20;
  let add: NewScheduleInput | undefined;
  if (action === "add") {
    const [name, schedule, prompt] = rest;
    add = {
      name,
      schedule,
      prompt,
      timezone: parsed.values.timezone as string | undefined,
      missed_policy: missed as NewScheduleInput["missed_policy"],
      model: (parsed.values.model as string | undefined) ?? null,
      deliver: (parsed.values.deliver as NewScheduleInput["deliver"]) ?? null,
      enabled: !parsed.values.disabled,
    };
  }
  if (add) {
    try {
      checkInput(newScheduleInput, add);
    } catch (error) {
      if (!(error instanceof ActionError)) throw error;
      throw new UsageError(
        error.field === "model" || error.field === "deliver"
          ? `--${error.field}: ${error.issue?.message ?? error.message}`
          : `hob cron add: ${error.message}`,
      );
    }
  }
  return { action, key: rest[0] ?? "", add, limit };
}

/** `list`: every job, as JSON or a few lines each. */
function listJobs(views: JobView[], json: boolean): number {
  if (json) outJson({ jobs: views });
  else if (views.length === 0) {
    out("No scheduled jobs. Add one with: hob cron add NAME SCHEDULE PROMPT\n");
  } else views.forEach((view) => out(describe(view)));
  return EXIT.ok;
}

/** Does what was asked and prints it; returns the exit code. */
async function perform(hob: Hob, request: CronRequest, json: boolean): Promise<number> {
  const { schedules } = hob.app;
  const { key } = request;
  switch (request.action) {
    case "list":
      return listJobs(schedules.list(), json);
    case "add": {
      const job = schedules.add(request.add!);
      if (json) outJson(job);
      else {out(
          `Added job ${job.id} '${job.name}'; next run ${when(job.next_run)}.\n`,
        );}
      return EXIT.ok;
    }
    case "remove": {
      const job = schedules.remove({ key });
      if (json) outJson({ deleted: job.id });
      else out(`Removed job ${job.id} '${job.name}' and its run log.\n`);
      return EXIT.ok;
    }
    case "enable":
    case "disable": {
      const job = schedules.update({ key, enabled: request.action === "enable" });
      if (json) outJson(job);
      else {
        out(
          request.action === "enable"
            ? `Enabled '${job.name}'; next run ${when(job.next_run)}.\n`
            : `Disabled '${job.name}'.\n`,
        );
      }
      return EXIT.ok;
    }
    case "run":
      return await runNow(hob, key, json);
    default: {
      const job = schedules.get({ key });
      const runs = schedules.runs({ key: job.id, limit: request.limit });
      if (json) outJson({ runs });
      else if (runs.length === 0) out(`'${job.name}' has not run yet.\n`);
      else runs.forEach((run) => out(describeRun(run)));
      return EXIT.ok;
    }
  }
}

/** Runs a job now and prints its answer; exit 1 when the run failed. */
async function runNow(hob: Hob, key: string, json: boolean): Promise<number> {
  const job = hob.app.schedules.get({ key });
  if (!json) out(dim(`Running '${job.name}'…\n`));
  const run = await hob.app.schedules.run({ key: job.id });
  if (json) outJson(run);
  else {
    out(`${run.result || "(no answer)"}\n`);
    if (run.error) out(red(`error: ${run.error}\n`));
    out(dim(`run ${run.id} · ${run.status} · conversation ${run.conversation_id ?? "-"}\n`));
  }
  return run.status === "ok" ? EXIT.ok : EXIT.failure;
}

function describe(job: JobView): string {
  const lines = [
    `${String(job.id).padStart(3)}  ${job.name}  ${dim(`${job.schedule} (${job.timezone})`)}${
      job.deliver ? dim(` → ${job.deliver}`) : ""
    }${job.enabled ? "" : red("  disabled")}\n`,
    `     next ${when(job.next_run)} · last ${
      job.last_run ? `${when(job.last_run)} ${job.last_status ?? ""}` : "never"
    }${
      job.missed_runs
        ? ` · ${job.missed_runs} missed (last noticed ${when(job.last_missed_at)})`
        : ""
    }\n`,
  ];
  if (job.last_failure) {
    lines.push(
      red(
        `     last failure ${when(job.last_failure.at)}: ${job.last_failure.error}\n`,
      ),
    );
  }
  return lines.join("");
}

function describeRun(run: JobRun): string {
  const status = run.status === "ok" ? run.status : red(run.status);
  const detail = run.error ?? run.result;
  return `${String(run.id).padStart(4)}  ${when(run.started_at)}  ${status}${
    run.trigger !== "schedule" ? dim(` (${run.trigger})`) : ""
  }${run.missed_count ? ` ×${run.missed_count}` : ""}  ${dim(oneLine(detail, 100))}\n`;
}

/** A time as every command shows it: in the user's zone, labelled (src/app/times.ts). */
function when(iso: string | null): string {
  return showTime(iso, { seconds: true });
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
