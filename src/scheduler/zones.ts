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
  machineZone ??= usableZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
  return machineZone;
}

/** `zone`, or UTC when Intl cannot use it (an empty `TZ` reads as "Etc/Unknown"), as `Date` does. */
function usableZone(zone: string | undefined): string {
  if (!zone) return "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    return "UTC";
  }
}
let machineZone: string | undefined;

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
