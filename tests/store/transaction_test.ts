import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import { transaction } from "../../src/store/transaction.ts";

function tempDb(): { db: DatabaseSync; count(): number } & Disposable {
  const dir = Deno.makeTempDirSync({ prefix: "hob-tx-" });
  const db = new DatabaseSync(`${dir}/test.db`);
  db.exec("CREATE TABLE notes (text TEXT NOT NULL)");
  return {
    db,
    count: () => (db.prepare("SELECT COUNT(*) AS n FROM notes").get() as { n: number }).n,
    [Symbol.dispose]() {
      db.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("transaction commits the work and returns its value", () => {
  using tmp = tempDb();
  const value = transaction(tmp.db, () => {
    assert(tmp.db.isTransaction);
    tmp.db.prepare("INSERT INTO notes VALUES ('a')").run();
    return 42;
  });
  assertEquals(value, 42);
  assertEquals(tmp.count(), 1);
  assert(!tmp.db.isTransaction);
});

Deno.test("transaction rolls back and rethrows the work's own error", async (t) => {
  using tmp = tempDb();
  await t.step("a throw in the work leaves nothing written", () => {
    const error = assertThrows(
      () =>
        transaction(tmp.db, () => {
          tmp.db.prepare("INSERT INTO notes VALUES ('a')").run();
          throw new RangeError("half done");
        }),
      RangeError,
      "half done",
    );
    assertEquals(error.message, "half done");
    assertEquals(tmp.count(), 0);
    assert(!tmp.db.isTransaction);
  });
  await t.step("a failing statement's SQLite error is the one thrown", () => {
    assertThrows(
      () => transaction(tmp.db, () => tmp.db.exec("INSERT INTO notes VALUES (NULL)")),
      Error,
      "NOT NULL",
    );
    assert(!tmp.db.isTransaction);
  });
  await t.step("work that already ended the transaction does not hide its error", () => {
    assertThrows(
      () =>
        transaction(tmp.db, () => {
          tmp.db.exec("ROLLBACK"); // what SQLite does itself after SQLITE_FULL
          throw new Error("database or disk is full");
        }),
      Error,
      "disk is full",
    );
  });
});

Deno.test("transaction refuses asynchronous work before committing it", () => {
  using tmp = tempDb();
  assertThrows(
    () =>
      transaction(tmp.db, async () => {
        tmp.db.prepare("INSERT INTO notes VALUES ('early')").run();
        await Promise.resolve();
      }),
    TypeError,
    "must be synchronous",
  );
  assertEquals(tmp.count(), 0);
  assert(!tmp.db.isTransaction);
});

Deno.test("only src/store/transaction.ts begins a write transaction", async () => {
  const root = new URL("../../src/", import.meta.url);
  const found: string[] = [];
  const walk = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (
        entry.name.endsWith(".ts") &&
        /exec\(\s*["'`]BEGIN IMMEDIATE/.test(await Deno.readTextFile(url))
      ) {
        found.push(url.pathname.slice(root.pathname.length));
      }
    }
  };
  await walk(root);
  assertEquals(found, ["store/transaction.ts"]);
});
