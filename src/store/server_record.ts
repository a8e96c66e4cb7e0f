/**
 * Where a running `hob serve` listens, kept in hob.db so another process
 * (`hob status`, `hob open`) finds it whatever port it was given. Knows the
 * kv table, nothing of HTTP.
 */

import { DatabaseSync } from "node:sqlite";
import type { SqliteKv } from "./kv.ts";
import { isLiveOwner } from "./owner.ts";
import { statements } from "./statements.ts";

/** The kv key the record lives under. */
const SERVER_KEY = "server";

/** A serving process and its loopback address. */
export interface ServerAddress {
  /** The base URL on this machine, e.g. `http://127.0.0.1:8765`. */
  url: string;
  pid: number;
  /** The process's owner id (`owner.ts`), to tell whether it still runs. */
  owner: string;
}

/**
 * The server record.
 *
 * @example
 * ```ts
 * const record = new ServerRecord(new SqliteKv(db));
 * record.write({ url: "http://127.0.0.1:8765", pid: Deno.pid, owner: PROCESS_OWNER });
 * record.read()?.url; // "http://127.0.0.1:8765"
 * ```
 */
export class ServerRecord {
  readonly #kv: SqliteKv;

  constructor(kv: SqliteKv) {
    this.#kv = kv;
  }

  /** The address a `hob serve` recorded, or undefined (it may since have died: check `owner`). */
  read(): ServerAddress | undefined {
    return this.#kv.read<ServerAddress>(SERVER_KEY);
  }

  /** Records where this process listens. */
  write(address: ServerAddress): void {
    this.#kv.write(SERVER_KEY, address);
  }

  /** Forgets the record, as a server that stops does. */
  clear(): void {
    this.#kv.delete(SERVER_KEY);
  }
}

/**
 * The record in the hob.db at `path`, read without opening the database for
 * writing or migrating it: for a command that would rather ask a running
 * server than open the home. Undefined when there is none or it cannot be read.
 *
 * @example
 * ```ts
 * readServerRecord(`${home}/hob.db`)?.url; // "http://127.0.0.1:8484"
 * ```
 */
export function readServerRecord(path: string): ServerAddress | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const row = statements(db)<{ value: string }>("SELECT value FROM kv WHERE key = ?")
      .get(SERVER_KEY);
    return row ? JSON.parse(row.value) as ServerAddress : undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/**
 * The task workers (`hob worker`, those inside `hob serve`) the hob.db at
 * `path` lists whose processes still run, read as `readServerRecord` reads:
 * without writing. Empty when there are none or it cannot be read.
 */
export function readLiveWorkers(path: string): { pid: number; kind: string }[] {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const rows = statements(db)<{ id: string; pid: number; kind: string }>(
      "SELECT id, pid, kind FROM workers",
    ).all();
    return rows.filter((row) => isLiveOwner(row.id)).map(({ pid, kind }) => ({ pid, kind }));
  } catch {
    return [];
  } finally {
    db?.close();
  }
}
