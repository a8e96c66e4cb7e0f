/**
 * The model's scheduling tools — schedule_task, list_tasks, cancel_task,
 * create_task, view_task — called by a fake model through the real registry,
 * each in its Worker, reaching the scheduler and the task queue in the host.
 */

import { collectReply } from "../../src/core/reply.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

Deno.test("the model schedules, lists, inspects and cancels jobs and background tasks", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { jobs, tasks } = env.runtime.background;
  const call = async (name: string, args: unknown) => {
    fake.enqueue({ tool_calls: [{ name, arguments: args }] }, { text: "ok" });
    const reply = await collectReply(env.runtime.turn({ message: `use ${name}` }));
    const [result] = reply.tool_calls;
    return result;
  };

  const scheduled = await call("schedule_task", {
    name: "water-plants",
    prompt: "Remind me to water the plants",
    schedule: "0 18 * * 5",
    timezone: "Europe/Paris",
  });
  assertEquals(scheduled.is_error, false, scheduled.result ?? "");
  assertMatch(
    scheduled.result!,
    /^Scheduled job 1 'water-plants' \(0 18 \* \* 5, Europe\/Paris\); next run/,
  );
  assertEquals(jobs.get("water-plants")?.prompt, "Remind me to water the plants");

  const badSchedule = await call("schedule_task", { name: "x", prompt: "p", schedule: "someday" });
  assertEquals(badSchedule.is_error, true);
  assertStringIncludes(badSchedule.result!, "is not a schedule");

  const created = await call("create_task", {
    title: "Research tents",
    prompt: "Compare three tents",
    priority: 2,
  });
  assertMatch(created.result!, /^Queued background task 1 'Research tents'/);
  assertEquals(tasks.get(1)?.priority, 2);

  const listed = await call("list_tasks", {});
  assertStringIncludes(listed.result!, "job 1 'water-plants': 0 18 * * 5 (Europe/Paris)");
  assertStringIncludes(listed.result!, "task 1 'Research tents': pending, priority 2");

  const viewed = await call("view_task", { id: 1 });
  assertStringIncludes(viewed.result!, "Task 1 'Research tents': pending");
  assertStringIncludes(viewed.result!, "Compare three tents");

  const neither = await call("cancel_task", {});
  assertEquals(neither.is_error, true);
  assertStringIncludes(neither.result!, "exactly one of 'schedule' or 'task'");
  const cancelledJob = await call("cancel_task", { schedule: "water-plants" });
  assertStringIncludes(cancelledJob.result!, "Removed scheduled job 1 'water-plants'");
  assertEquals(jobs.list().length, 0);
  const cancelledTask = await call("cancel_task", { task: 1 });
  assertStringIncludes(cancelledTask.result!, "Cancelled background task 1");
  assertEquals(tasks.get(1)?.status, "cancelled");
});
