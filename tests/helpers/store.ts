/** A real SQLite store in a temporary directory, removed on dispose. */

import type { DatabaseSync } from "node:sqlite";
import { SqliteConversationStore } from "../../src/store/conversations.ts";
import { openDatabase } from "../../src/store/database.ts";

export interface TempStore extends Disposable {
  dir: string;
  path: string;
  db: DatabaseSync;
  store: SqliteConversationStore;
}

/** Opens a fresh hob.db in a new temporary directory. */
export function tempStore(): TempStore {
  const dir = Deno.makeTempDirSync({ prefix: "hob-store-" });
  const path = `${dir}/hob.db`;
  const db = openDatabase(path);
  return {
    dir,
    path,
    db,
    store: new SqliteConversationStore(db),
    [Symbol.dispose]() {
      try {
        db.close();
      } catch { /* already closed */ }
      Deno.removeSync(dir, { recursive: true });
    },
  };
}
