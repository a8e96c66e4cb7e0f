import { BackupSchedule } from "../../src/scheduler/backups.ts";
import { assertEquals } from "../helpers/assert.ts";

const HOUR = 3_600_000;

/** A schedule on a hand-moved clock, its timers off; `runs` counts backups. */
function schedule(lastTried: string | null, everyMs = 24 * HOUR) {
  const tried = (at: string) => lastTried = at;
  let now = new Date("2026-11-29T12:00:00Z");
  const runs: string[] = [];
  const backups = new BackupSchedule({
    everyMs,
    lastTried: () => lastTried,
    run: () => {
      runs.push(now.toISOString());
      lastTried = now.toISOString();
      return Promise.resolve();
    },
    now: () => now,
    timers: false,
  });
  return { backups, runs, tried, advance: (ms: number) => now = new Date(now.getTime() + ms) };
}

Deno.test("BackupSchedule makes a backup every interval after the last one tried", async (t) => {
  await t.step("never backed up: a minute after start", async () => {
    const { backups, runs, advance } = schedule(null);
    backups.start();
    assertEquals(backups.next(), "2026-11-29T12:01:00.000Z");
    await backups.tick();
    assertEquals(runs, []);
    advance(60_000);
    await backups.tick();
    assertEquals(runs, ["2026-11-29T12:01:00.000Z"]);
    assertEquals(backups.next(), "2026-11-30T12:01:00.000Z");
  });

  await t.step("backed up two hours ago: the next a day after that, not at start", async () => {
    const { backups, runs, advance } = schedule("2026-11-29T10:00:00.000Z");
    backups.start();
    assertEquals(backups.next(), "2026-11-30T10:00:00.000Z");
    advance(21 * HOUR);
    await backups.tick();
    assertEquals(runs, []);
    advance(HOUR);
    await backups.tick();
    assertEquals(runs, ["2026-11-30T10:00:00.000Z"]);
  });

  await t.step("overdue after a long stop: soon after start, once", async () => {
    const { backups, runs, advance } = schedule("2026-11-01T00:00:00.000Z");
    backups.start();
    assertEquals(backups.next(), "2026-11-29T12:01:00.000Z");
    advance(60_000);
    await Promise.all([backups.tick(), backups.tick()]);
    assertEquals(runs.length, 1);
  });

  await t.step("a backup made by hand meanwhile puts the next one off", async () => {
    const { backups, runs, tried, advance } = schedule(null);
    backups.start();
    tried("2026-11-29T12:00:30.000Z");
    advance(60_000);
    await backups.tick();
    assertEquals(runs, []);
    assertEquals(backups.next(), "2026-11-30T12:00:30.000Z");
  });

  await t.step("an interval shorter than the start delay is kept from the start", () => {
    const { backups } = schedule(null, 2_000);
    backups.start();
    assertEquals(backups.next(), "2026-11-29T12:00:02.000Z");
  });

  await t.step("a failed run is tried again an interval later, and stop ends it", async () => {
    let now = new Date("2026-11-29T12:00:00Z");
    let runs = 0;
    const backups = new BackupSchedule({
      everyMs: HOUR,
      lastTried: () => null,
      run: () => {
        runs++;
        return Promise.reject(new Error("the disk is full"));
      },
      now: () => now,
      timers: false,
    });
    const logged: unknown[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => logged.push(args.join(" "));
    try {
      backups.start();
      now = new Date(now.getTime() + HOUR);
      await backups.tick();
      assertEquals([runs, backups.next()], [1, "2026-11-29T14:00:00.000Z"]);
      assertEquals(logged, ["hob: the scheduled backup failed: the disk is full"]);
      backups.stop();
      now = new Date(now.getTime() + 2 * HOUR);
      await backups.tick();
      assertEquals([runs, backups.next()], [1, null]);
    } finally {
      console.error = error;
    }
  });
});
