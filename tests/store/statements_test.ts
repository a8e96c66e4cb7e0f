import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStrictEquals, assertThrows } from "../helpers/assert.ts";
import { statements } from "../../src/store/statements.ts";

function tempDb(): { db: DatabaseSync; path: string } & Disposable {
  const dir = Deno.makeTempDirSync({ prefix: "hob-statements-" });
  const path = `${dir}/test.db`;
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, body BLOB)");
  return {
    db,
    path,
    [Symbol.dispose]() {
      db.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("statements prepares each SQL text once per handle, shared by every caller", async (t) => {
  using temp = tempDb();
  const sql = statements(temp.db);
  await t.step("one cache per handle: a second caller gets the same statements", () => {
    assertStrictEquals(statements(temp.db), sql);
    assertStrictEquals(
      sql("SELECT text FROM notes"),
      statements(temp.db)("SELECT text FROM notes"),
    );
  });
  await t.step("another SQL text is another statement", () => {
    assert(sql("SELECT text FROM notes") !== sql("SELECT id FROM notes"));
  });
  await t.step("another handle on the same file prepares its own", () => {
    const other = new DatabaseSync(temp.path);
    try {
      const statement = statements(other)<{ text: string }>("SELECT text FROM notes");
      assert(statement !== sql("SELECT text FROM notes"));
      sql("INSERT INTO notes (text) VALUES (?)").run("kept");
      assertEquals(statement.all().map((row) => row.text), ["kept"]);
    } finally {
      other.close();
    }
  });
});

Deno.test("Statement reads rows as the SQL names their columns", async (t) => {
  using temp = tempDb();
  const sql = statements(temp.db);
  const insert = sql("INSERT INTO notes (text, body) VALUES (?, ?)");
  assertEquals(insert.run("first", new Uint8Array([1, 2])), { changes: 1, lastInsertRowid: 1 });
  insert.run("second", null);
  const notes = sql<{ id: number; text: string; body: Uint8Array | null }>(
    "SELECT id, text, body FROM notes ORDER BY id",
  );
  await t.step("get: the first row, or undefined when there is none", () => {
    assertEquals({ ...notes.get() }, { id: 1, text: "first", body: new Uint8Array([1, 2]) });
    const none = sql<{ id: number }>("SELECT id FROM notes WHERE text = ?").get("third");
    assertEquals(none, undefined);
  });
  await t.step("all and iterate: every row, in order", () => {
    assertEquals(notes.all().map((row) => row.text), ["first", "second"]);
    assertEquals([...notes.iterate()].map((row) => row.body), [new Uint8Array([1, 2]), null]);
  });
  await t.step("breaking out of an iteration leaves the statement ready to run again", () => {
    for (const row of notes.iterate()) {
      assertEquals(row.id, 1);
      break;
    }
    assertEquals(notes.all().length, 2);
  });
});

Deno.test("Statement.one returns the row a statement always has, and names the SQL when it has none", () => {
  using temp = tempDb();
  const sql = statements(temp.db);
  assertEquals(sql<{ n: number }>("SELECT COUNT(*) AS n FROM notes").one().n, 0);
  const error = assertThrows(
    () => sql<{ id: number }>("SELECT id FROM notes WHERE text = ?").one("missing"),
    Error,
  );
  assertEquals(
    error.message,
    'Cannot read the row of "SELECT id FROM notes WHERE text = ?": it returned none',
  );
});

Deno.test("statements is the one place src/ prepares SQL", async () => {
  const root = new URL("../../src/", import.meta.url).pathname;
  const found: string[] = [];
  for await (const path of sourceFiles(root)) {
    if (path.endsWith("/store/statements.ts")) continue;
    (await Deno.readTextFile(path)).split("\n").forEach((line, i) => {
      if (/\bdb\.prepare\s*\(/.test(line)) found.push(`${path.slice(root.length)}:${i + 1}`);
    });
  }
  assertEquals(found, []);
});

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(`${path}/`);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
