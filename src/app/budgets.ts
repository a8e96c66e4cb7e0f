/**
 * Budgets: daily and monthly caps on what model calls cost, overall, for the
 * heartbeat and per job. A job or heartbeat run that would go over a cap is
 * not run — and the owner is told once per period; a chat is only warned.
 * Periods are UTC days and calendar months. Knows the call log and the kv
 * store, nothing of the scheduler or of any wire format.
 */

import type { SqliteModelCalls } from "../store/model_calls.ts";
import type { SqliteKv } from "../store/kv.ts";

/** One cap: dollars a day, a month, or both. */
export interface Cap {
  daily_usd?: number;
  monthly_usd?: number;
}

/** `usage.budgets` of hob.yaml. */
export interface Budgets extends Cap {
  heartbeat?: Cap;
  jobs: Record<string, Cap>;
}

/** What the budget checks read. */
export interface BudgetDeps {
  /** Where the periods already told of are kept. */
  kv: Pick<SqliteKv, "read" | "write">;
  calls: SqliteModelCalls;
  budgets: Budgets;
  now: () => Date;
  /** Tells the owner (stored and sent where hob.yaml says). */
  notify(notification: { kind: string; title: string; body: string }): void;
}

/** What would be run: a job by name, or the heartbeat. */
export type Spender = { job: string } | { heartbeat: true };

/** A chat is warned once the day's or month's spend reaches this share of its cap. */
export const WARN_SHARE = 0.8;

/** Where the periods a pause was told of are kept, so it is told once per period. */
const PAUSED_KEY = "usage.paused";

/** The start of the UTC day and calendar month `now` is in, as ISO strings. */
export function periodStarts(now: Date): { day: string; month: string } {
  const day = now.toISOString().slice(0, 10);
  return { day: `${day}T00:00:00.000Z`, month: `${day.slice(0, 7)}-01T00:00:00.000Z` };
}

/**
 * Why a run of `who` must wait, or null when it may run: a cap (its own or
 * the overall one) that its spend so far plus `estimate` (what its last run
 * cost) would go over. The first refusal of a period sends one notification.
 *
 * @example
 * ```ts
 * const why = budgetPause(deps, { job: "digest" }, 0.02);
 * if (why) jobs.recordNotRun(id, "skipped", { due_at, result: why });
 * ```
 */
export function budgetPause(deps: BudgetDeps, who: Spender, estimate: number): string | null {
  const over = overCap(deps, who, estimate);
  if (!over) return null;
  const name = "job" in who ? `job '${who.job}'` : "the heartbeat";
  const reason = `paused by the budget: ${over.what} — it runs again when the ${
    over.period === "daily" ? "day (UTC)" : "month"
  } turns`;
  const subject = "job" in who ? `job:${who.job}` : "heartbeat";
  const told = deps.kv.read<Record<string, string>>(PAUSED_KEY) ?? {};
  if (told[subject] !== over.start) {
    deps.kv.write(PAUSED_KEY, { ...told, [subject]: over.start });
    deps.notify({ kind: "budget", title: `Budget: ${name} paused`, body: `${name} is ${reason}.` });
  }
  return reason;
}

/** The first cap `who` would go over, with its period. */
function overCap(
  deps: BudgetDeps,
  who: Spender,
  estimate: number,
): { what: string; period: "daily" | "monthly"; start: string } | null {
  const starts = periodStarts(deps.now());
  const own = "job" in who ? deps.budgets.jobs[who.job] : deps.budgets.heartbeat;
  const ownSpend = (since: string) =>
    "job" in who ? deps.calls.spend(since, { job: who.job }) : deps.calls.spend(since, {
      kind: "heartbeat",
    });
  const caps: [string, Cap | undefined, (since: string) => number][] = [
    ["job" in who ? "its own cap" : "the heartbeat's cap", own, ownSpend],
    ["the overall cap", deps.budgets, (since) => deps.calls.spend(since)],
  ];
  for (const [label, cap, spent] of caps) {
    for (const period of ["daily", "monthly"] as const) {
      const limit = cap?.[`${period}_usd`];
      if (limit === undefined) continue;
      const start = period === "daily" ? starts.day : starts.month;
      const so_far = spent(start);
      if (so_far + estimate > limit) {
        return {
          what: `${label} of ${usd(limit)} ${period === "daily" ? "a day" : "a month"} (${
            usd(so_far)
          } spent, a run costs about ${usd(estimate)})`,
          period,
          start,
        };
      }
    }
  }
  return null;
}

/**
 * The warning a chat gets when the day's or month's overall spend has reached
 * {@linkcode WARN_SHARE} of its cap, or null. Chats are warned, never refused:
 * the owner is there to decide, and unattended runs are what the caps stop.
 *
 * @example
 * ```ts
 * const warning = budgetWarning(deps); // "Today's model spend is $4.10 of the $5.00 daily budget (82 %)."
 * ```
 */
export function budgetWarning(deps: Pick<BudgetDeps, "calls" | "budgets" | "now">): string | null {
  const starts = periodStarts(deps.now());
  const checks = [
    ["Today's", "daily", deps.budgets.daily_usd, starts.day],
    ["This month's", "monthly", deps.budgets.monthly_usd, starts.month],
  ] as const;
  for (const [when, period, limit, since] of checks) {
    if (limit === undefined) continue;
    const spent = deps.calls.spend(since);
    if (spent < limit * WARN_SHARE) continue;
    const share = limit > 0 ? Math.round((spent / limit) * 100) : 100;
    return `${when} model spend is ${usd(spent)} of the ${
      usd(limit)
    } ${period} budget (${share} %)${
      spent >= limit ? ": over it. Jobs and the heartbeat are paused; chats go on" : ""
    }.`;
  }
  return null;
}

/** Dollars as people read them: cents from a dollar up, more places below (model calls are cheap). */
export function usd(amount: number): string {
  const size = Math.abs(amount);
  return `$${amount.toFixed(size >= 1 || size === 0 ? 2 : size >= 0.01 ? 3 : 4)}`;
}
