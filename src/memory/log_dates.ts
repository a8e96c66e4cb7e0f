/**
 * A month or a day named in a search ("in October", "on 14 October") as the
 * daily logs it points to. hob names a day's log `YYYY-MM-DD.md` and heads it
 * `# YYYY-MM-DD` (files.ts), so every chunk of that log has a heading that
 * starts with the date's tokens, which FTS5 can match. Knows the memory_fts
 * columns and the logs' names; nothing of ranking.
 */

import type { Sql } from "../store/statements.ts";

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const MONTH = MONTHS.join("|");
/** A day of the month beside its month: "14 October", "14th of October", "October 14th". */
const DAY_AND_MONTH = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH})\\b|\\b(${MONTH})\\s+(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\b`,
  "giu",
);
/**
 * "May" is a month only after a word that introduces a time ("in May", "since
 * May"), or beside a day: "may I take…" names no month.
 */
const MAY_AS_MONTH =
  /\b(?:in|on|of|since|until|till|by|from|before|after|during|early|mid|late)\s+may\b/iu;

/**
 * The FTS5 expression that matches the daily logs of each month or day a
 * query names, by the month's name as `queryTerms` gives it; `years` are the
 * years the logs are in (asked only when a month is named).
 *
 * @example
 * ```ts
 * logDates("what did I do on 14 October", () => ["2026"]);
 * // Map { "october" => 'heading : ^"2026 10 14"' }
 * ```
 */
export function logDates(query: string, years: () => string[]): Map<string, string> {
  const named = new Map<string, string | null>(); // month → day (null: the whole month)
  for (const match of query.matchAll(DAY_AND_MONTH)) {
    const month = (match[2] ?? match[3]).toLowerCase();
    const day = Number(match[1] ?? match[4]);
    if (day >= 1 && day <= 31) named.set(month, String(day).padStart(2, "0"));
  }
  for (const word of query.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (!MONTHS.includes(word) || named.has(word)) continue;
    if (word !== "may" || MAY_AS_MONTH.test(query)) named.set(word, null);
  }
  const matches = new Map<string, string>();
  if (named.size === 0) return matches;
  const known = years();
  if (known.length === 0) return matches;
  for (const [month, day] of named) {
    const date = [String(MONTHS.indexOf(month) + 1).padStart(2, "0"), ...(day ? [day] : [])];
    matches.set(
      month,
      known.map((year) => `heading : ^"${[year, ...date].join(" ")}"`).join(" OR "),
    );
  }
  return matches;
}

/** The years of the daily logs in the index, as their names give them. */
export function logYears(sql: Sql): string[] {
  return sql<{ year: string }>(
    "SELECT DISTINCT substr(path, 1, 4) AS year FROM memory_files WHERE path GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9].md'",
  ).all().map((row) => row.year);
}
