/**
 * Wall-clock fields of a moment in a time zone, from the platform's Intl and
 * nothing else: what shows a time (src/app/times.ts) needs it without loading
 * the cron library the scheduler computes runs with.
 */

/**
 * The machine's IANA time zone (`TZ`, else the system's), asked of Intl once:
 * its first `Intl.DateTimeFormat` costs a process ~15–25 ms, so it is asked
 * when a schedule or active hours need it, not whenever hob opens.
 *
 * @example
 * ```ts
 * defaultTimezone(); // "Europe/Berlin"
 * ```
 */
export function defaultTimezone(): string {
  if (machineZone === undefined) {
    // An empty `TZ` reads as "Etc/Unknown", which Intl then refuses: UTC, as `Date` has it.
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    machineZone = zone && isTimeZone(zone) ? zone : "UTC";
  }
  return machineZone;
}
let machineZone: string | undefined;

/**
 * Whether Intl knows `zone` as a time zone.
 *
 * @example
 * ```ts
 * isTimeZone("Europe/Berlin"); // true
 * isTimeZone("Atlantis"); // false
 * ```
 */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The wall-clock fields `date` shows in `timezone`, as two-digit text (four
 * for the year), and the zone's offset from UTC (`GMT+9`, `GMT-4`, `GMT`).
 *
 * @example
 * ```ts
 * zonedText(new Date("2026-05-01T07:30:00Z"), "Asia/Tokyo").hour; // "16"
 * ```
 */
export function zonedText(date: Date, timezone: string): Record<string, string> {
  return Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "shortOffset",
    }).formatToParts(date).map((p) => [p.type, p.value]),
  );
}

/** The wall-clock fields `date` shows in `timezone`. */
export function zonedParts(date: Date, timezone: string) {
  const parts = zonedText(date, timezone);
  return {
    y: +parts.year,
    mo: +parts.month,
    d: +parts.day,
    h: +parts.hour,
    mi: +parts.minute,
    s: +parts.second,
  };
}
