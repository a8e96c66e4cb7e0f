/**
 * Approvals in SQLite: a tool call that needs the user's yes waits here until
 * the user decides — from the page, the API, or `hob approvals` in another
 * process — or the time runs out, which means no. Remembered decisions are
 * kept per tool and argument shape.
 */

import { transaction, withWriteLock } from "./transaction.ts";
import { storageProblem } from "../home/storage.ts";
import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { isLiveOwner, PROCESS_OWNER } from "./owner.ts";
import { timestamp } from "./timestamp.ts";

/** Where an approval stands. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/** An approval as stored. */
export interface Approval {
  id: string;
  conversation_id: string | null;
  tool_call_id: string | null;
  tool: string;
  arguments: string;
  reason: string;
  shape: string;
  status: ApprovalStatus;
  remember: boolean;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

/** What asking for an approval needs. */
export interface ApprovalRequest {
  conversation_id: string | null;
  tool_call_id: string | null;
  tool: string;
  arguments: string;
  reason: string;
  shape: string;
  timeoutMs: number;
}

/** Raised when a decision cannot be recorded; `code` says why. */
export class ApprovalError extends Error {
  override name = "ApprovalError";
  readonly code: "not_found" | "already_decided";
  constructor(code: ApprovalError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** How often a waiter looks for a decision made by another process. */
const POLL_INTERVAL_MS = 200;

interface Row extends Omit<Approval, "remember"> {
  remember: number;
}

/**
 * The approval store. Waiters in this process are woken at once by decisions
 * made in it; decisions made by other processes are found by polling.
 *
 * @example
 * ```ts
 * const approval = approvals.request({ tool: "run_command", … });
 * const status = await approvals.wait(approval.id);
 * ```
 */
export class SqliteApprovals {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;
  readonly #wake = new Map<string, () => void>();

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

  request(request: ApprovalRequest): Approval {
    const id = crypto.randomUUID();
    const now = timestamp();
    const expires = new Date(Date.now() + request.timeoutMs).toISOString();
    this.#sql(
      `INSERT INTO approvals (id, conversation_id, tool_call_id, tool, arguments, reason, shape, status,
                              owner, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    ).run(
      id,
      request.conversation_id,
      request.tool_call_id,
      request.tool,
      request.arguments,
      request.reason,
      request.shape,
      PROCESS_OWNER,
      now,
      expires,
    );
    return this.get(id)!;
  }

  get(id: string): Approval | undefined {
    const row = this.#sql<Row>(
      `SELECT id, conversation_id, tool_call_id, tool, arguments, reason, shape, status, remember,
              created_at, expires_at, decided_at
         FROM approvals WHERE id = ?`,
    ).get(id);
    return row ? toApproval(row) : undefined;
  }

  /** The ids that start with `prefix`, at most `limit` of them, in order. */
  idsStartingWith(prefix: string, limit: number): string[] {
    const rows = this.#sql<{ id: string }>(
      "SELECT id FROM approvals WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT ?",
    ).all(prefix.length, prefix, limit);
    return rows.map((row) => row.id);
  }

  /** Approvals, newest first; only pending ones unless `status` says otherwise. */
  list(status: ApprovalStatus | "all" = "pending", limit = 100): Approval[] {
    this.expireOverdue();
    const rows = this.#sql<Row>(
      `SELECT id, conversation_id, tool_call_id, tool, arguments, reason, shape, status, remember,
              created_at, expires_at, decided_at
         FROM approvals WHERE ? = 'all' OR status = ? ORDER BY created_at DESC LIMIT ?`,
    ).all(status, status, limit);
    return rows.map(toApproval);
  }

  /**
   * Records the user's decision. With `remember`, later calls of the same tool
   * with the same argument shape get the same decision without asking.
   */
  decide(id: string, decision: "approve" | "deny", remember = false): Approval {
    this.expireOverdue();
    const status = decision === "approve" ? "approved" : "denied";
    const result = this.#sql(
      "UPDATE approvals SET status = ?, remember = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
    ).run(status, remember ? 1 : 0, timestamp(), id);
    const approval = this.get(id);
    if (!approval) throw new ApprovalError("not_found", `Approval '${id}' does not exist`);
    if (Number(result.changes) === 0) {
      throw new ApprovalError("already_decided", `Approval '${id}' is already ${approval.status}`);
    }
    if (remember) {
      this.#sql(
        `INSERT INTO tool_grants (tool, shape, decision, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tool, shape) DO UPDATE SET decision = excluded.decision, created_at = excluded.created_at`,
      ).run(approval.tool, approval.shape, decision === "approve" ? "allow" : "deny", timestamp());
    }
    this.#wake.get(id)?.();
    return approval;
  }

  /** A remembered decision for this tool and argument shape, if there is one. */
  remembered(tool: string, shape: string): "allow" | "deny" | undefined {
    const row = this.#sql<{ decision: "allow" | "deny" }>(
      "SELECT decision FROM tool_grants WHERE tool = ? AND shape = ?",
    ).get(tool, shape);
    return row?.decision;
  }

  /**
   * Waits until the approval is decided or expires; an abort expires it, and
   * so does hob.db closing under it (hob stopping while a turn waits).
   */
  async wait(id: string, signal?: AbortSignal): Promise<ApprovalStatus> {
    while (true) {
      if (!this.#db.isOpen) return "expired";
      this.expireOverdue();
      const approval = this.get(id);
      if (!approval) return "expired";
      if (approval.status !== "pending") return approval.status;
      if (signal?.aborted) {
        try {
          this.#expire(id);
        } catch (error) {
          // While another program holds hob.db it stays pending, expired at a later look.
          if (storageProblem(error) !== "busy") throw error;
        }
        return "expired";
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          this.#wake.delete(id);
          resolve();
        };
        const timer = setTimeout(done, POLL_INTERVAL_MS);
        signal?.addEventListener("abort", done, { once: true });
        this.#wake.set(id, done);
      });
    }
  }

  /**
   * Marks overdue approvals, and those of processes that are gone, as
   * expired. Reads first, so a listing writes (and needs hob.db's write lock)
   * only when something is to expire; while another program holds the lock
   * this is left for the next look.
   */
  expireOverdue(): void {
    const now = new Date().toISOString();
    const pending = this.#sql<{ id: string; owner: string | null; expires_at: string }>(
      "SELECT id, owner, expires_at FROM approvals WHERE status = 'pending'",
    ).all();
    const over = pending.filter((row) =>
      row.expires_at <= now || !row.owner || !isLiveOwner(row.owner)
    );
    if (over.length === 0) return;
    try {
      transaction(this.#db, () => {
        for (const { id } of over) this.#expire(id);
      });
    } catch (error) {
      if (storageProblem(error) !== "busy") throw error;
    }
  }

  #expire(id: string): void {
    this.#sql(
      "UPDATE approvals SET status = 'expired', decided_at = ? WHERE id = ? AND status = 'pending'",
    ).run(timestamp(), id);
  }
}

function toApproval(row: Row): Approval {
  return { ...row, remember: row.remember === 1 };
}
