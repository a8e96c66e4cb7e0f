/**
 * How a moment is shown to people: wall-clock time in the user's zone (`TZ`,
 * else the machine's), always labelled with that zone's offset from UTC, so
 * `hob status`, `hob cron` and the page's panels never disagree and never
 * leave a reader guessing. The API keeps ISO-8601 UTC; only what people read
 * goes through here. Knows nothing of where the time came from.
 *
 * The user's zone is the process's own, which `Date` already reads: showing a
 * time in it needs no `Intl.DateTimeFormat`, whose first use in a process
 * costs ~15–25 ms (ICU loading its locale data) — most of what a read-only
 * command like `hob status` takes beyond starting. Another zone goes through
 * Intl, labelled the same way.
 */

import { defaultTimezone, zonedText } from "../scheduler/zones.ts";

/** What {@linkcode showTime} takes beyond the moment. */
export interface ShowTimeOptions {
  /**
   * The zone to show the time in.
   * @default {the user's zone: `TZ`, else the machine's}
   */
  zone?: string;
  /**
   * Whether seconds are shown.
   * @default {false}
   */
  seconds?: boolean;
}

/**
 * The user's zone, by name: `TZ` when it is set, else the machine's (asked of
 * Intl once per process).
 *
 * @example
 * ```ts
 * displayZone(); // "Europe/Berlin"
 * ```
 */
export function displayZone(): string {
  return defaultTimezone();
}

/**
 * A moment (ISO-8601) as people read it: `YYYY-MM-DD HH:MM` in the zone, then
 * the zone's offset from UTC (`GMT-4`, `GMT+5:30`; `UTC` when there is none).
 * No moment is "—"; text that is no moment is returned as it is.
 *
 * @example
 * ```ts
 * showTime("2026-05-01T07:30:00Z", { zone: "Asia/Tokyo" }); // "2026-05-01 16:30 GMT+9"
 * showTime("2026-05-01T07:30:05Z", { zone: "UTC", seconds: true }); // "2026-05-01 07:30:05 UTC"
 * ```
 */
export function showTime(iso: string | null | undefined, options: ShowTimeOptions = {}): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const { zone, seconds = false } = options;
  const part = zone === undefined ? localText(date) : zonedText(date, zone);
  const clock = `${part.hour}:${part.minute}${seconds ? `:${part.second}` : ""}`;
  const label = part.timeZoneName === "GMT" ? "UTC" : part.timeZoneName;
  return `${part.year}-${part.month}-${part.day} ${clock} ${label}`;
}

/** The fields {@linkcode zonedText} gives, in the process's own zone, from `Date` alone. */
function localText(date: Date): Record<string, string> {
  const two = (n: number) => String(n).padStart(2, "0");
  // getTimezoneOffset() is minutes *behind* UTC: New York in summer is 240.
  const ahead = -date.getTimezoneOffset();
  const hours = Math.trunc(Math.abs(ahead) / 60);
  const minutes = Math.abs(ahead) % 60;
  return {
    year: String(date.getFullYear()).padStart(4, "0"),
    month: two(date.getMonth() + 1),
    day: two(date.getDate()),
    hour: two(date.getHours()),
    minute: two(date.getMinutes()),
    second: two(date.getSeconds()),
    timeZoneName: ahead === 0
      ? "GMT"
      : `GMT${ahead < 0 ? "-" : "+"}${hours}${minutes ? `:${two(minutes)}` : ""}`,
  };
}
