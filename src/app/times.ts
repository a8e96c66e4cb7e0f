/**
 * How a moment is shown to people: wall-clock time in the user's zone (`TZ`,
 * else the machine's), always labelled with that zone, so `hob status`,
 * `hob cron` and the page's panels never disagree and never leave a reader
 * guessing. The API keeps ISO-8601 UTC; only what people read goes through
 * here. Knows nothing of where the time came from.
 */

import { zonedText } from "../scheduler/zones.ts";

/** What {@linkcode showTime} takes beyond the moment. */
export interface ShowTimeOptions {
  /**
   * The zone to show the time in.
   * @default {displayZone()}
   */
  zone?: string;
  /**
   * Whether seconds are shown.
   * @default {false}
   */
  seconds?: boolean;
}

/**
 * The zone times are shown in: `TZ` when it is set, else the machine's.
 *
 * @example
 * ```ts
 * displayZone(); // "Europe/Berlin"
 * ```
 */
export function displayZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/**
 * A moment (ISO-8601) as people read it: `YYYY-MM-DD HH:MM` in the zone, then
 * the zone's abbreviation or offset. No moment is "—"; text that is no
 * moment is returned as it is.
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
  const { zone = displayZone(), seconds = false } = options;
  const part = zonedText(date, zone);
  const clock = `${part.hour}:${part.minute}${seconds ? `:${part.second}` : ""}`;
  return `${part.year}-${part.month}-${part.day} ${clock} ${part.timeZoneName}`;
}
