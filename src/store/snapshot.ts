/**
 * A copy of hob.db as it was at one moment, taken while hob runs: SQLite's
 * online backup, from a read-only connection of its own, in a thread of its
 * own (snapshot_worker.ts) — node:sqlite's backup is synchronous, and a copy
 * of a large database must not hold `hob serve`'s event loop. In WAL mode the
 * copy's read transaction blocks no writer. Knows nothing of what the copy is for.
 */

import type { SnapshotReply, SnapshotRequest } from "./snapshot_worker.ts";
import { StoreError } from "./database.ts";

/** How long a copy may take before the thread is ended: minutes for gigabytes. */
const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

/** What {@linkcode snapshotDatabase} copied. */
export interface Snapshot {
  /** Pages copied. */
  pages: number;
  /** The copy's `PRAGMA user_version`. */
  schema_version: number;
  /** The copy's `PRAGMA integrity_check`: `"ok"`, or the problems it found. */
  integrity: string;
}

/**
 * Copies the database at `source` into a new database at `target` (which
 * must not hold one), consistent under concurrent writers from this or any
 * other process.
 *
 * @example
 * ```ts
 * const { integrity } = await snapshotDatabase(`${home}/hob.db`, "/tmp/hob-copy.db");
 * ```
 */
export async function snapshotDatabase(source: string, target: string): Promise<Snapshot> {
  const worker = new Worker(new URL("./snapshot_worker.ts", import.meta.url), {
    type: "module",
    name: "hob-db-snapshot",
    deno: {
      permissions: {
        read: true,
        write: true,
        net: false,
        env: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const reply = await new Promise<SnapshotReply>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<SnapshotReply>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      timer = setTimeout(
        () => reject(new Error(`no copy after ${SNAPSHOT_TIMEOUT_MS / 60_000} minutes`)),
        SNAPSHOT_TIMEOUT_MS,
      );
      worker.postMessage({ source, target } satisfies SnapshotRequest);
    });
    if (!reply.ok) throw new Error(reply.error);
    return { pages: reply.pages, schema_version: reply.schema_version, integrity: reply.integrity };
  } catch (error) {
    throw new StoreError(
      `Cannot copy the database ${source}: ${(error as Error).message}`,
      source,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}
