/** What a killed backup left behind is swept by the next one; a running one's file is not. */

import { join } from "node:path";
import { makeBackup } from "../../src/backup/make.ts";
import { ensureHome } from "../../src/home/home.ts";
import { openDatabase } from "../../src/store/database.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("makeBackup removes the .partial files of backups whose process is gone, and only those", async () => {
  const root = await Deno.makeTempDir({ prefix: "hob-partial-" });
  try {
    const home = join(root, "home");
    await ensureHome(home);
    openDatabase(join(home, "hob.db")).close();
    const dir = join(root, "backups");
    await Deno.mkdir(dir);
    // A process that has ended: its pid is free (and not reused within this test).
    const ended = new Deno.Command("true").spawn();
    await ended.status;
    const dead = `hob-backup-2026-11-01T03-00-00Z.tar.gz.partial-${ended.pid}-0a1b2c3d`;
    const running = `hob-backup-2026-11-02T03-00-00Z.tar.gz.partial-${Deno.pid}-0a1b2c3d`;
    const other = "notes.partial-1-zz.txt";
    for (const name of [dead, running, other]) await Deno.writeTextFile(join(dir, name), "x");

    const made = await makeBackup({ home, dir, withSecrets: false });

    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assertEquals(names.sort(), [made.file.slice(dir.length + 1), running, other].sort());
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
