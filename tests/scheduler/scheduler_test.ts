/**
 * The scheduler against a real SQLite file and a fake clock: cron in two time
 * zones across their daylight-saving changes, once:, every 10s, no overlap,
 * and missed runs found at start.
 */

import { Scheduler } from "../../src/scheduler/scheduler.ts";
import { nextRun, parseSchedule, ScheduleError } from "../../src/scheduler/schedule.ts";
import { SqliteJobs } from "../../src/store/jobs.ts";
import { assertEquals, assertMatch, assertThrows } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

/** A clock the test moves by hand. */
function fakeClock(start: string) {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (at: Date) => now = at.getTime(),
    advance: (ms: number) => now += ms,
  };
}

/** A scheduler whose runner notes the (fake) time of each run. */
function setup(start: string) {
  const temp = tempStore();
  const clock = fakeClock(start);
  const jobs = new SqliteJobs(temp.db);
  const ran: { job: string; at: string }[] = [];
  const scheduler = new Scheduler({
    jobs,
    now: clock.now,
    timers: false,
    run: (job) => {
      ran.push({ job: job.name, at: clock.now().toISOString() });
      return Promise.resolve({ ok: true, result: `did ${job.name}` });
    },
  });
  return { temp, clock, jobs, ran, scheduler };
}

/** Moves the clock in `stepMs` steps to `until`, ticking (like Deno.cron) after each. */
async function runClock(
  s: { clock: ReturnType<typeof fakeClock>; scheduler: Scheduler },
  until: string,
  stepMs: number,
) {
  const end = new Date(until).getTime();
  while (s.clock.now().getTime() < end) {
    s.clock.advance(stepMs);
    await s.scheduler.tick();
    await s.scheduler.idle();
  }
}

Deno.test("cron jobs keep wall-clock time in their zone across a daylight-saving change", async () => {
  const s = setup("2026-03-27T12:00:00Z");
  using _ = s.temp;
  await s.scheduler.start();
  // Berlin moves its clocks forward on 29 March 2026; New York did on 8 March.
  s.scheduler.add({
    name: "berlin",
    prompt: "p",
    schedule: "0 9 * * *",
    timezone: "Europe/Berlin",
  });
  await runClock(s, "2026-03-30T12:00:00Z", 60_000);

  assertEquals(s.ran.map((r) => r.at), [
    "2026-03-28T08:00:00.000Z", // 09:00 CET (UTC+1)
    "2026-03-29T07:00:00.000Z", // 09:00 CEST (UTC+2)
    "2026-03-30T07:00:00.000Z",
  ]);

  const ny = setup("2026-03-06T12:00:00Z");
  using __ = ny.temp;
  await ny.scheduler.start();
  ny.scheduler.add({
    name: "new-york",
    prompt: "p",
    schedule: "30 6 * * *",
    timezone: "America/New_York",
  });
  await runClock(ny, "2026-03-09T12:00:00Z", 60_000);
  assertEquals(ny.ran.map((r) => r.at), [
    "2026-03-07T11:30:00.000Z", // 06:30 EST (UTC-5)
    "2026-03-08T10:30:00.000Z", // 06:30 EDT (UTC-4)
    "2026-03-09T10:30:00.000Z",
  ]);
  const runs = ny.jobs.runs(ny.jobs.get("new-york")!.id);
  assertEquals(runs.map((r) => r.status), ["ok", "ok", "ok"]);
  assertEquals(runs[0].result, "did new-york");
});

Deno.test("a once: job runs once, then is disabled", async () => {
  const s = setup("2026-05-01T10:00:00Z");
  using _ = s.temp;
  await s.scheduler.start();
  const job = s.scheduler.add({
    name: "remind",
    prompt: "p",
    schedule: "once:2026-05-01T10:05:00Z",
  });
  assertEquals(job.next_run, "2026-05-01T10:05:00.000Z");
  await runClock(s, "2026-05-01T11:00:00Z", 30_000);
  assertEquals(s.ran, [{ job: "remind", at: "2026-05-01T10:05:00.000Z" }]);
  const after = s.jobs.get(job.id)!;
  assertEquals(after.enabled, false);
  assertEquals(after.next_run, null);
  assertEquals(after.last_run, "2026-05-01T10:05:00.000Z");
});

Deno.test("once: without an offset is wall-clock time in the job's zone", () => {
  const schedule = parseSchedule("once:2026-07-01T09:00", "Europe/Berlin");
  assertEquals(schedule.kind === "once" && schedule.at.toISOString(), "2026-07-01T07:00:00.000Z");
  const winter = parseSchedule("once:2026-12-01 09:00", "America/New_York");
  assertEquals(winter.kind === "once" && winter.at.toISOString(), "2026-12-01T14:00:00.000Z");
});

Deno.test("every 10s runs every ten seconds, counted from when the job was made", async () => {
  const s = setup("2026-05-01T10:00:00Z");
  using _ = s.temp;
  await s.scheduler.start();
  s.scheduler.add({ name: "poll", prompt: "p", schedule: "every 10s" });
  await runClock(s, "2026-05-01T10:01:00Z", 1_000);
  assertEquals(s.ran.map((r) => r.at.slice(11, 19)), [
    "10:00:10",
    "10:00:20",
    "10:00:30",
    "10:00:40",
    "10:00:50",
    "10:01:00",
  ]);
});

Deno.test("a job that takes longer than its interval never overlaps itself, and says what it skipped", async () => {
  const temp = tempStore();
  using _ = temp;
  const clock = fakeClock("2026-05-01T10:00:00Z");
  const jobs = new SqliteJobs(temp.db);
  let running = 0;
  let most = 0;
  const finishers: (() => void)[] = [];
  const scheduler = new Scheduler({
    jobs,
    now: clock.now,
    timers: false,
    run: async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => finishers.push(resolve));
      running--;
      return { ok: true, result: "slow" };
    },
  });
  await scheduler.start();
  const job = scheduler.add({ name: "slow", prompt: "p", schedule: "every 10s" });
  // The first run starts at 10s and takes 25s; the occurrences at 20s and 30s find it running.
  for (let second = 1; second <= 50; second++) {
    clock.advance(1_000);
    await scheduler.tick();
    if (second === 35) finishers.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  finishers.forEach((finish) => finish());
  await scheduler.idle();

  assertEquals(most, 1);
  const runs = jobs.runs(job.id).reverse();
  assertEquals(runs.map((r) => r.status), ["ok", "skipped", "skipped", "ok", "skipped"]);
  assertMatch(runs[1].result, /previous run was still going/);
  assertEquals(runs.map((r) => r.due_at?.slice(11, 19)), [
    "10:00:10",
    "10:00:20",
    "10:00:30",
    "10:00:40",
    "10:00:50",
  ]);
});

Deno.test("at start, runs missed while hob was down are recorded, then caught up once or skipped", async () => {
  const temp = tempStore();
  using _ = temp;
  const jobs = new SqliteJobs(temp.db);
  const before = new Scheduler({
    jobs,
    now: () => new Date("2026-05-01T08:00:00Z"),
    timers: false,
    run: () => Promise.resolve({ ok: true, result: "" }),
  });
  before.add({ name: "hourly-catch-up", prompt: "p", schedule: "0 * * * *", timezone: "UTC" });
  before.add({
    name: "hourly-skip",
    prompt: "p",
    schedule: "0 * * * *",
    timezone: "UTC",
    missed_policy: "skip",
  });
  await before.stop();

  // Three hours later (3 runs missed each: 09:00, 10:00, 11:00).
  const ran: string[] = [];
  const after = new Scheduler({
    jobs,
    now: () => new Date("2026-05-01T11:30:00Z"),
    timers: false,
    run: (job) => {
      ran.push(job.name);
      return Promise.resolve({ ok: true, result: "caught up" });
    },
  });
  const handled = await after.start();
  await after.idle();

  assertEquals(handled, [
    { job: "hourly-catch-up", missed: 3, policy: "run_once" },
    { job: "hourly-skip", missed: 3, policy: "skip" },
  ]);
  assertEquals(ran, ["hourly-catch-up"]);
  const catchUp = jobs.runs(jobs.get("hourly-catch-up")!.id).reverse();
  assertEquals(catchUp.map((r) => [r.status, r.trigger]), [["missed", "schedule"], [
    "ok",
    "catch_up",
  ]]);
  assertEquals(catchUp[0].missed_count, 3);
  assertMatch(catchUp[0].result, /3 run\(s\) fell due while hob was not running.*running once now/);
  const skipped = jobs.runs(jobs.get("hourly-skip")!.id);
  assertEquals(skipped.map((r) => r.status), ["missed"]);
  assertMatch(skipped[0].result, /skipped, as the job's policy says/);
  for (const name of ["hourly-catch-up", "hourly-skip"]) {
    assertEquals(jobs.get(name)!.next_run, "2026-05-01T12:00:00.000Z");
  }
});

Deno.test("a failing run is logged as an error and the job keeps its schedule", async () => {
  const temp = tempStore();
  using _ = temp;
  const clock = fakeClock("2026-05-01T10:00:00Z");
  const jobs = new SqliteJobs(temp.db);
  const scheduler = new Scheduler({
    jobs,
    now: clock.now,
    timers: false,
    run: () => Promise.reject(new Error("provider down")),
  });
  await scheduler.start();
  const job = scheduler.add({ name: "flaky", prompt: "p", schedule: "every 1m" });
  for (let i = 0; i < 2; i++) {
    clock.advance(60_000);
    await scheduler.tick();
    await scheduler.idle();
  }
  const runs = jobs.runs(job.id);
  assertEquals(runs.map((r) => [r.status, r.error]), [["error", "provider down"], [
    "error",
    "provider down",
  ]]);
  assertEquals(jobs.get(job.id)!.next_run, "2026-05-01T10:03:00.000Z");
});

Deno.test("schedules that cannot run are refused with a message saying what would", () => {
  assertThrows(() => parseSchedule("0 25 * * *", "UTC"), ScheduleError, "not valid cron");
  assertThrows(() => parseSchedule("every day"), ScheduleError, "'every 10m'");
  assertThrows(() => parseSchedule("every 0s"), ScheduleError, "too frequent");
  assertThrows(() => parseSchedule("0 9 * * *", "Mars/Olympus"), ScheduleError, "not a time zone");
  assertThrows(() => parseSchedule("once:tomorrow"), ScheduleError, "not a date and time");
  const temp = tempStore();
  using _ = temp;
  const scheduler = new Scheduler({
    jobs: new SqliteJobs(temp.db),
    now: () => new Date("2026-05-01T10:00:00Z"),
    timers: false,
    run: () => Promise.resolve({ ok: true, result: "" }),
  });
  assertThrows(
    () => scheduler.add({ name: "late", prompt: "p", schedule: "once:2026-04-01T00:00:00Z" }),
    ScheduleError,
    "in the past",
  );
  scheduler.add({ name: "same", prompt: "p", schedule: "every 1h" });
  assertThrows(
    () => scheduler.add({ name: "same", prompt: "p", schedule: "every 1h" }),
    Error,
    "exists already",
  );
  assertEquals(
    nextRun(
      parseSchedule("every 1h"),
      new Date("2026-05-01T12:30:00Z"),
      new Date("2026-05-01T10:00:00Z"),
    )
      ?.toISOString(),
    "2026-05-01T13:00:00.000Z",
  );
});

Deno.test("a run cut off by a crash is marked interrupted, then run once more or left, per job", async () => {
  const temp = tempStore();
  using _ = temp;
  const jobs = new SqliteJobs(temp.db);
  const at = new Date("2026-05-01T08:00:00Z");
  const before = new Scheduler({
    jobs,
    now: () => at,
    timers: false,
    run: () => Promise.resolve({ ok: true, result: "" }),
  });
  const hourly = { prompt: "p", schedule: "0 * * * *", timezone: "UTC" };
  before.add({ name: "again", ...hourly });
  before.add({ name: "left", ...hourly, missed_policy: "skip" });
  before.add({ name: "off", ...hourly });
  before.add({ name: "manual", ...hourly });
  await before.stop();
  // As a process that died mid-run leaves them: claimed by a dead pid, a run still "running".
  for (const name of ["again", "left", "off", "manual"]) {
    const job = jobs.get(name)!;
    temp.db.prepare("UPDATE jobs SET running_owner = ?, running_since = ? WHERE id = ?")
      .run("999999999:dead", at.toISOString(), job.id);
    jobs.startRun({
      job_id: job.id,
      trigger: name === "manual" ? "manual" : "schedule",
      due_at: at.toISOString(),
      conversation_id: null,
    });
  }
  jobs.update(jobs.get("off")!.id, { enabled: false });

  // Back within the hour: nothing fell due meanwhile.
  const ran: string[] = [];
  const after = new Scheduler({
    jobs,
    now: () => new Date("2026-05-01T08:20:00Z"),
    timers: false,
    run: (job) => {
      ran.push(job.name);
      return Promise.resolve({ ok: true, result: "again" });
    },
  });
  const handled = await after.start();
  await after.idle();

  assertEquals(handled, [
    { job: "again", missed: 0, policy: "run_once", interrupted: true },
    { job: "left", missed: 0, policy: "skip", interrupted: true },
  ]);
  assertEquals(ran, ["again"]);
  for (const name of ["again", "left", "off", "manual"]) {
    const runs = jobs.runs(jobs.get(name)!.id).reverse();
    assertEquals([runs[0].status, runs[0].error], ["interrupted", "hob stopped during the run"]);
    assertEquals(runs.length, name === "again" ? 2 : 1, name);
  }
  const again = jobs.runs(jobs.get("again")!.id);
  assertEquals([again[0].trigger, again[0].status], ["catch_up", "ok"]);
  assertEquals(jobs.get("again")!.next_run, "2026-05-01T09:00:00.000Z");
  // Released: each can be claimed again.
  for (const name of ["again", "left", "off", "manual"]) {
    assertEquals(jobs.claim(jobs.get(name)!.id), true);
  }
});
