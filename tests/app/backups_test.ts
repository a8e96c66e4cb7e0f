/**
 * The backup action on a real runtime (a temporary home, the real maker) and
 * through the REST API: what it records, its refusals, the pruning after a
 * scheduled one, and that the API writes only into `backup.dir`.
 */

import { join } from "node:path";
import { ActionError } from "../../src/app/errors.ts";
import { listBackups } from "../../src/backup/folder.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../helpers/assert.ts";

Deno.test("backups.make writes an archive and records it; status shows it", async (t) => {
  await using api = await tempApi("backup: { keep: 2 }");
  const { backups, status } = api.runtime.app;
  const dir = join(api.home.home, "backups");

  await t.step("into a file named", async () => {
    const file = join(api.home.home, "..", `${crypto.randomUUID()}.tar.gz`);
    try {
      const record = await backups.make({ file });
      assertEquals([record.ok, record.file, record.scheduled], [true, file, false]);
      assert((record.bytes ?? 0) > 0 && (record.files ?? 0) > 5, JSON.stringify(record));
      assertEquals((await Deno.stat(file)).size, record.bytes);
      assertEquals(backups.status().last_ok, record);
    } finally {
      await Deno.remove(file).catch(() => {});
    }
  });

  await t.step("a file that exists: conflict, recorded as the last attempt", async () => {
    const file = join(api.home.home, "hob.yaml");
    const error = await assertRejects(() => backups.make({ file }));
    assert(error instanceof ActionError, String(error));
    assertEquals([error.code, error.field], ["conflict", "file"]);
    const shown = backups.status();
    assertEquals([shown.last?.ok, shown.last?.error], [false, error.message]);
    assertEquals(shown.last_ok?.ok, true);
  });

  await t.step("a relative path: invalid, naming the field", async () => {
    const error = await assertRejects(() => backups.make({ file: "backup.tar.gz" }));
    assertEquals([(error as ActionError).code, (error as ActionError).field], ["invalid", "file"]);
  });

  await t.step("scheduled ones keep backup.keep in the folder", async () => {
    for (let i = 0; i < 4; i++) await backups.make({}, { scheduled: true });
    const left = await listBackups(dir);
    assertEquals(left.length, 2);
    assertEquals(backups.status().last_ok?.pruned.length, 1);
  });

  await t.step("one at a time", async () => {
    const [first, second] = await Promise.allSettled([backups.make(), backups.make()]);
    assertEquals(first.status, "fulfilled");
    assertEquals(
      second.status === "rejected" && (second.reason as ActionError).code,
      "busy",
    );
  });

  await t.step("hob status has it", async () => {
    const report = await status.collect({ server_running: true });
    assertEquals(report.backup.dir, dir);
    assertEquals(report.backup.every, null);
    assertEquals(report.backup.last_ok?.file, backups.status().last_ok?.file);
  });
});

Deno.test("POST /api/backup writes into backup.dir only; GET /api/backup shows the record", async (t) => {
  await using api = await tempApi("");
  const dir = join(api.home.home, "backups");

  await t.step("201 with the record, the archive in the folder", async () => {
    const response = await api.call("/api/backup", { method: "POST" });
    assertEquals(response.status, 201);
    const record = await response.json();
    assertEquals(record.file.startsWith(dir), true);
    assertEquals(await listBackups(dir), [record.file.slice(dir.length + 1)]);
    const shown = await (await api.call("/api/backup")).json();
    assertEquals(shown.last_ok.file, record.file);
  });

  await t.step("a file of the caller's choosing is refused, naming the field", async () => {
    const response = await api.call("/api/backup", {
      method: "POST",
      json: { file: "/tmp/anywhere.tar.gz" },
    });
    assertEquals(response.status, 400);
    assertStringIncludes(JSON.stringify(await response.json()), "file");
  });

  await t.step("the page's Back up now", async () => {
    const response = await api.call("/ui/backup", {
      method: "POST",
      headers: { "x-hob-request": "1" },
    });
    assertEquals(response.status, 200);
    assertStringIncludes(await response.text(), "Backed up to");
    assertEquals((await listBackups(dir)).length, 2);
  });
});
