import { join } from "node:path";
import { backupName, listBackups, pruneBackups } from "../../src/backup/folder.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("backupName is the UTC time, sortable and safe in any file system", () => {
  assertEquals(
    backupName(new Date("2026-11-29T13:40:05.120Z")),
    "hob-backup-2026-11-29T13-40-05Z.tar.gz",
  );
  assertEquals(
    backupName(new Date("2026-11-29T13:40:05Z"), 2),
    "hob-backup-2026-11-29T13-40-05Z-2.tar.gz",
  );
});

Deno.test("pruneBackups keeps the newest and touches no other file", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const names = [
      "hob-backup-2026-11-29T13-40-05Z-2.tar.gz",
      "hob-backup-2026-11-01T00-00-00Z.tar.gz",
      "hob-backup-2026-11-29T13-40-05Z.tar.gz",
      "hob-backup-2026-11-15T00-00-00Z.tar.gz",
    ];
    for (const name of [...names, "notes.txt", "hob-backup-mine.tar.gz"]) {
      await Deno.writeTextFile(join(dir, name), name);
    }
    await t.step("listed oldest first", async () => {
      assertEquals(await listBackups(dir), [
        "hob-backup-2026-11-01T00-00-00Z.tar.gz",
        "hob-backup-2026-11-15T00-00-00Z.tar.gz",
        "hob-backup-2026-11-29T13-40-05Z.tar.gz",
        "hob-backup-2026-11-29T13-40-05Z-2.tar.gz",
      ]);
    });
    await t.step("the oldest deleted until `keep` remain", async () => {
      assertEquals(await pruneBackups(dir, 2), [
        "hob-backup-2026-11-01T00-00-00Z.tar.gz",
        "hob-backup-2026-11-15T00-00-00Z.tar.gz",
      ]);
      const left: string[] = [];
      for await (const entry of Deno.readDir(dir)) left.push(entry.name);
      assertEquals(left.sort(), [
        "hob-backup-2026-11-29T13-40-05Z-2.tar.gz",
        "hob-backup-2026-11-29T13-40-05Z.tar.gz",
        "hob-backup-mine.tar.gz",
        "notes.txt",
      ]);
    });
    await t.step("a folder that is not there holds none", async () => {
      assertEquals(await pruneBackups(join(dir, "missing"), 1), []);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
