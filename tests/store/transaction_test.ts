import { DatabaseSync } from "node:sqlite";
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
} from "../helpers/assert.ts";
import { until } from "../helpers/until.ts";
import { StorageError } from "../../src/home/storage.ts";
import {
  BUSY_TIMEOUT_MS,
  stopWaiting,
  transaction,
  withWriteLock,
} from "../../src/store/transaction.ts";

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

Deno.test("transaction inside a transaction is a savepoint of it", async (t) => {
  using tmp = tempDb();
  await t.step("committed with the outer one", () => {
    transaction(tmp.db, () => {
      tmp.db.prepare("INSERT INTO notes VALUES ('outer')").run();
      transaction(tmp.db, () => tmp.db.prepare("INSERT INTO notes VALUES ('inner')").run());
    });
    assertEquals(tmp.count(), 2);
  });
  await t.step("rolled back alone, the outer work going on", () => {
    transaction(tmp.db, () => {
      tmp.db.prepare("INSERT INTO notes VALUES ('kept')").run();
      assertThrows(
        () =>
          transaction(tmp.db, () => {
            tmp.db.prepare("INSERT INTO notes VALUES ('undone')").run();
            throw new RangeError("inner failed");
          }),
        RangeError,
      );
      assert(tmp.db.isTransaction);
    });
    assertEquals(tmp.count(), 3);
    assert(!tmp.db.isTransaction);
  });
});

/** Fails unless `fn` rejects with an `ErrorClass` whose message includes `includes`. */
async function rejectsWith(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => Error,
  includes = "",
): Promise<Error> {
  const error = await assertRejects(fn);
  assert(error instanceof ErrorClass, `expected ${ErrorClass.name}, got ${error}`);
  assertStringIncludes(error.message, includes);
  return error;
}

/**
 * hob.db as hob opens it (WAL, SQLite's short wait) and a second connection
 * to it, as another program (sqlite3, a backup tool) would hold one.
 */
function lockedDb() {
  const dir = Deno.makeTempDirSync({ prefix: "hob-lock-" });
  const db = new DatabaseSync(`${dir}/hob.db`);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec("CREATE TABLE notes (text TEXT NOT NULL)");
  const other = new DatabaseSync(`${dir}/hob.db`);
  return {
    db,
    /** The other program takes the write lock and keeps it until `release`. */
    lock: () => other.exec("BEGIN IMMEDIATE"),
    release: () => other.exec("COMMIT"),
    count: () => (db.prepare("SELECT COUNT(*) AS n FROM notes").get() as { n: number }).n,
    [Symbol.dispose]() {
      if (other.isTransaction) other.exec("ROLLBACK");
      other.close();
      db.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("withWriteLock runs the work at once while nobody holds the lock", async () => {
  using tmp = lockedDb();
  const value = await withWriteLock(tmp.db, () => {
    assert(tmp.db.isTransaction);
    tmp.db.prepare("INSERT INTO notes VALUES ('a')").run();
    return 7;
  });
  assertEquals(value, 7);
  assertEquals(tmp.count(), 1);
  assert(!tmp.db.isTransaction);
});

Deno.test("withWriteLock waits for another program's lock without stopping the event loop", async () => {
  using tmp = lockedDb();
  tmp.lock();
  let ran = 0;
  const writing = withWriteLock(tmp.db, () => {
    ran++;
    tmp.db.prepare("INSERT INTO notes VALUES ('after the release')").run();
    return "written";
  }, { waitMs: 60_000 });
  // Timers keep firing while it waits: were it waiting inside SQLite, none would.
  let ticks = 0;
  const ticking = setInterval(() => ticks++, 1);
  try {
    await until(() => ticks >= 20, "20 timer ticks while the write waits");
  } finally {
    clearInterval(ticking);
  }
  assertEquals(ran, 0);
  // Readers are not held up by the lock (WAL): reads answer meanwhile.
  assertEquals(tmp.count(), 0);
  tmp.release();
  assertEquals(await writing, "written");
  assertEquals(ran, 1);
  assertEquals(tmp.count(), 1);
});

Deno.test("withWriteLock gives up after waitMs with a busy StorageError, the work never run", async () => {
  using tmp = lockedDb();
  tmp.lock();
  let ran = false;
  const error = await rejectsWith(
    () => withWriteLock(tmp.db, () => ran = true, { waitMs: 100 }),
    StorageError,
  );
  assertEquals((error as StorageError).problem, "busy");
  assertMatch(error.message, /^hob\.db is busy: another program is holding its write lock/);
  assertMatch(error.message, /try again/);
  assert(!ran);
  tmp.release();
  // The lock released, the next write goes through.
  assertEquals(await withWriteLock(tmp.db, () => "now", { waitMs: 100 }), "now");
});

Deno.test("withWriteLock runs every waiter once, in turn, after the release", async () => {
  using tmp = lockedDb();
  tmp.lock();
  const order: string[] = [];
  const writes = ["a", "b", "c"].map((text) =>
    withWriteLock(tmp.db, () => {
      order.push(text);
      tmp.db.prepare("INSERT INTO notes VALUES (?)").run(text);
      return text;
    })
  );
  let ticks = 0;
  const ticking = setInterval(() => ticks++, 1);
  try {
    await until(() => ticks >= 10, "10 timer ticks while the writes wait");
  } finally {
    clearInterval(ticking);
  }
  assertEquals(order, []);
  tmp.release();
  assertEquals(await Promise.all(writes), ["a", "b", "c"]);
  assertEquals(order, ["a", "b", "c"]);
  assertEquals(tmp.count(), 3);
});

Deno.test("withWriteLock stops waiting at the signal or at stopWaiting", async (t) => {
  await t.step("an abort throws its reason, the work never run", async () => {
    using tmp = lockedDb();
    tmp.lock();
    const controller = new AbortController();
    let ran = false;
    const writing = withWriteLock(tmp.db, () => ran = true, { signal: controller.signal });
    const reason = new Error("the client left");
    controller.abort(reason);
    assertStrictEquals(await writing.catch((error) => error), reason);
    assert(!ran);
  });
  await t.step("stopWaiting fails every wait as busy, now and later", async () => {
    using tmp = lockedDb();
    tmp.lock();
    const writing = withWriteLock(tmp.db, () => "never");
    stopWaiting(tmp.db);
    const error = await writing.catch((e) => e);
    assert(error instanceof StorageError && error.problem === "busy");
    await rejectsWith(() => withWriteLock(tmp.db, () => "never"), StorageError, "busy");
    tmp.release();
    // The lock free, a write still goes through: only the waiting ended.
    assertEquals(await withWriteLock(tmp.db, () => "free"), "free");
  });
});

Deno.test("withWriteLock commits whole or rolls back whole", async (t) => {
  using tmp = lockedDb();
  await t.step("a throw rolls back and is the error", async () => {
    await rejectsWith(
      () =>
        withWriteLock(tmp.db, () => {
          tmp.db.prepare("INSERT INTO notes VALUES ('a')").run();
          throw new RangeError("half done");
        }),
      RangeError,
      "half done",
    );
    assertEquals(tmp.count(), 0);
    assert(!tmp.db.isTransaction);
  });
  await t.step("inside a transaction of the same handle it is a savepoint", async () => {
    let inner: Promise<string> | undefined;
    transaction(tmp.db, () => {
      inner = withWriteLock(tmp.db, () => {
        tmp.db.prepare("INSERT INTO notes VALUES ('nested')").run();
        return "nested";
      });
    });
    assertEquals(await inner, "nested");
    assertEquals(tmp.count(), 1);
  });
  await t.step("asynchronous work is refused", async () => {
    await rejectsWith(
      () => withWriteLock(tmp.db, async () => await Promise.resolve()),
      TypeError,
      "must be synchronous",
    );
    assert(!tmp.db.isTransaction);
  });
  await t.step("a bad waitMs is refused before anything is tried", async () => {
    await rejectsWith(
      () => withWriteLock(tmp.db, () => 1, { waitMs: -1 }),
      RangeError,
      "'waitMs' must be a number >= 0: current value is -1",
    );
  });
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
        /(exec|prepare)\(\s*["'`]BEGIN IMMEDIATE/.test(await Deno.readTextFile(url))
      ) {
        found.push(url.pathname.slice(root.pathname.length));
      }
    }
  };
  await walk(root);
  assertEquals(found, ["store/transaction.ts"]);
});
