import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import {
  applyMigration,
  openDatabase,
  SCHEMA_VERSION,
  StoreError,
} from "../../src/store/database.ts";
import { type Migration, MIGRATIONS } from "../../src/store/migrations.ts";

function tempPath(): { dir: string; path: string } & Disposable {
  const dir = Deno.makeTempDirSync({ prefix: "hob-db-" });
  return {
    dir,
    path: `${dir}/hob.db`,
    [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }),
  };
}

Deno.test("openDatabase creates the schema with WAL and foreign keys", () => {
  using tmp = tempPath();
  const db = openDatabase(tmp.path);
  try {
    assertEquals({ ...db.prepare("PRAGMA journal_mode").get() }, { journal_mode: "wal" });
    assertEquals({ ...db.prepare("PRAGMA foreign_keys").get() }, { foreign_keys: 1 });
    assertEquals({ ...db.prepare("PRAGMA user_version").get() }, { user_version: SCHEMA_VERSION });
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => (r as { name: string }).name);
    for (const table of ["conversations", "kv", "messages"]) assert(tables.includes(table), table);
  } finally {
    db.close();
  }
});

Deno.test("openDatabase migrates in order, backs up first and rolls back a failed migration", async (t) => {
  using tmp = tempPath();
  const one: Migration = { version: 1, name: "notes", sql: "CREATE TABLE notes (text TEXT)" };
  const two: Migration = { version: 2, name: "tags", sql: "CREATE TABLE tags (name TEXT)" };
  const broken: Migration = {
    version: 3,
    name: "broken",
    sql: "CREATE TABLE half (x); THIS IS NOT SQL",
  };

  await t.step("a new database gets every migration", () => {
    const db = openDatabase(tmp.path, { migrations: [one] });
    db.prepare("INSERT INTO notes VALUES (?)").run("kept");
    db.close();
  });
  await t.step("an upgrade copies the old database aside first", () => {
    const db = openDatabase(tmp.path, { migrations: [one, two] });
    assertEquals({ ...db.prepare("PRAGMA user_version").get() }, { user_version: 2 });
    db.close();
    const backup = new DatabaseSync(`${tmp.path}.backup-v1`);
    assertEquals(backup.prepare("SELECT text FROM notes").all().map((r) => ({ ...r })), [{
      text: "kept",
    }]);
    assertEquals({ ...backup.prepare("PRAGMA user_version").get() }, { user_version: 1 });
    backup.close();
  });
  await t.step("a failing migration leaves the database as it was", async () => {
    const error = await assertRejects(() =>
      openDatabase(tmp.path, { migrations: [one, two, broken] })
    );
    assert(error instanceof StoreError);
    assertMatch(error.message, /Migration 3 \(broken\) failed/);
    const db = new DatabaseSync(tmp.path);
    assertEquals({ ...db.prepare("PRAGMA user_version").get() }, { user_version: 2 });
    assertEquals(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'half'").all(), []);
    db.close();
  });
  await t.step("a database from a newer hob is refused", async () => {
    const error = await assertRejects(() => openDatabase(tmp.path, { migrations: [one] }));
    assertMatch(error.message, /schema version 2, newer than this hob knows \(1\) — upgrade hob/);
  });
});

Deno.test("openDatabase explains a database it cannot open", async () => {
  using tmp = tempPath();
  Deno.mkdirSync(tmp.path); // a directory where the file should be
  const error = await assertRejects(() => openDatabase(tmp.path));
  assert(error instanceof StoreError);
  assertMatch(
    error.message,
    /^Cannot open the database .*hob\.db: .* — is the home directory writable\?$/,
  );
});

Deno.test("a migration another process applied while this one waited is skipped, not run twice", () => {
  using tmp = tempPath();
  // Both handles read version 0; the first applies migration 1, then the second gets the lock.
  const first = new DatabaseSync(tmp.path);
  const second = new DatabaseSync(tmp.path);
  try {
    applyMigration(first, MIGRATIONS[0]);
    applyMigration(second, MIGRATIONS[0]); // "table conversations already exists" before the fix
    const version = second.prepare("PRAGMA user_version").get() as { user_version: number };
    assertEquals(version.user_version, MIGRATIONS[0].version);
  } finally {
    first.close();
    second.close();
  }
});

Deno.test("the channels migration rebuilds conversations without losing a message or a reference", () => {
  using tmp = tempPath();
  // A hob.db as the release before channels left it, with a conversation, messages and an approval.
  const before = openDatabase(tmp.path, { migrations: MIGRATIONS.filter((m) => m.version < 8) });
  before.exec(`
    INSERT INTO conversations (id, title, model, created_at, updated_at, kind, flush_summary)
      VALUES ('c1', 'Plans', 'fake/m', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', 'task', 'so far');
    INSERT INTO messages (conversation_id, role, content, created_at)
      VALUES ('c1', 'user', 'hello', '2026-01-01T00:00:00Z'), ('c1', 'assistant', 'hi', '2026-01-01T00:00:01Z');
  `);
  before.close();
  const db = openDatabase(tmp.path);
  try {
    assertEquals({ ...db.prepare("PRAGMA foreign_keys").get() }, { foreign_keys: 1 });
    const row = { ...db.prepare("SELECT * FROM conversations WHERE id = 'c1'").get() };
    assertEquals([row.title, row.kind, row.flush_summary], ["Plans", "task", "so far"]);
    assertEquals(
      { ...db.prepare("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = 'c1'").get() },
      { n: 2 },
    );
    db.exec(`INSERT INTO conversations (id, created_at, updated_at, kind)
      VALUES ('c2', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z', 'channel')`);
    // The messages still belong to their conversation: deleting it deletes them.
    db.exec("DELETE FROM conversations WHERE id = 'c1'");
    assertEquals({ ...db.prepare("SELECT COUNT(*) AS n FROM messages").get() }, { n: 0 });
  } finally {
    db.close();
  }
});
