/**
 * How times are shown: in the user's zone from `Date` alone, exactly as Intl
 * shows the same zone, across offsets that are not whole hours and across
 * daylight-saving changes. Each zone runs in a `deno` process of its own with
 * `TZ` set, as a user's command would.
 */

import { assertEquals } from "../helpers/assert.ts";
import { runHobCode } from "../helpers/hob_process.ts";

const TIMES = new URL("../../src/app/times.ts", import.meta.url).href;

/** Moments either side of DST changes (US, EU, southern hemisphere) and an ordinary one. */
const MOMENTS = [
  "2026-03-08T06:59:59Z",
  "2026-03-08T07:00:00Z",
  "2026-03-29T00:30:00Z",
  "2026-03-29T01:30:00Z",
  "2026-04-05T15:59:00Z",
  "2026-04-05T16:01:00Z",
  "2026-05-01T07:30:05Z",
  "2026-10-25T00:59:00Z",
  "2026-11-01T06:30:00Z",
  "2026-12-31T23:59:59Z",
];

/** Runs `code` in a fresh process with `TZ` = `zone`, after `prelude`; its stdout. */
async function inZone(zone: string, code: string): Promise<string> {
  const { code: exit, stdout, stderr } = await runHobCode(code, { env: { TZ: zone } });
  assertEquals(exit, 0, stderr);
  return stdout;
}

Deno.test("a time in the user's zone reads as Intl reads it, labelled with its offset", async () => {
  for (
    const zone of [
      "UTC",
      "America/New_York",
      "Europe/Berlin",
      "Asia/Kolkata",
      "Australia/Sydney",
      "America/St_Johns",
      "Asia/Kathmandu",
    ]
  ) {
    const shown = JSON.parse(
      await inZone(
        zone,
        `import { showTime } from ${JSON.stringify(TIMES)};
         const moments = ${JSON.stringify(MOMENTS)};
         console.log(JSON.stringify(moments.map((iso) => [
           showTime(iso, { seconds: true }),
           showTime(iso, { seconds: true, zone: ${JSON.stringify(zone)} }),
         ])));`,
      ),
    ) as [string, string][];
    for (const [i, [local, intl]] of shown.entries()) {
      assertEquals(local, intl, `${zone} at ${MOMENTS[i]}`);
    }
  }
  // Spot checks against the calendar, not against the code.
  const [newYork, kolkata, utc] = JSON.parse(
    await inZone(
      "America/New_York",
      `import { showTime } from ${JSON.stringify(TIMES)};
       console.log(JSON.stringify([
         showTime("2026-05-01T07:30:00Z"),
         showTime("2026-05-01T07:30:00Z", { zone: "Asia/Kolkata" }),
         showTime("2026-05-01T07:30:05Z", { zone: "UTC", seconds: true }),
       ]));`,
    ),
  );
  assertEquals(newYork, "2026-05-01 03:30 GMT-4");
  assertEquals(kolkata, "2026-05-01 13:00 GMT+5:30");
  assertEquals(utc, "2026-05-01 07:30:05 UTC");
});

Deno.test("showing a time in the user's zone creates no Intl.DateTimeFormat (its first use costs ~20 ms)", async () => {
  const out = await inZone(
    "Asia/Tokyo",
    `Intl.DateTimeFormat = new Proxy(Intl.DateTimeFormat, {
       construct() { throw new Error("Intl.DateTimeFormat used"); },
       apply() { throw new Error("Intl.DateTimeFormat used"); },
     });
     const { showTime } = await import(${JSON.stringify(TIMES)});
     console.log(showTime("2026-05-01T07:30:00Z"), "|", showTime(null), "|", showTime("soon"));`,
  );
  assertEquals(out, "2026-05-01 16:30 GMT+9 | — | soon\n");
});

Deno.test("an empty TZ is UTC for shown times and for schedules alike", async () => {
  const zones = new URL("../../src/scheduler/zones.ts", import.meta.url).href;
  const schedule = new URL("../../src/scheduler/schedule.ts", import.meta.url).href;
  const out = await inZone(
    "",
    `import { showTime } from ${JSON.stringify(TIMES)};
     import { defaultTimezone } from ${JSON.stringify(zones)};
     import { parseSchedule } from ${JSON.stringify(schedule)};
     parseSchedule("0 9 * * *");
     console.log(defaultTimezone(), "|", showTime("2026-05-01T07:30:00Z"));`,
  );
  assertEquals(out, "UTC | 2026-05-01 07:30 UTC\n");
});
