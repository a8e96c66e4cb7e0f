/** The schedules, tasks, notifications and status routes through the real API and runtime. */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml } from "../helpers/home.ts";

Deno.test("schedules: create, read, change, run now, read the log, delete", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(fakeProviderYaml(fake.url));
  let id = 0;

  await t.step("POST /api/schedules stores a job with its next run in its zone", async () => {
    const response = await api.call("/api/schedules", {
      method: "POST",
      json: {
        name: "standup",
        prompt: "Plan my day",
        schedule: "0 9 * * 1-5",
        timezone: "Europe/Berlin",
      },
    });
    assertEquals(response.status, 201);
    const job = await response.json();
    id = job.id;
    assertEquals([job.name, job.timezone, job.enabled, job.missed_policy], [
      "standup",
      "Europe/Berlin",
      true,
      "run_once",
    ]);
    const next = new Date(job.next_run);
    const hour = new Intl.DateTimeFormat("en", {
      timeZone: "Europe/Berlin",
      hour: "2-digit",
      hourCycle: "h23",
    })
      .format(next);
    assertEquals(hour, "09");
    assertEquals((await (await api.call("/api/schedules")).json()).schedules.length, 1);
  });

  await t.step("bad input is a 4xx naming the field", async () => {
    const bad = async (json: unknown, status: number, field?: string, pattern?: RegExp) => {
      const response = await api.call("/api/schedules", { method: "POST", json });
      assertEquals(response.status, status);
      const { error } = await response.json();
      if (field) assertEquals(error.field, field);
      if (pattern) assertMatch(error.message, pattern);
    };
    await bad({ name: "x", prompt: "p", schedule: "every day" }, 400, "schedule", /'every 10m'/);
    await bad(
      { name: "x", prompt: "p", schedule: "0 9 * * *", timezone: "Mars/Base" },
      400,
      "timezone",
    );
    await bad(
      { name: "x", prompt: "p", schedule: "once:2001-01-01T00:00Z" },
      400,
      "schedule",
      /in the past/,
    );
    await bad({ name: "x", schedule: "every 1h" }, 400, "prompt");
    await bad({ name: "x", prompt: "p", schedule: "every 1h", color: "red" }, 400, "color");
    await bad(
      { name: "standup", prompt: "p", schedule: "every 1h" },
      409,
      undefined,
      /exists already/,
    );
    await bad({ name: "x", prompt: "p", schedule: "every 1h", model: "nowhere/m" }, 400, "model");
    assertEquals((await api.call("/api/schedules/999")).status, 404);
  });

  await t.step(
    "PATCH changes the schedule and recomputes the next run; disabling keeps it",
    async () => {
      const response = await api.call(`/api/schedules/${id}`, {
        method: "PATCH",
        json: { schedule: "every 2h" },
      });
      assertEquals(response.status, 200);
      const job = await response.json();
      assertEquals(job.schedule, "every 2h");
      const inHours = (new Date(job.next_run).getTime() - Date.now()) / 3_600_000;
      assert(inHours > 1.9 && inHours <= 2, String(inHours));
      const off = await (await api.call(`/api/schedules/${id}`, {
        method: "PATCH",
        json: { enabled: false },
      })).json();
      assertEquals(off.enabled, false);
    },
  );

  await t.step("POST /run runs it now in its own conversation; the runs log has it", async () => {
    fake.enqueue({ text: "Your day: write the report." });
    const response = await api.call(`/api/schedules/${id}/run`, { method: "POST" });
    assertEquals(response.status, 200);
    const run = await response.json();
    assertEquals([run.status, run.trigger, run.result], [
      "ok",
      "manual",
      "Your day: write the report.",
    ]);
    assert(run.input_tokens > 0);
    const sent = (fake.requests.at(-1)!.body.messages as { content: string }[]).at(-1)!.content;
    assertStringIncludes(sent, 'Scheduled job "standup"');
    assertStringIncludes(sent, "Plan my day");
    const conversation = await (await api.call(`/api/conversations/${run.conversation_id}`)).json();
    assertEquals(conversation.kind, "job");
    const { runs } = await (await api.call(`/api/schedules/${id}/runs`)).json();
    assertEquals(runs.map((r: { id: number }) => r.id), [run.id]);
    // Job conversations are not among the user's chats, but can be listed.
    assertEquals((await (await api.call("/api/conversations")).json()).conversations.length, 0);
    assertEquals(
      (await (await api.call("/api/conversations?kind=job")).json()).conversations.length,
      1,
    );
  });

  await t.step("DELETE removes it and its log", async () => {
    assertEquals((await api.call(`/api/schedules/${id}`, { method: "DELETE" })).status, 204);
    assertEquals((await api.call(`/api/schedules/${id}/runs`)).status, 404);
  });
});

Deno.test("tasks, notifications and status through the API", async (t) => {
  await using fake = startFakeOpenAI({
    fallback: { tool_calls: [{ name: "complete_task", arguments: { summary: "All tidy." } }] },
  });
  await using api = await tempApi(fakeProviderYaml(fake.url));

  await t.step("POST /api/tasks queues one; bad blockers are a 400 naming the field", async () => {
    const response = await api.call("/api/tasks", {
      method: "POST",
      json: { title: "Tidy notes", priority: 3 },
    });
    assertEquals(response.status, 201);
    const task = await response.json();
    assertEquals([task.status, task.prompt, task.priority], ["pending", "Tidy notes", 3]);
    const bad = await api.call("/api/tasks", {
      method: "POST",
      json: { title: "x", blocked_by: [42] },
    });
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.field, "blocked_by");
    const missing = await api.call("/api/tasks", { method: "POST", json: { priority: 1 } });
    assertEquals((await missing.json()).error.field, "title");
  });

  await t.step("a worker runs it; GET shows it complete with a notification", async () => {
    await api.runtime.background.worker("test").runOnce();
    const { tasks, counts } = await (await api.call("/api/tasks")).json();
    assertEquals([tasks[0].status, tasks[0].output], ["complete", "All tidy."]);
    assertEquals(counts.complete, 1);
    const one = await (await api.call(`/api/tasks/${tasks[0].id}`)).json();
    assert(one.conversation_id);
    const notes = await (await api.call("/api/notifications?unread=1")).json();
    assertEquals(notes.unread, 1);
    assertStringIncludes(notes.notifications[0].title, "done: Tidy notes");
    const read = await api.call(`/api/notifications/${notes.notifications[0].id}/read`, {
      method: "POST",
    });
    assertEquals((await read.json()).unread, 0);
    assertEquals((await api.call("/api/notifications/999/read", { method: "POST" })).status, 404);
  });

  await t.step("cancel and resume say when they cannot", async () => {
    const task = await (await api.call("/api/tasks", { method: "POST", json: { title: "Later" } }))
      .json();
    const cancelled = await api.call(`/api/tasks/${task.id}/cancel`, { method: "POST" });
    assertEquals((await cancelled.json()).status, "cancelled");
    assertEquals((await api.call(`/api/tasks/${task.id}/cancel`, { method: "POST" })).status, 409);
    const resumed = await api.call(`/api/tasks/${task.id}/resume`, {
      method: "POST",
      json: { note: "now" },
    });
    assertEquals((await resumed.json()).status, "pending");
    assertEquals((await api.call("/api/tasks/77/resume", { method: "POST" })).status, 404);
  });

  await t.step("GET /api/status gives one view of everything", async () => {
    const status = await (await api.call("/api/status")).json();
    assertEquals(status.server.running, true);
    assertEquals([status.model.id, status.model.reachable], ["fake/fake-model", true]);
    assertEquals(status.tasks.counts.complete, 1);
    assertEquals(status.tasks.counts.pending, 1);
    assertEquals(status.heartbeat.interval_minutes, 30);
    assert(status.database.bytes > 0);
    assert(typeof status.memory.chunks === "number");
  });
});
