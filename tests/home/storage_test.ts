/**
 * Telling a full disk or a read-only home from other failures: real SQLite
 * and file-system errors, and a real full tmpfs where the tests may mount one.
 */

import { DatabaseSync } from "node:sqlite";
import {
  explainStorage,
  probeStorage,
  StorageError,
  storageProblem,
} from "../../src/home/storage.ts";
import { MemoryWriteError } from "../../src/memory/files.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

/** An error as Deno raises it for an OS error it has no class for. */
function osError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

Deno.test("storageProblem reads a full disk or a read-only home from the error and its causes", async (t) => {
  await t.step("SQLite's own errors", () => {
    const dir = Deno.makeTempDirSync();
    try {
      new DatabaseSync(`${dir}/x.db`).exec("CREATE TABLE t (x)");
      const readOnly = new DatabaseSync(`${dir}/x.db`, { readOnly: true });
      let error: unknown;
      try {
        readOnly.exec("INSERT INTO t VALUES (1)");
      } catch (e) {
        error = e;
      } finally {
        readOnly.close();
      }
      assertEquals(storageProblem(error), "read_only");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
    assertEquals(storageProblem(new Error("database or disk is full")), "full");
    assertEquals(storageProblem(Object.assign(new Error("x"), { errcode: 13 })), "full");
    // Extended codes carry the primary one in their low byte (SQLITE_READONLY_DBMOVED).
    assertEquals(storageProblem(Object.assign(new Error("x"), { errcode: 1032 })), "read_only");
  });
  await t.step(
    "a write lock another connection holds: busy, by code or by exec's bare words",
    () => {
      const dir = Deno.makeTempDirSync();
      const holder = new DatabaseSync(`${dir}/x.db`);
      const waiter = new DatabaseSync(`${dir}/x.db`);
      try {
        holder.exec("CREATE TABLE t (x)");
        holder.exec("BEGIN IMMEDIATE");
        const failures: unknown[] = [];
        for (
          const write of [
            () => waiter.prepare("INSERT INTO t VALUES (1)").run(), // errcode 5
            () => waiter.exec("BEGIN IMMEDIATE"), // only "database is locked"
          ]
        ) {
          try {
            write();
          } catch (error) {
            failures.push(error);
          }
        }
        assertEquals(failures.map(storageProblem), ["busy", "busy"]);
        assertEquals(
          new StorageError("busy", "/home/me/.hob").message,
          "/home/me/.hob/hob.db is busy: another program is holding its write lock (a sqlite3 shell in a transaction, a backup tool) — try again in a few seconds",
        );
      } finally {
        holder.close();
        waiter.close();
        Deno.removeSync(dir, { recursive: true });
      }
    },
  );
  await t.step("OS errors, and ones wrapped as a cause", () => {
    const full = osError("ENOSPC", "No space left on device (os error 28): write '/h/x'");
    assertEquals(storageProblem(full), "full");
    assertEquals(
      storageProblem(osError("EROFS", "Read-only file system (os error 30)")),
      "read_only",
    );
    assertEquals(
      storageProblem(new MemoryWriteError("Cannot write MEMORY.md", { cause: full })),
      "full",
    );
  });
  await t.step("anything else is not a storage problem", () => {
    assertEquals(storageProblem(new Error("boom")), undefined);
    assertEquals(storageProblem("database or disk is full"), undefined);
    // Said by the sandbox (a missing --allow flag) or a permission not known to be about writing.
    assertEquals(storageProblem(new Deno.errors.NotCapable("Requires write access")), undefined);
    assertEquals(storageProblem(new Deno.errors.PermissionDenied("open '/x'")), undefined);
  });
});

Deno.test("explainStorage names the directory, and probes it when SQLite is vague", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("a clear error needs no probe", () => {
      const explained = explainStorage(new Error("database or disk is full"), dir)!;
      assert(explained instanceof StorageError);
      assertEquals(explained.problem, "full");
      assertMatch(explained.message, new RegExp(`^cannot write to ${dir}: the disk is full — `));
    });
    await t.step("a vague error in a writable directory is not explained away", () => {
      assertEquals(explainStorage(new Error("disk I/O error"), dir), undefined);
      assertEquals(probeStorage(dir), undefined);
      assertEquals([...Deno.readDirSync(dir)], [], "the probe leaves nothing behind");
    });
    await t.step("a StorageError is passed on as it is", () => {
      const error = new StorageError("read_only", "/elsewhere");
      assertEquals(explainStorage(new Error("wrapped", { cause: error }), dir), error);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("probeStorage finds a full disk full", async () => {
  const dir = await Deno.makeTempDir();
  const mount = (args: string[]) =>
    new Deno.Command(args[0], { args: args.slice(1), stdout: "null", stderr: "null" }).output()
      .then((o) => o.success, () => false);
  if (
    Deno.uid() !== 0 || !(await mount(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]))
  ) {
    await Deno.remove(dir);
    console.log("  skipped: mounting a small tmpfs needs root");
    return;
  }
  try {
    const filler = await Deno.open(`${dir}/filler`, { write: true, create: true, append: true });
    for (let size = 65_536; size >= 1;) {
      await filler.write(new Uint8Array(size)).catch(() => size >>= 1);
    }
    filler.close();
    assertEquals(probeStorage(dir), "full");
    assertEquals(explainStorage(new Error("disk I/O error"), dir)?.problem, "full");
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["filler"]);
  } finally {
    await mount(["umount", dir]);
    await Deno.remove(dir, { recursive: true });
  }
});
