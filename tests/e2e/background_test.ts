/**
 * Scheduled jobs and background tasks as a user runs them: `hob cron`,
 * `hob serve` stopped and started, `hob worker` processes sharing one hob.db,
 * against a fake OpenAI-compatible server.
 */

import { openRuntime } from "../../src/runtime/runtime.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";

const QUIET = `heartbeat: { enabled: false }
tasks: { workers: 0 }
memory: { embedder: none }`;

interface Run {
  status: string;
  trigger: string;
  missed_count: number;
  result: string;
}

async function hobJson<T>(args: string[]): Promise<T> {
  const result = await runHob([...args, "--json"]);
  assertEquals(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

Deno.test("runs that fall due while hob is stopped are logged missed, then caught up or skipped per job", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "done" } });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  const h = ["--home", home.home];

  // hob is not running: the jobs are only written to hob.db.
  let slowest = 0;
  for (
    const args of [
      ["catchup", "every 1s", "Say hi"],
      ["skipper", "every 1s", "Say bye", "--missed", "skip"],
    ]
  ) {
    const started = Date.now();
    const added = await runHob(["cron", "add", ...args, ...h]);
    assertEquals(added.code, 0, added.stderr);
    slowest = Math.max(slowest, Date.now() - started);
  }
  // The once: time must still be ahead when the next `hob cron add` has started, however busy
  // the machine: a lead well past the slowest start seen here.
  const onceAt = new Date(Date.now() + Math.max(1_500, 4 * slowest));
  const once = await runHob([
    "cron",
    "add",
    "oneshot",
    `once:${onceAt.toISOString()}`,
    "Just once",
    ...h,
  ]);
  assertEquals(once.code, 0, once.stderr);
  // Let several runs fall due, the once: one included.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, onceAt.getTime() - Date.now()) + 2_500)
  );

  {
    await using hob = await startHob(home.home);
    const stderr = () => hob.stderr();
    for (let i = 0; i < 100 && !/oneshot/.test(stderr()); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertMatch(
      stderr(),
      /Job 'catchup' missed \d+ run\(s\) while hob was not running; running it once now/,
    );
    assertMatch(stderr(), /Job 'skipper' missed \d+ run\(s\) while hob was not running; skipped/);
    assertMatch(stderr(), /Job 'oneshot' missed 1 run\(s\)/);
    // Give the catch-up runs a moment to finish, then stop.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const { runs } = await (await hob.fetch("/api/schedules/3/runs")).json();
      if (runs.some((r: Run) => r.trigger === "catch_up" && r.status === "ok")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // `hob status` finds the server at the port it was given, not the configured one.
    const live = await hobJson<{ server: { url: string; running: boolean } }>(["status", ...h]);
    assertEquals([live.server.url, live.server.running], [hob.url, true]);
    assertEquals(await hob.stop(), 0);
  }

  const oldestFirst = async (job: string) =>
    (await hobJson<{ runs: Run[] }>(["cron", "runs", job, ...h])).runs.reverse();
  const catchup = await oldestFirst("catchup");
  assertEquals([catchup[0].status, catchup[0].trigger], ["missed", "schedule"]);
  assert(catchup[0].missed_count >= 2, `missed ${catchup[0].missed_count}`);
  assertEquals([catchup[1].status, catchup[1].trigger], ["ok", "catch_up"]);
  assertEquals(catchup.filter((r) => r.trigger === "catch_up").length, 1);

  const skipper = await oldestFirst("skipper");
  assertEquals(skipper[0].status, "missed");
  assertMatch(skipper[0].result, /skipped, as the job's policy says/);
  assertEquals(skipper.filter((r) => r.trigger === "catch_up").length, 0);

  const oneshot = await oldestFirst("oneshot");
  assertEquals(oneshot.map((r) => [r.status, r.trigger]), [["missed", "schedule"], [
    "ok",
    "catch_up",
  ]]);

  // The listing and the status show what was missed; the once: job is done.
  const list = await runHob(["cron", "list", ...h]);
  assertMatch(list.stdout, /catchup[\s\S]*missed/);
  const { jobs } = await hobJson<
    { jobs: { name: string; enabled: boolean; next_run: string | null; missed_runs: number }[] }
  >(
    ["cron", "list", ...h],
  );
  const byName = Object.fromEntries(jobs.map((job) => [job.name, job]));
  assertEquals([byName.oneshot.enabled, byName.oneshot.next_run], [false, null]);
  const status = await hobJson<{ jobs: { missed: { name: string; runs: number }[] } }>([
    "status",
    ...h,
  ]);
  assertEquals(status.jobs.missed.map((m) => m.name).sort(), ["catchup", "oneshot", "skipper"]);
  // Every catch-up run went to the model.
  const prompts = fake.requests.filter((r) => r.path === "/v1/chat/completions")
    .map((r) => (r.body.messages as { content: string }[]).at(-1)!.content);
  assert(prompts.some((p) => p.includes("Just once")));
  assert(prompts.some((p) => p.includes("Say hi")));
});

Deno.test("four hob worker processes and 200 tasks on one hob.db: every task runs exactly once", async () => {
  const seen = new Map<number, number>();
  await using fake = startFakeOpenAI({
    respond(body) {
      const messages = body.messages as { role: string; content: string }[];
      const id = Number(
        /Background task #(\d+)/.exec(messages.find((m) => m.role === "user")!.content)![1],
      );
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return {
        tool_calls: [{ name: "complete_task", arguments: { summary: `did #${id}` } }],
        delay_ms: 5,
      };
    },
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  {
    const runtime = await openRuntime({ home: home.home, env: {} });
    for (let i = 1; i <= 200; i++) {
      runtime.background.tasks.add({ title: `task ${i}`, prompt: `Job number ${i}` });
    }
    await runtime.close();
  }

  const results = await Promise.all(
    Array.from({ length: 4 }, () => runHob(["worker", "--once", "--home", home.home])),
  );
  const ran = results.map((result) => {
    assertEquals(result.code, 0, result.stderr);
    return Number(/Ran (\d+) task/.exec(result.stdout)![1]);
  });
  assertEquals(ran.reduce((a, b) => a + b, 0), 200);

  assertEquals(seen.size, 200);
  assertEquals([...seen.values()].every((count) => count === 1), true);
  const runtime = await openRuntime({ home: home.home, env: {} });
  try {
    const tasks = runtime.background.tasks.list({ limit: 1_000 });
    assertEquals(tasks.length, 200);
    for (const task of tasks) {
      assertEquals([task.status, task.attempts, task.output], ["complete", 1, `did #${task.id}`]);
    }
    assertEquals(runtime.background.tasks.workers().length, 0); // each unregistered on exit
    console.log(`  tasks per worker: ${ran.join(", ")}`);
  } finally {
    await runtime.close();
  }
  const show = await runHob(["task", "show", "7", "--home", home.home]);
  assertStringIncludes(show.stdout, "complete");
  assertStringIncludes(show.stdout, "complete_task");
});
