/**
 * makeBackup and restoreBackup on real homes in temporary directories: a
 * round trip, secrets left out unless asked, an older schema migrated, and
 * refusals grouped by what is wrong — a damaged archive (cut short, a flipped
 * byte, a file that differs from its manifest, a path out of the home, not
 * gzip), a home that holds something, a home in use (by hob serve or a hob
 * worker) — each leaving the target
 * as it was.
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { packTar } from "modern-tar";
import { BackupError } from "../../src/backup/errors.ts";
import { makeBackup } from "../../src/backup/make.ts";
import { restoreBackup } from "../../src/backup/restore.ts";
import { ensureHome } from "../../src/home/home.ts";
import { openDatabase } from "../../src/store/database.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { PROCESS_OWNER } from "../../src/store/owner.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../helpers/assert.ts";

const CONFIG = `# mine
model: fake/m
providers:
  fake: { type: openai, base_url: "http://127.0.0.1:9/v1", api_key: "sk-test-123456789" }
`;

/** A home with a conversation, a memory note, an upload and a secret in hob.yaml. */
async function makeHome(root: string, migrations = MIGRATIONS): Promise<string> {
  const home = join(root, "home");
  await ensureHome(home);
  await Deno.writeTextFile(join(home, "hob.yaml"), CONFIG);
  await Deno.writeTextFile(join(home, "memory", "notes.md"), "The plant needs water.\n");
  await Deno.mkdir(join(home, "uploads", "2026-11-29"), { recursive: true });
  await Deno.writeFile(
    join(home, "uploads", "2026-11-29", "photo.bin"),
    new Uint8Array(70_000).fill(7),
  );
  const db = openDatabase(join(home, "hob.db"), { migrations });
  db.exec(
    "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Plants', 'now', 'now')",
  );
  db.exec(
    "INSERT INTO messages (conversation_id, role, content, status, owner, created_at) VALUES ('c1', 'user', 'water?', 'complete', NULL, 'now'), ('c1', 'assistant', 'Fri', 'streaming', 'x', 'now')",
  );
  db.close();
  await Deno.writeTextFile(join(home, "workspace", "tidy.sh"), "#!/bin/sh\necho tidy\n");
  await Deno.chmod(join(home, "workspace", "tidy.sh"), 0o755);
  await Deno.chmod(join(home, "memory", "notes.md"), 0o644);
  return home;
}

async function withRoot(test: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "hob-backup-" });
  try {
    await test(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function rows(path: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(sql).all().map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test("restoreBackup brings back what makeBackup took", async (t) => {
  await withRoot(async (root) => {
    const home = await makeHome(root);
    const made = await makeBackup({ home, dir: join(home, "backups"), withSecrets: false });
    assert(made.file.startsWith(join(home, "backups", "hob-backup-")), made.file);

    await t.step("every file, the database migrated and freed, a new token", async () => {
      const target = join(root, "restored");
      const restored = await restoreBackup({ file: made.file, home: target, force: false });
      assertEquals(restored.integrity, "ok");
      assertEquals(restored.schema, { from: SCHEMA_VERSION, to: SCHEMA_VERSION });
      assertEquals(restored.interrupted, 1);
      assertEquals(restored.new_token, true);
      for (const path of ["memory/notes.md", "uploads/2026-11-29/photo.bin", "identity/SOUL.md"]) {
        assertEquals(
          await Deno.readFile(join(target, path)),
          await Deno.readFile(join(home, path)),
        );
      }
      for (
        const [path, mode] of [["workspace/tidy.sh", 0o755], ["memory/notes.md", 0o644]] as const
      ) {
        assertEquals(
          (await Deno.stat(join(target, path))).mode! & 0o777,
          mode,
          `${path} keeps its mode`,
        );
      }
      assertEquals((await Deno.stat(join(target, "token"))).mode! & 0o777, 0o600);
      assertEquals(
        rows(join(target, "hob.db"), "SELECT role, content, status FROM messages ORDER BY id"),
        [
          { role: "user", content: "water?", status: "complete" },
          { role: "assistant", content: "Fri", status: "interrupted" },
        ],
      );
      assert(
        (await Deno.readTextFile(join(target, "token"))).trim() !==
          (await Deno.readTextFile(join(home, "token"))).trim(),
        "the restored home has a token of its own",
      );
    });

    await t.step("secrets are left out by default and said to be", async () => {
      assertEquals(made.redacted, ["providers.fake.api_key"]);
      const config = await Deno.readTextFile(join(root, "restored", "hob.yaml"));
      assert(!config.includes("sk-test-123456789"), config);
      assertStringIncludes(config, "<redacted>");
      assertStringIncludes(config, "# mine");
    });

    await t.step("with secrets, the token and the keys come back as they were", async () => {
      const file = join(root, "with-secrets.tar.gz");
      const secret = await makeBackup({
        home,
        file,
        dir: join(home, "backups"),
        withSecrets: true,
      });
      assertEquals(secret.redacted, []);
      const target = join(root, "restored-secrets");
      const restored = await restoreBackup({ file, home: target, force: false });
      assertEquals([restored.secrets, restored.new_token], [true, false]);
      assertEquals(await Deno.readTextFile(join(target, "hob.yaml")), CONFIG);
      assertEquals(
        await Deno.readTextFile(join(target, "token")),
        await Deno.readTextFile(join(home, "token")),
      );
    });

    await t.step("the backups' folder is not inside the backup", async () => {
      const names: string[] = [];
      for await (const entry of Deno.readDir(join(root, "restored"))) names.push(entry.name);
      assert(!names.includes("backups"), names.join(", "));
    });
  });
});

Deno.test("restoreBackup migrates a database of an older hob", async () => {
  await withRoot(async (root) => {
    const older = MIGRATIONS.slice(0, 8);
    const home = await makeHome(root, older);
    const made = await makeBackup({ home, dir: join(root, "backups"), withSecrets: false });
    assertEquals(made.schema_version, 8);
    const target = join(root, "restored");
    const restored = await restoreBackup({ file: made.file, home: target, force: false });
    assertEquals(restored.schema, { from: 8, to: SCHEMA_VERSION });
    assertEquals(rows(join(target, "hob.db"), "PRAGMA user_version"), [{
      user_version: SCHEMA_VERSION,
    }]);
    assertEquals(
      rows(join(target, "hob.db"), "SELECT content FROM messages WHERE role = 'user'"),
      [{ content: "water?" }],
    );
  });
});

/** Restores `file` into a fresh directory and returns the refusal, checking nothing was made. */
async function refused(root: string, file: string): Promise<BackupError> {
  const target = join(root, `target-${crypto.randomUUID().slice(0, 8)}`);
  const error = await assertRejects(() => restoreBackup({ file, home: target, force: false }));
  assert(error instanceof BackupError, String(error));
  const left: string[] = [];
  for await (const entry of Deno.readDir(root)) left.push(entry.name);
  assert(!left.some((name) => name.includes("target-")), `left behind: ${left.join(", ")}`);
  return error;
}

Deno.test("restoreBackup refuses a damaged archive, naming what is wrong", async (t) => {
  await withRoot(async (root) => {
    const home = await makeHome(root);
    const made = await makeBackup({ home, dir: join(root, "backups"), withSecrets: false });
    const bytes = await Deno.readFile(made.file);
    const write = async (name: string, content: Uint8Array) => {
      const file = join(root, name);
      await Deno.writeFile(file, content);
      return file;
    };

    await t.step("cut short", async () => {
      const error = await refused(
        root,
        await write("cut.tar.gz", bytes.slice(0, bytes.length >> 1)),
      );
      assertEquals(error.problem, "damaged");
      assertStringIncludes(error.message, "damaged or cut short");
    });

    await t.step("a flipped byte", async () => {
      const flipped = bytes.slice();
      flipped[flipped.length >> 1] ^= 0xff;
      const error = await refused(root, await write("flipped.tar.gz", flipped));
      assertEquals(error.problem, "damaged");
    });

    await t.step("not gzip", async () => {
      const error = await refused(root, await write("notes.txt", new TextEncoder().encode("hi")));
      assertStringIncludes(error.message, "not gzip-compressed");
    });

    await t.step("a file that differs from its manifest", async () => {
      const manifest = JSON.parse(await innerText(bytes, "manifest.json"));
      const notes = manifest.files.find((f: { path: string }) => f.path === "memory/notes.md");
      const forged = await gzipTar([
        { name: "home/memory/notes.md", text: "The plant needs no water.\n" },
        { name: "manifest.json", text: JSON.stringify({ ...manifest, files: [notes] }) },
      ]);
      const error = await refused(root, await write("forged.tar.gz", forged));
      assertStringIncludes(error.message, "memory/notes.md has 26 bytes, the manifest says 23");
    });

    await t.step("a path out of the home", async () => {
      const forged = await gzipTar([{ name: "home/../../escaped.txt", text: "x" }]);
      const error = await refused(root, await write("escape.tar.gz", forged));
      assertStringIncludes(error.message, "not a path inside a home");
      assert(!(await exists(join(root, "escaped.txt"))), "nothing was written outside");
    });

    await t.step("no manifest", async () => {
      const forged = await gzipTar([{ name: "home/memory/notes.md", text: "x" }]);
      const error = await refused(root, await write("bare.tar.gz", forged));
      assertStringIncludes(error.message, "ends before its manifest");
    });

    await t.step("a file that is not there", async () => {
      const error = await refused(root, join(root, "missing.tar.gz"));
      assertEquals(error.problem, "not_found");
    });
  });
});

Deno.test("restoreBackup refuses a home that holds something or is in use", async (t) => {
  await withRoot(async (root) => {
    const home = await makeHome(root);
    const made = await makeBackup({ home, dir: join(root, "backups"), withSecrets: false });
    const target = join(root, "taken");
    await Deno.mkdir(target);
    await Deno.writeTextFile(join(target, "mine.txt"), "keep me");

    await t.step("not empty: refused, untouched", async () => {
      const error = await assertRejects(() =>
        restoreBackup({ file: made.file, home: target, force: false })
      );
      assertEquals((error as BackupError).problem, "not_empty");
      assertEquals(await Deno.readTextFile(join(target, "mine.txt")), "keep me");
    });

    await t.step("--force moves it aside, deleting nothing", async () => {
      const restored = await restoreBackup({ file: made.file, home: target, force: true });
      assert(restored.moved_aside, "moved aside");
      assertEquals(await Deno.readTextFile(join(restored.moved_aside, "mine.txt")), "keep me");
      assert(await exists(join(target, "hob.db")), "restored");
    });

    await t.step("a home a hob worker runs tasks on: refused, even with --force", async () => {
      const db = openDatabase(join(target, "hob.db"));
      db.prepare(
        "INSERT INTO workers (id, pid, kind, started_at, seen_at) VALUES (?, ?, 'worker', 'now', 'now')",
      ).run(`${PROCESS_OWNER}/1`, Deno.pid);
      db.close();
      const error = await assertRejects(() =>
        restoreBackup({ file: made.file, home: target, force: true })
      );
      assertEquals((error as BackupError).problem, "in_use");
      assertStringIncludes(error.message, `hob worker (pid ${Deno.pid})`);
      const clear = openDatabase(join(target, "hob.db"));
      clear.exec("DELETE FROM workers");
      clear.close();
    });

    await t.step("a home hob serve runs on: refused, even with --force", async () => {
      const db = openDatabase(join(target, "hob.db"));
      db.prepare("INSERT INTO kv (key, value, updated_at) VALUES ('server', ?, 'now')").run(
        JSON.stringify({ url: "http://127.0.0.1:1", pid: Deno.pid, owner: PROCESS_OWNER }),
      );
      db.close();
      const error = await assertRejects(() =>
        restoreBackup({ file: made.file, home: target, force: true })
      );
      assertEquals((error as BackupError).problem, "in_use");
      assertStringIncludes(error.message, `pid ${Deno.pid}`);
    });
  });
});

/** The text of the entry `name` of a .tar.gz. */
async function innerText(bytes: Uint8Array, name: string): Promise<string> {
  const { unpackTar } = await import("modern-tar");
  const tar = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  const entry = (await unpackTar(tar)).find((e) => e.header.name === name);
  return new TextDecoder().decode(entry!.data);
}

/** A .tar.gz of the given text entries. */
async function gzipTar(entries: { name: string; text: string }[]): Promise<Uint8Array> {
  const tar = await packTar(entries.map(({ name, text }) => {
    const body = new TextEncoder().encode(text);
    return { header: { name, size: body.length, type: "file" as const }, body };
  }));
  const gz = new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gz).arrayBuffer());
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
