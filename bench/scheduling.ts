/**
 * The scheduler and the task queue under measurement.
 *
 * Precision: a real Scheduler (SQLite file, real clock, its timers and the
 * Deno.cron minute tick) with ten `every 1s` jobs among 1,000 others; how
 * late each run starts after its due time.
 *
 * Claim throughput: four processes share one hob.db — first four bare
 * claimers looping claim-and-finish over 4,000 tasks (the queue alone), then
 * four `hob worker --once` processes running 200 tasks as whole agent turns
 * against a fake model that answers complete_task at once.
 */

import { Scheduler } from "../src/scheduler/scheduler.ts";
import { openDatabase } from "../src/store/database.ts";
import { SqliteJobs } from "../src/store/jobs.ts";
import { SqliteTasks } from "../src/store/tasks.ts";
import { openRuntime } from "../src/runtime/runtime.ts";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { HOB_FLAGS } from "../tests/helpers/hob_process.ts";
import { ms, percentile } from "./stats.ts";

const PRECISION_SECONDS = 15;
const CLAIM_TASKS = 4_000;
const AGENT_TASKS = 200;
const WORKERS = 4;

export interface SchedulingResult {
  runs: number;
  late_p50: number;
  late_p95: number;
  late_max: number;
  claims_per_s: number;
  claim_duplicates: number;
  claim_split: number[];
  agent_tasks_per_s: number;
  agent_split: number[];
}

/** Measures scheduling precision and claim throughput. */
export async function measureScheduling(): Promise<SchedulingResult> {
  return { ...await measurePrecision(), ...await measureClaims(), ...await measureWorkers() };
}

async function measurePrecision() {
  const dir = await Deno.makeTempDir({ prefix: "hob-bench-sched-" });
  const db = openDatabase(`${dir}/hob.db`);
  const jobs = new SqliteJobs(db);
  const late: number[] = [];
  const scheduler = new Scheduler({
    jobs,
    run: (job) => {
      late.push(Date.now() - Date.parse(job.next_run!));
      return Promise.resolve({ ok: true, result: "" });
    },
  });
  for (let i = 0; i < 1_000; i++) {
    scheduler.add({
      name: `idle-${i}`,
      prompt: "p",
      schedule: `${i % 60} ${i % 24} * * *`,
      timezone: "UTC",
    });
  }
  await scheduler.start();
  for (let i = 0; i < 10; i++) {
    scheduler.add({ name: `tick-${i}`, prompt: "p", schedule: "every 1s" });
    await new Promise((resolve) => setTimeout(resolve, 97));
  }
  await new Promise((resolve) => setTimeout(resolve, PRECISION_SECONDS * 1_000));
  await scheduler.stop();
  db.close();
  await Deno.remove(dir, { recursive: true });
  return {
    runs: late.length,
    late_p50: percentile(late, 50),
    late_p95: percentile(late, 95),
    late_max: Math.max(...late),
  };
}

async function measureClaims() {
  const dir = await Deno.makeTempDir({ prefix: "hob-bench-claim-" });
  const path = `${dir}/hob.db`;
  {
    const db = openDatabase(path);
    const tasks = new SqliteTasks(db);
    db.exec("BEGIN");
    for (let i = 0; i < CLAIM_TASKS; i++) {
      tasks.add({ title: `t${i}`, prompt: "p", priority: i % 7 });
    }
    db.exec("COMMIT");
    db.close();
  }
  const script = new URL("./claimer.ts", import.meta.url).pathname;
  const outputs = await Promise.all(
    Array.from(
      { length: WORKERS },
      () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", ...HOB_FLAGS, script, path],
          stdout: "piped",
        }).output(),
    ),
  );
  const claimed = outputs.map((o) =>
    JSON.parse(new TextDecoder().decode(o.stdout)) as { ids: number[]; start: number; end: number }
  );
  // From the first claim of any process to the last: launch time is not the queue's.
  const busyMs = Math.max(...claimed.map((c) => c.end)) - Math.min(...claimed.map((c) => c.start));
  const all = claimed.flatMap((c) => c.ids);
  await Deno.remove(dir, { recursive: true });
  if (all.length !== CLAIM_TASKS) throw new Error(`claimed ${all.length} of ${CLAIM_TASKS}`);
  return {
    claims_per_s: CLAIM_TASKS / (busyMs / 1_000),
    claim_duplicates: all.length - new Set(all).size,
    claim_split: claimed.map((c) => c.ids.length),
  };
}

async function measureWorkers() {
  await using fake = startFakeOpenAI({
    fallback: { tool_calls: [{ name: "complete_task", arguments: { summary: "done" } }] },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    "heartbeat: { enabled: false }\ntasks: { workers: 0 }\nmemory: { embedder: none }",
  ));
  const runtime = await openRuntime({ home: home.home, env: {} });
  for (let i = 0; i < AGENT_TASKS; i++) {
    runtime.background.tasks.add({ title: `t${i}`, prompt: "Do it." });
  }
  await runtime.close();
  const main = new URL("../main.ts", import.meta.url).pathname;
  const outputs = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", ...HOB_FLAGS, main, "worker", "--once", "--home", home.home],
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output()),
  );
  const split = outputs.map((o) =>
    Number(/Ran (\d+)/.exec(new TextDecoder().decode(o.stdout))?.[1] ?? 0)
  );
  // From the first claim to the last finish, as hob.db recorded them: process start-up is not counted.
  const check = await openRuntime({ home: home.home, env: {} });
  const row = check.db.prepare(
    "SELECT MAX(updated_at) AS last, SUM(status = 'complete') AS done FROM tasks",
  ).get() as { last: string; done: number };
  // claimed_at is cleared on finish; the first claim is the earliest conversation.
  const first = check.db.prepare(
    "SELECT MIN(created_at) AS at FROM conversations WHERE kind = 'task'",
  ).get() as {
    at: string;
  };
  await check.close();
  if (row.done !== AGENT_TASKS) throw new Error(`${row.done} of ${AGENT_TASKS} tasks completed`);
  const seconds = (Date.parse(row.last) - Date.parse(first.at)) / 1_000;
  return { agent_tasks_per_s: AGENT_TASKS / seconds, agent_split: split };
}

/** Prints the result lines; given the floor (bench/startup.ts), each time's ratio to it. */
export function formatScheduling(r: SchedulingResult, floor?: number): string {
  return [
    `scheduling precision (${r.runs} runs of 10 'every 1s' jobs among 1,000): late p50 ${
      ms(r.late_p50, floor)
    } · p95 ${ms(r.late_p95, floor)} · max ${ms(r.late_max, floor)}`,
    `task claims, ${WORKERS} processes on one hob.db: ${
      Math.round(r.claims_per_s).toLocaleString("en")
    } claims/s (${CLAIM_TASKS} tasks, split ${
      r.claim_split.join("/")
    }, ${r.claim_duplicates} claimed twice)`,
    `background tasks, ${WORKERS} 'hob worker' processes: ${
      r.agent_tasks_per_s.toFixed(1)
    } tasks/s as whole agent turns (${AGENT_TASKS} tasks, split ${r.agent_split.join("/")})`,
  ].join("\n");
}

if (import.meta.main) {
  console.log(formatScheduling(await measureScheduling()));
  Deno.exit(0); // the Deno.cron minute tick would keep the process alive
}
