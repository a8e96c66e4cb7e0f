/**
 * Every model call counted, through a real runtime and a fake
 * OpenAI-compatible provider that reports usage in the real wire format:
 * chats (their titles too), a heartbeat, a job and a task add up to what the
 * provider reported, to the token; budgets pause a job (telling the owner
 * once) and warn a chat.
 */

import { HEARTBEAT_OK } from "../../src/scheduler/heartbeat.ts";
import { openRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import type { AgentEvent } from "../../src/core/types.ts";
import { type FakeUsage, startFakeOpenAI } from "../fakes/openai_server.ts";
import { startFakeAnthropic } from "../fakes/anthropic_server.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";

/** A clock the test moves by hand. */
function handClock(start: string) {
  let now = new Date(start);
  return { now: () => now, set: (at: string) => now = new Date(at) };
}

async function runtimeWith(
  home: string,
  clock: { now: () => Date },
): Promise<Runtime & AsyncDisposable> {
  const runtime = await openRuntime({ home, env: {}, clock });
  return Object.assign(runtime, { [Symbol.asyncDispose]: () => runtime.close() });
}

function sum(usages: FakeUsage[]) {
  return {
    calls: usages.length,
    input_tokens: usages.reduce((n, u) => n + u.prompt_tokens, 0),
    output_tokens: usages.reduce((n, u) => n + u.completion_tokens, 0),
    cached_tokens: usages.reduce((n, u) => n + (u.cached_tokens ?? 0), 0),
  };
}

async function chat(runtime: Runtime, message: string, conversation_id?: string) {
  const events: AgentEvent[] = [];
  for await (const event of await runtime.app.conversations.turn({ message, conversation_id })) {
    events.push(event);
  }
  return events;
}

const PRICES = `usage:
  prices:
    fake/fake-model: { input: 2, output: 4, cached: 1 }
`;

Deno.test("the call log adds up to what the provider reported, by kind, to the token", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, PRICES));
  await Deno.writeTextFile(`${home.home}/identity/HEARTBEAT.md`, "- Is the backup fresh?\n");
  const clock = handClock("2026-11-26T10:00:00Z");
  await using runtime = await runtimeWith(home.home, clock);

  // Two chat turns: the first is titled (a call of its own), the second calls a tool.
  fake.enqueue({
    text: "Hello!",
    usage: { prompt_tokens: 120, completion_tokens: 7, cached_tokens: 100 },
  });
  const first = await chat(runtime, "Hi there");
  const conversation = (first[0] as { conversation_id: string }).conversation_id;
  fake.enqueue(
    {
      tool_calls: [{ name: "get_time", arguments: {} }],
      usage: { prompt_tokens: 50, completion_tokens: 3 },
    },
    { text: "It is ten.", usage: { prompt_tokens: 60, completion_tokens: 4 } },
  );
  await chat(runtime, "What time is it?", conversation);
  // The heartbeat, a job and a task.
  fake.enqueue({ text: HEARTBEAT_OK, usage: { prompt_tokens: 30, completion_tokens: 2 } });
  assertEquals((await runtime.background.heartbeat.tick()).status, "ok");
  fake.enqueue({ text: "Digest done.", usage: { prompt_tokens: 40, completion_tokens: 6 } });
  runtime.app.schedules.add({ name: "digest", prompt: "Digest my notes", schedule: "every 1h" });
  assertEquals((await runtime.app.schedules.run({ key: "digest" })).status, "ok");
  const task = runtime.background.tasks.add({ title: "Sum", prompt: "Add 2 and 3." });
  fake.enqueue({
    tool_calls: [{ name: "complete_task", arguments: { summary: "5" } }],
    usage: { prompt_tokens: 70, completion_tokens: 8, cached_tokens: 20 },
  });
  assertEquals((await runtime.background.worker("test").runOnce())?.status, "complete");

  const report = await runtime.app.usage.report({ since: "1d", by: "kind" });
  const { cost_usd, ...tokens } = report.totals;
  assertEquals(tokens, sum(fake.reported));
  const expectedCost = fake.reported.reduce(
    (usd, u) =>
      usd + ((u.prompt_tokens - (u.cached_tokens ?? 0)) * 2 + (u.cached_tokens ?? 0) * 1 +
          u.completion_tokens * 4) / 1_000_000,
    0,
  );
  assert(Math.abs(cost_usd - expectedCost) < 1e-12, `${cost_usd} ≠ ${expectedCost}`);

  const byKind = Object.fromEntries(
    report.groups.map((g) => [g.key, [g.calls, g.input_tokens, g.output_tokens, g.cached_tokens]]),
  );
  assertEquals(byKind, {
    chat: [3, 230, 14, 100],
    title: [1, 10, 5, 0],
    heartbeat: [1, 30, 2, 0],
    job: [1, 40, 6, 0],
    task: [1, 70, 8, 20],
  });

  await otherGroupings(runtime, task.id);
});

/** The same calls by job (only the job's have one) and by model. */
async function otherGroupings(runtime: Runtime, taskId: number) {
  const byJob = (await runtime.app.usage.report({ by: "job" })).groups;
  assertEquals(byJob.find((g) => g.key === "digest")?.input_tokens, 40);
  const calls = (await runtime.app.usage.report({ by: "model" })).groups;
  assertEquals(calls.map((g) => g.key), ["fake/fake-model"]);
  assert(taskId > 0);
}

Deno.test("budgetPause pauses a job that would go over its cap, tells the owner once, resumes the next day", async () => {
  await using fake = startFakeOpenAI({
    fallback: { text: "done", usage: { prompt_tokens: 10, completion_tokens: 5 } },
  });
  // A run costs 10 × $1000/M + 5 × $1000/M = $0.015; the job may spend $0.02 a day.
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `usage:
  prices:
    fake-model: { input: 1000, output: 1000 }
  budgets:
    jobs:
      digest: { daily_usd: 0.02 }
`,
  ));
  const clock = handClock("2026-11-26T10:00:00Z");
  await using runtime = await runtimeWith(home.home, clock);
  const { scheduler, jobs, notifications } = runtime.background;
  const job = runtime.app.schedules.add({
    name: "digest",
    prompt: "Digest",
    schedule: "every 10m",
  });
  const tickAt = async (at: string) => {
    clock.set(at);
    await scheduler.tick();
    await scheduler.idle();
  };

  await tickAt("2026-11-26T10:10:00Z");
  await tickAt("2026-11-26T10:20:00Z");
  await tickAt("2026-11-26T10:30:00Z");
  const runs = jobs.runs(job.id).reverse();
  assertEquals(runs.map((run) => run.status), ["ok", "skipped", "skipped"]);
  assertEquals(
    runs[1].result,
    "paused by the budget: its own cap of $0.020 a day ($0.015 spent, a run costs about $0.015)" +
      " — it runs again when the day (UTC) turns",
  );
  assertEquals(fake.requests.filter((r) => r.path === "/v1/chat/completions").length, 1);
  const told = notifications.list().filter((n) => n.kind === "budget");
  assertEquals(told.map((n) => n.title), ["Budget: job 'digest' paused"]);

  // A new day: it runs again.
  await tickAt("2026-11-27T00:10:00Z");
  assertEquals(jobs.runs(job.id)[0].status, "ok");
  assertEquals(
    (await runtime.app.usage.report({ since: "2026-11-26", by: "job" })).groups[0].calls,
    2,
  );
});

Deno.test("a chat is warned at 80 % of the day's budget and still answered", async () => {
  await using fake = startFakeOpenAI({
    fallback: { text: "sure", usage: { prompt_tokens: 10, completion_tokens: 5 } },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `usage:
  prices:
    fake-model: { input: 1000, output: 1000 }
  budgets: { daily_usd: 0.05 }
`,
  ));
  await using runtime = await runtimeWith(home.home, handClock("2026-11-26T10:00:00Z"));
  const notices = (events: AgentEvent[]) =>
    events.filter((e) => e.type === "notice" && e.code === "budget").map((e) =>
      (e as { message: string }).message
    );
  // $0.03 after the first turn (its reply and its title), $0.045 after the second.
  const first = await chat(runtime, "one");
  const id = (first[0] as { conversation_id: string }).conversation_id;
  assertEquals(notices(first), []);
  assertEquals(notices(await chat(runtime, "two", id)), []);
  const third = await chat(runtime, "three", id);
  assertEquals(notices(third), [
    "Today's model spend is $0.045 of the $0.050 daily budget (90 %).",
  ]);
  // Warned, not refused: the turn was answered.
  const done = third.at(-1)!;
  assertEquals(done.type === "done" && done.status, "complete");
});

Deno.test("budgetPause pauses the heartbeat at its cap and says so once", async () => {
  await using fake = startFakeOpenAI({
    fallback: { text: HEARTBEAT_OK, usage: { prompt_tokens: 10, completion_tokens: 5 } },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `usage:
  prices:
    fake-model: { input: 1000, output: 1000 }
  budgets:
    heartbeat: { daily_usd: 0.02 }
`,
  ));
  await Deno.writeTextFile(`${home.home}/identity/HEARTBEAT.md`, "- Anything due?\n");
  await using runtime = await runtimeWith(home.home, handClock("2026-11-26T10:00:00Z"));
  const { heartbeat, notifications } = runtime.background;
  assertEquals((await heartbeat.tick()).status, "ok");
  const paused = await heartbeat.tick();
  assertEquals(paused.status, "paused");
  assertEquals(
    paused.error,
    "paused by the budget: the heartbeat's cap of $0.020 a day ($0.015 spent, a run costs about" +
      " $0.015) — it runs again when the day (UTC) turns",
  );
  assertEquals((await heartbeat.tick()).status, "paused");
  assertEquals(heartbeat.state().last_status, "paused");
  assertEquals(
    notifications.list().filter((n) => n.kind === "budget").map((n) => n.title),
    ["Budget: the heartbeat paused"],
  );
  assertEquals(fake.requests.filter((r) => r.path === "/v1/chat/completions").length, 1);
});

Deno.test("countingRouter counts an Anthropic reply's cached prompt tokens", async () => {
  await using fake = startFakeAnthropic({ fallback: { text: "Hi", cache_read: 4000 } });
  await using home = await tempHome(`model: claude/claude-sonnet-4-5
agent: { auto_title: false }
providers:
  claude: { type: anthropic, base_url: "${fake.url}", api_key: test-key, max_retries: 0 }
`);
  await using runtime = await runtimeWith(home.home, handClock("2026-11-26T10:00:00Z"));
  await chat(runtime, "Hello");
  const report = await runtime.app.usage.report({ by: "kind" });
  // The fake reports 12 plain input tokens, 4000 read from the cache and 7 output tokens.
  const { cost_usd, ...tokens } = report.totals;
  assertEquals(tokens, { calls: 1, input_tokens: 4012, output_tokens: 7, cached_tokens: 4000 });
  // hob's default price of claude-sonnet-4-5: $3 in, $0.30 cached, $15 out per million.
  assert(Math.abs(cost_usd - (12 * 3 + 4000 * 0.3 + 7 * 15) / 1_000_000) < 1e-12, `${cost_usd}`);
});

Deno.test("a call that failed midway is counted with the tokens its provider reported", async (t) => {
  await t.step("OpenAI-compatible: usage in the error's chunk", async () => {
    await using fake = startFakeOpenAI({
      fallback: {
        text: "Half",
        stream_error: "the model died",
        usage: { prompt_tokens: 40, completion_tokens: 3 },
      },
    });
    await using home = await tempHome(fakeProviderYaml(fake.url, "agent: { auto_title: false }"));
    await using runtime = await runtimeWith(home.home, handClock("2026-11-26T10:00:00Z"));
    const events = await chat(runtime, "Hello");
    assert(events.some((e) => e.type === "error"), "the turn failed");
    const { cost_usd: _, ...tokens } = (await runtime.app.usage.report({ by: "kind" })).totals;
    assertEquals(tokens, { calls: 1, input_tokens: 40, output_tokens: 3, cached_tokens: 0 });
  });
  await t.step("Anthropic: usage in a message_delta before the error event", async () => {
    await using fake = startFakeAnthropic({
      fallback: { text: "Half", stream_error: "Overloaded", output_tokens: 5 },
    });
    await using home = await tempHome(`model: claude/claude-sonnet-4-5
agent: { auto_title: false }
providers:
  claude: { type: anthropic, base_url: "${fake.url}", api_key: test-key, max_retries: 0 }
`);
    await using runtime = await runtimeWith(home.home, handClock("2026-11-26T10:00:00Z"));
    await chat(runtime, "Hello");
    const { cost_usd: _, ...tokens } = (await runtime.app.usage.report({ by: "kind" })).totals;
    assertEquals(tokens, { calls: 1, input_tokens: 12, output_tokens: 5, cached_tokens: 0 });
  });
});
