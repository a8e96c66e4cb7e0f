/**
 * Schedules as people write them — five-field cron (with a time zone),
 * `once:<ISO datetime>`, `every <N>s|m|h` — parsed once and asked for their
 * next run after a given moment. Cron arithmetic, daylight saving included,
 * is croner's. Knows nothing of jobs or storage.
 */

import { Cron } from "croner";
import { defaultTimezone, isTimeZone, zonedParts } from "./zones.ts";

/** A parsed schedule. */
export type Schedule =
  | { kind: "cron"; expression: string; timezone: string }
  | { kind: "once"; at: Date }
  | { kind: "every"; ms: number };

/** Raised for a schedule that does not parse; the message says what would. */
export class ScheduleError extends Error {
  override name = "ScheduleError";
}

/** The shortest `every` interval, so a typo cannot spin the scheduler. */
export const MIN_EVERY_MS = 1_000;
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a schedule. `timezone` applies to cron expressions (default: the
 * machine's zone); `once:` times without an offset are read in it too.
 *
 * @example
 * ```ts
 * parseSchedule("0 9 * * 1-5", "Europe/Berlin"); // weekdays at 09:00 Berlin time
 * parseSchedule("every 10m");
 * parseSchedule("once:2026-12-24T18:00:00+01:00");
 * ```
 */
export function parseSchedule(text: string, timezone = defaultTimezone()): Schedule {
  const trimmed = text.trim();
  checkTimezone(timezone);
  const every = /^every\s+(\d+)\s*(s|m|h|d)$/i.exec(trimmed);
  if (every) {
    const ms = Number(every[1]) * UNITS[every[2].toLowerCase()];
    if (ms < MIN_EVERY_MS) {
      throw new ScheduleError(`'${trimmed}' is too frequent: at least every 1s`);
    }
    return { kind: "every", ms };
  }
  if (/^once:/i.test(trimmed)) {
    const value = trimmed.slice(5).trim();
    const at = parseDateTime(value, timezone);
    if (!at) {
      throw new ScheduleError(
        `'${value}' is not a date and time; write once:2026-12-24T18:00 or with an offset, +01:00`,
      );
    }
    return { kind: "once", at };
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    throw new ScheduleError(
      `'${trimmed}' is not a schedule: use 5-field cron ('0 9 * * 1-5'), 'every 10m', or 'once:2026-12-24T18:00'`,
    );
  }
  try {
    new Cron(trimmed, { timezone, paused: true });
  } catch (error) {
    throw new ScheduleError(
      `'${trimmed}' is not valid cron: ${(error as Error).message.replace(/^CronPattern: /, "")}`,
    );
  }
  return { kind: "cron", expression: trimmed, timezone };
}

/**
 * The first run strictly after `after`, or null when there is none (a `once`
 * schedule whose time has passed). `every` schedules count from `anchor`, the
 * time the job was created or last run, so they do not drift.
 */
export function nextRun(schedule: Schedule, after: Date, anchor = after): Date | null {
  switch (schedule.kind) {
    case "once":
      return schedule.at > after ? schedule.at : null;
    case "every": {
      const elapsed = after.getTime() - anchor.getTime();
      const steps = Math.max(1, Math.floor(elapsed / schedule.ms) + 1);
      return new Date(anchor.getTime() + steps * schedule.ms);
    }
    case "cron":
      return new Cron(schedule.expression, { timezone: schedule.timezone, paused: true }).nextRun(
        after,
      );
  }
}

/** How many runs fell due in (from, to]: the ones a stopped hob missed. Counts up to `limit`. */
export function runsBetween(
  schedule: Schedule,
  from: Date,
  to: Date,
  anchor = from,
  limit = 10_000,
): number {
  let count = 0;
  let at: Date | null = new Date(from.getTime() - 1);
  while (count < limit) {
    at = nextRun(schedule, at, anchor);
    if (!at || at > to) break;
    count++;
  }
  return count;
}

function checkTimezone(timezone: string): void {
  if (!isTimeZone(timezone)) {
    throw new ScheduleError(
      `'${timezone}' is not a time zone: use an IANA name such as 'Europe/Berlin'`,
    );
  }
}

/** An ISO date-time; without an offset, read as wall-clock time in `timezone`. */
function parseDateTime(value: string, timezone: string): Date | null {
  const match =
    /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?$/.exec(
      value,
    );
  if (!match) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", offset] = match;
  if (offset) {
    const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset === "Z" ? "Z" : offset}`);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  // Wall-clock time in the zone: find the UTC instant that shows it there.
  const guess = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (Number.isNaN(guess)) return null;
  const shown = zonedParts(new Date(guess), timezone);
  const drift = Date.UTC(shown.y, shown.mo - 1, shown.d, shown.h, shown.mi, shown.s) - guess;
  const first = new Date(guess - drift);
  // Near a daylight-saving change the offset at the answer may differ; correct once.
  const again = zonedParts(first, timezone);
  const off = Date.UTC(again.y, again.mo - 1, again.d, again.h, again.mi, again.s) - guess;
  return new Date(first.getTime() - off);
}
