/**
 * The log of model calls: one row per request to a model, with its tokens and
 * cost, and sums of it by model, kind, job, tool or day. Knows nothing of
 * prices or budgets: the cost comes in with the row.
 */

import { withWriteLock } from "./transaction.ts";
import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";

/** One model call as stored. `at` is ISO 8601 UTC. */
export interface ModelCall {
  id: number;
  at: string;
  /** `<provider>/<model>`. */
  model: string;
  provider: string;
  /** chat, title, flush, heartbeat, job, task, subagent, skill, v1, mcp, channel, other. */
  kind: string;
  conversation_id: string | null;
  /** The job's name, for the calls of a job's conversation. */
  job: string | null;
  task_id: number | null;
  /** The tool that made the call (a skill, analyze_image). */
  tool: string | null;
  /** Prompt tokens, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens read from the provider's cache. */
  cached_tokens: number;
  cost_usd: number;
  /** The provider's error code, when the call failed. */
  error: string | null;
}

/** What a caller records; the job and task are found from the conversation when not given. */
export type NewModelCall = Omit<ModelCall, "id" | "job" | "task_id"> & {
  job?: string | null;
  task_id?: number | null;
};

/** What usage can be grouped by. */
export const USAGE_GROUPS = ["model", "kind", "job", "tool", "day"] as const;
export type UsageGroup = typeof USAGE_GROUPS[number];

/** Sums over a set of calls. */
export interface UsageSums {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cost_usd: number;
}

/** Sums of one group: `key` is null for calls without one (no job, no tool). */
export interface UsageRow extends UsageSums {
  key: string | null;
}

const SUMS = `COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS input_tokens,
  COALESCE(SUM(output_tokens), 0) AS output_tokens, COALESCE(SUM(cached_tokens), 0) AS cached_tokens,
  COALESCE(SUM(cost_usd), 0) AS cost_usd`;

/** The column (or expression) each group reads; fixed strings, never the caller's. */
const GROUP_COLUMN: Record<UsageGroup, string> = {
  model: "model",
  kind: "kind",
  job: "job",
  tool: "tool",
  day: "substr(at, 1, 10)",
};

/**
 * The model call log.
 *
 * @example
 * ```ts
 * const calls = new SqliteModelCalls(db);
 * calls.record({ at, model: "openai/gpt-4o", provider: "openai", kind: "chat", … });
 * calls.totals("2026-11-01T00:00:00.000Z").cost_usd;
 * ```
 */
export class SqliteModelCalls {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = statements(db);
  }

  /**
   * Runs `work`, writes of this store, in one transaction once hob.db's write
   * lock is had: waiting without blocking while another program holds it
   * (see `withWriteLock`).
   */
  write<T>(work: () => T): Promise<T> {
    return withWriteLock(this.#db, work);
  }

  record(call: NewModelCall): void {
    const conversation = call.conversation_id ?? null;
    this.#sql(
      `INSERT INTO model_calls (at, model, provider, kind, conversation_id, job, task_id, tool,
         input_tokens, output_tokens, cached_tokens, cost_usd, error)
       VALUES (?, ?, ?, ?, ?,
         COALESCE(?, (SELECT name FROM jobs WHERE conversation_id = ? LIMIT 1)),
         COALESCE(?, (SELECT id FROM tasks WHERE conversation_id = ? LIMIT 1)),
         ?, ?, ?, ?, ?, ?)`,
    ).run(
      call.at,
      call.model,
      call.provider,
      call.kind,
      conversation,
      call.job ?? null,
      conversation,
      call.task_id ?? null,
      conversation,
      call.tool ?? null,
      call.input_tokens,
      call.output_tokens,
      call.cached_tokens,
      call.cost_usd,
      call.error ?? null,
    );
  }

  /** Sums of the calls at or after `since`, one row per group, the costliest first (days in order). */
  summarize(since: string, by: UsageGroup): UsageRow[] {
    const column = GROUP_COLUMN[by];
    const order = by === "day" ? "key" : "cost_usd DESC, calls DESC, key";
    return this.#sql<UsageRow>(
      `SELECT ${column} AS key, ${SUMS} FROM model_calls WHERE at >= ?
       GROUP BY ${column} ORDER BY ${order}`,
    ).all(since).map((row) => ({ ...row }));
  }

  /** Sums of every call at or after `since`. */
  totals(since: string): UsageSums {
    return { ...this.#sql<UsageSums>(`SELECT ${SUMS} FROM model_calls WHERE at >= ?`).one(since) };
  }

  /** Dollars spent since `since`: by everything, or only by one job or one kind. */
  spend(since: string, only: { job?: string; kind?: string } = {}): number {
    const row = this.#sql<{ usd: number }>(
      `SELECT COALESCE(SUM(cost_usd), 0) AS usd FROM model_calls
       WHERE at >= ? AND (? IS NULL OR job = ?) AND (? IS NULL OR kind = ?)`,
    ).one(since, only.job ?? null, only.job ?? null, only.kind ?? null, only.kind ?? null);
    return row.usd;
  }

  /** Dollars the calls of one conversation cost. */
  conversationCost(conversationId: string): number {
    return this.#sql<{ usd: number }>(
      "SELECT COALESCE(SUM(cost_usd), 0) AS usd FROM model_calls WHERE conversation_id = ?",
    ).one(conversationId).usd;
  }
}
