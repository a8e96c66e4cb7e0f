/**
 * snapshotDatabase against a real WAL database that another process writes
 * to as it copies: the copy holds every transaction committed before it
 * began — also those still only in the WAL, which a copy of the file would
 * miss — and no transaction in part, and passes SQLite's integrity check.
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { snapshotDatabase } from "../../src/store/snapshot.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { spawnHobCode } from "../helpers/hob_process.ts";

/** Rows this process commits before the copy; they stay in the WAL (no checkpoint). */
const BEFORE = 2_000;

/** A writer in its own process: transactions of two rows each, until its stop file appears. */
const WRITER = `
import { DatabaseSync } from "node:sqlite";
const [path, stop] = Deno.args;
const db = new DatabaseSync(path);
db.exec("PRAGMA busy_timeout = 5000; PRAGMA wal_autocheckpoint = 0");
const insert = db.prepare("INSERT INTO pairs (n, half) VALUES (?, ?)");
for (let n = 0; ; n++) {
  db.exec("BEGIN IMMEDIATE");
  insert.run(n, "a");
  insert.run(n, "b".repeat(500));
  db.exec("COMMIT");
  if (n === 0) console.log("writing");
  try { Deno.statSync(stop); break; } catch { /* go on */ }
  // A steady load, not a flood: the WAL is never checkpointed here.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
db.close();
`;

Deno.test("snapshotDatabase copies the database at one moment while another process writes", async () => {
  const dir = await Deno.makeTempDir();
  const source = join(dir, "hob.db");
  const db = new DatabaseSync(source);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
  db.exec("CREATE TABLE rows (n INTEGER); CREATE TABLE pairs (n INTEGER, half TEXT)");
  db.exec("PRAGMA user_version = 7");
  const insert = db.prepare("INSERT INTO rows (n) VALUES (?)");
  for (let n = 0; n < BEFORE; n++) insert.run(n);

  const stop = join(dir, "stop");
  // Another program writing: a process of its own, with hob's flags (not `deno eval`'s all).
  const writer = await spawnHobCode(WRITER, { args: [source, stop], stderr: "inherit" });
  const reader = writer.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("writing")) said += (await reader.read()).value ?? "";
  try {
    const walBytes = (await Deno.stat(`${source}-wal`)).size;
    assert(walBytes > 0, "the rows are in the WAL, not yet in the file");
    const target = join(dir, "copy.db");
    const copied = await snapshotDatabase(source, target);
    assertEquals([copied.integrity, copied.schema_version], ["ok", 7]);

    const copy = new DatabaseSync(target, { readOnly: true });
    try {
      const rows = copy.prepare("SELECT COUNT(*) AS n FROM rows").get() as { n: number };
      assertEquals(rows.n, BEFORE);
      const torn = copy.prepare(
        "SELECT n FROM pairs GROUP BY n HAVING COUNT(*) != 2",
      ).all();
      assertEquals(torn, [], "no transaction is in the copy in part");
      const pairs = copy.prepare("SELECT COUNT(DISTINCT n) AS n FROM pairs").get() as { n: number };
      assert(pairs.n >= 1, "the writer's committed transactions are in it");
    } finally {
      copy.close();
    }
  } finally {
    await Deno.writeTextFile(stop, "");
    while (!(await reader.read()).done) { /* drain */ }
    await writer.status;
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
