/** The model call log on a real SQLite file: owners found from the conversation, sums by group, spend. */

import { SqliteJobs } from "../../src/store/jobs.ts";
import { type NewModelCall, SqliteModelCalls } from "../../src/store/model_calls.ts";
import { SqliteTasks } from "../../src/store/tasks.ts";
import { assertEquals } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

function call(overrides: Partial<NewModelCall>): NewModelCall {
  return {
    at: "2026-11-26T10:00:00.000Z",
    model: "openai/gpt-4o",
    provider: "openai",
    kind: "chat",
    conversation_id: null,
    tool: null,
    input_tokens: 100,
    output_tokens: 10,
    cached_tokens: 0,
    cost_usd: 0.5,
    error: null,
    ...overrides,
  };
}

Deno.test("SqliteModelCalls records owners and sums by group and period", async (t) => {
  using temp = tempStore();
  const calls = new SqliteModelCalls(temp.db);
  const jobConversation = temp.store.createConversation({ kind: "job" });
  const taskConversation = temp.store.createConversation({ kind: "task" });
  new SqliteJobs(temp.db).create({
    name: "digest",
    prompt: "p",
    schedule: "every 1h",
    timezone: "UTC",
    next_run: null,
    anchor: "2026-11-26T00:00:00.000Z",
  });
  temp.db.prepare("UPDATE jobs SET conversation_id = ? WHERE name = 'digest'").run(
    jobConversation.id,
  );
  const tasks = new SqliteTasks(temp.db);
  const task = tasks.add({ title: "t", prompt: "p" });
  tasks.setConversation(task.id, taskConversation.id);

  calls.record(call({ at: "2026-11-25T23:59:59.000Z", cost_usd: 1 }));
  calls.record(call({ kind: "job", conversation_id: jobConversation.id, cost_usd: 0.25 }));
  calls.record(call({ kind: "task", conversation_id: taskConversation.id, cached_tokens: 40 }));
  calls.record(
    call({ kind: "skill", tool: "press_release", model: "ollama/llama3.2", cost_usd: 0 }),
  );

  await t.step("the job and the task are found from the conversation", () => {
    const byJob = calls.summarize("2026-11-01T00:00:00.000Z", "job");
    // The costliest first: the calls of no job cost $1.50, the job's $0.25.
    assertEquals(byJob.map((row) => [row.key, row.calls]), [[null, 3], ["digest", 1]]);
    const row = temp.db.prepare("SELECT task_id FROM model_calls WHERE kind = 'task'").get() as {
      task_id: number;
    };
    assertEquals(row.task_id, task.id);
  });

  await t.step("sums by day, tool and in total", () => {
    const days = calls.summarize("2026-11-01T00:00:00.000Z", "day");
    assertEquals(days.map((d) => [d.key, d.calls, d.cost_usd]), [
      ["2026-11-25", 1, 1],
      ["2026-11-26", 3, 0.75],
    ]);
    const tools = calls.summarize("2026-11-26T00:00:00.000Z", "tool");
    assertEquals(tools.find((row) => row.key === "press_release")?.calls, 1);
    assertEquals(calls.totals("2026-11-26T00:00:00.000Z"), {
      calls: 3,
      input_tokens: 300,
      output_tokens: 30,
      cached_tokens: 40,
      cost_usd: 0.75,
    });
  });

  await t.step("spend since a time, by job or kind, and of a conversation", () => {
    assertEquals(calls.spend("2026-11-26T00:00:00.000Z"), 0.75);
    assertEquals(calls.spend("2026-11-01T00:00:00.000Z"), 1.75);
    assertEquals(calls.spend("2026-11-01T00:00:00.000Z", { job: "digest" }), 0.25);
    assertEquals(calls.spend("2026-11-01T00:00:00.000Z", { kind: "task" }), 0.5);
    assertEquals(calls.conversationCost(jobConversation.id), 0.25);
  });
});
