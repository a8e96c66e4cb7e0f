/** The schedule actions over a real job store and a scheduler with its timers off. */

import { ActionError } from "../../src/app/errors.ts";
import { createScheduleActions } from "../../src/app/schedules.ts";
import { Scheduler } from "../../src/scheduler/scheduler.ts";
import { SqliteJobs } from "../../src/store/jobs.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

function setup() {
  const temp = tempStore();
  const jobs = new SqliteJobs(temp.db);
  const scheduler = new Scheduler({
    jobs,
    timers: false,
    defaultTimezone: "Europe/Berlin",
    run: (job) => Promise.resolve({ ok: true, result: `did ${job.name}` }),
  });
  const schedules = createScheduleActions({
    jobs,
    scheduler,
    checkModel: (model) => model.startsWith("fake/") ? null : `model '${model}' is not known`,
  });
  return { temp, schedules, [Symbol.dispose]: () => temp[Symbol.dispose]() };
}

/** The action's refusal: its code and field. */
function refusal(fn: () => unknown): [string, string | undefined] {
  const error = assertThrows(fn, ActionError) as ActionError;
  return [error.code, error.field];
}

Deno.test("createScheduleActions add stores a job in hob's zone, by default clean", () => {
  using s = setup();
  const job = s.schedules.add({ name: " standup ", prompt: "Plan", schedule: "0 9 * * 1-5" });
  assertEquals([job.name, job.timezone, job.missed_policy, job.taint, job.last_status], [
    "standup",
    "Europe/Berlin",
    "run_once",
    null,
    null,
  ]);
  const tainted = s.schedules.add({ name: "t", prompt: "p", schedule: "every 1h" }, {
    taint: "fetch_url: https://example.com",
  });
  assertEquals(tainted.taint, "fetch_url: https://example.com");
  assertEquals(s.schedules.list().map((each) => each.name), ["standup", "t"]);
  assertEquals(s.schedules.get({ key: "standup" }).id, job.id);
  assertEquals(s.schedules.get({ key: job.id }).name, "standup");
});

Deno.test("createScheduleActions refuses with the code and field each way in answers by", async (t) => {
  using s = setup();
  s.schedules.add({ name: "standup", prompt: "p", schedule: "every 1h" });
  await t.step("a bad schedule, zone or model names its field", () => {
    assertEquals(refusal(() => s.schedules.add({ name: "x", prompt: "p", schedule: "soon" })), [
      "invalid",
      "schedule",
    ]);
    assertEquals(
      refusal(() =>
        s.schedules.add({ name: "x", prompt: "p", schedule: "every 1h", timezone: "Mars/Base" })
      ),
      ["invalid", "timezone"],
    );
    assertEquals(
      refusal(() =>
        s.schedules.add({ name: "x", prompt: "p", schedule: "every 1h", model: "nowhere/m" })
      ),
      ["invalid", "model"],
    );
    assertEquals(refusal(() => s.schedules.update({ key: "standup", model: "nowhere/m" })), [
      "invalid",
      "model",
    ]);
  });
  await t.step("a name in use is a duplicate", () => {
    assertEquals(
      refusal(() => s.schedules.add({ name: "standup", prompt: "p", schedule: "every 2h" }))[0],
      "duplicate",
    );
  });
  await t.step("a job that is not there is not_found", () => {
    assertEquals(refusal(() => s.schedules.remove({ key: "nope" }))[0], "not_found");
    assertEquals(refusal(() => s.schedules.runs({ key: 99 }))[0], "not_found");
  });
});

Deno.test("createScheduleActions run runs a job now and logs it; update and remove change it", async () => {
  using s = setup();
  const job = s.schedules.add({ name: "digest", prompt: "p", schedule: "every 1h" });
  const run = await s.schedules.run({ key: "digest" });
  assertEquals([run.status, run.trigger, run.result], ["ok", "manual", "did digest"]);
  assertEquals(s.schedules.runs({ key: job.id }).map((each) => each.id), [run.id]);
  assertEquals(s.schedules.update({ key: job.id, enabled: false }).enabled, false);
  assertEquals(s.schedules.remove({ key: job.id }).name, "digest");
  assertEquals(s.schedules.list(), []);
});
