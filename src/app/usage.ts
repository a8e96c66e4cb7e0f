/**
 * The usage action: what the model calls cost since a date, in total, by
 * model, kind, job or tool and by day, with the budgets beside it — defined
 * once for `hob usage`, `GET /api/usage` and the page's Usage view. Knows the
 * call log, nothing of any wire format.
 */

import { z } from "zod";
import type { SqliteModelCalls, UsageRow, UsageSums } from "../store/model_calls.ts";
import { type Budgets, periodStarts } from "./budgets.ts";
import { checkInput } from "./errors.ts";

/** The longest look back, in days: the log is kept, but a report this long is enough. */
export const MAX_USAGE_DAYS = 3_660;

/** What a usage report can be grouped by. */
export const USAGE_BY = ["model", "kind", "job", "tool"] as const;

/**
 * A report. `since` is a date (`2026-11-01`), a time (ISO 8601) or a number of
 * days back (`7d`, today included); by default the last 30 days.
 */
export const usageInput = z.object({
  since: z.string().regex(
    /^(\d{1,4}d|\d{4}-\d\d-\d\d(T[\d:.]+Z?)?)$/,
    "expected a date (2026-11-01), an ISO time or a number of days such as 7d",
  ).refine((since) => !since.endsWith("d") || Number(since.slice(0, -1)) <= MAX_USAGE_DAYS, {
    message: `at most ${MAX_USAGE_DAYS} days back`,
  }).refine((since) => since.endsWith("d") || !Number.isNaN(Date.parse(since)), {
    message: "not a real date",
  }).default("30d"),
  by: z.enum(USAGE_BY).default("model"),
});

export type UsageInput = z.input<typeof usageInput>;

/** A cap and what has been spent against it this period. */
export interface BudgetState {
  period: "daily" | "monthly";
  limit_usd: number;
  spent_usd: number;
}

/** What the model calls cost since `since`. */
export interface UsageReport {
  /** ISO 8601 UTC: the first moment counted. */
  since: string;
  by: typeof USAGE_BY[number];
  totals: UsageSums;
  /** By `by`, the costliest first; `key` null for calls with none (no job, no tool). */
  groups: UsageRow[];
  /** By UTC day (`2026-11-26`), oldest first; days without calls are left out. */
  days: (UsageSums & { key: string })[];
  /** The overall caps of `usage.budgets`, with this day's and month's spend. */
  budgets: BudgetState[];
}

/** The usage actions. */
export interface UsageActions {
  /** `invalid` (field `since` or `by`) for input it cannot read. */
  report(input?: UsageInput): UsageReport;
}

/** What the usage actions read. */
export interface UsageDeps {
  calls: SqliteModelCalls;
  budgets: Budgets;
  now: () => Date;
}

/**
 * The usage actions over the call log.
 *
 * @example
 * ```ts
 * const usage = createUsageActions({ calls, budgets, now: () => new Date() });
 * usage.report({ since: "7d", by: "kind" }).totals.cost_usd;
 * ```
 */
export function createUsageActions(deps: UsageDeps): UsageActions {
  return {
    report(input = {}) {
      const { since, by } = checkInput(usageInput, input);
      const from = sinceTime(since, deps.now());
      return {
        since: from,
        by,
        totals: deps.calls.totals(from),
        groups: deps.calls.summarize(from, by),
        // Every call has a day.
        days: deps.calls.summarize(from, "day").map((day) => ({ ...day, key: day.key ?? "" })),
        budgets: budgetStates(deps),
      };
    },
  };
}

/** `7d` as the start of the UTC day six days before today; a date or time as itself. */
function sinceTime(since: string, now: Date): string {
  if (since.endsWith("d")) {
    const days = Number(since.slice(0, -1));
    const today = new Date(periodStarts(now).day);
    return new Date(today.getTime() - Math.max(0, days - 1) * 86_400_000).toISOString();
  }
  return new Date(since.length === 10 ? `${since}T00:00:00.000Z` : since).toISOString();
}

function budgetStates(deps: UsageDeps): BudgetState[] {
  const starts = periodStarts(deps.now());
  const states: BudgetState[] = [];
  if (deps.budgets.daily_usd !== undefined) {
    states.push({
      period: "daily",
      limit_usd: deps.budgets.daily_usd,
      spent_usd: deps.calls.spend(starts.day),
    });
  }
  if (deps.budgets.monthly_usd !== undefined) {
    states.push({
      period: "monthly",
      limit_usd: deps.budgets.monthly_usd,
      spent_usd: deps.calls.spend(starts.month),
    });
  }
  return states;
}
