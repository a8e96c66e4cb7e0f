/**
 * The thread a snapshot of hob.db is taken in (snapshot.ts starts it): its
 * own read-only connection, SQLite's online backup in one step, then the
 * copy's schema version and integrity check. Knows nothing of archives.
 */

/// <reference lib="deno.worker" />

import { backup, DatabaseSync } from "node:sqlite";
import { statements } from "./statements.ts";

/** How long the copy waits for a lock another connection holds (a checkpoint). */
const BUSY_TIMEOUT_MS = 5_000;

/** What the thread is asked. */
export interface SnapshotRequest {
  source: string;
  target: string;
}

/** What the thread answers. */
export type SnapshotReply =
  | { ok: true; pages: number; schema_version: number; integrity: string }
  | { ok: false; error: string };

self.onmessage = async (event: MessageEvent<SnapshotRequest>) => {
  self.postMessage(await snapshot(event.data));
};

async function snapshot({ source, target }: SnapshotRequest): Promise<SnapshotReply> {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(source, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // All pages in one step: one read transaction, so the copy is the database at one
    // moment, whatever other connections (hob serve's own) commit meanwhile.
    const pages = await backup(db, target, { rate: -1 });
    db.close();
    db = new DatabaseSync(target, { readOnly: true });
    const sql = statements(db);
    const version = sql<{ user_version: number }>("PRAGMA user_version").one();
    const rows = sql<{ integrity_check: string }>("PRAGMA integrity_check").all();
    return {
      ok: true,
      pages: Number(pages ?? 0),
      schema_version: version.user_version,
      integrity: rows.map((row) => row.integrity_check).join("; "),
    };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    db?.close();
  }
}
