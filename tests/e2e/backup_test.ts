/**
 * Backups against a real `hob serve` run as shipped (deno.json's `hob` task
 * flags, never --allow-all): `hob backup` taken while 8 chats stream replies
 * without pause, then `hob restore` into a new home holds every message the
 * API had committed before the backup began and every memory file, its
 * database passes `PRAGMA integrity_check`, and hob serves it. And the
 * schedule: `backup.every` makes backups on its own, `hob status` shows the
 * last one, and `backup.keep` prunes the folder.
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, runHob, startHob } from "../helpers/hob_process.ts";
import { eventually, until } from "../helpers/until.ts";

/** No background work but what a test asks for, keyword search only. */
const QUIET = `heartbeat: { enabled: false }
tasks: { workers: 0 }
memory: { embedder: none }`;

/** Chats streaming at once while the backup is taken. */
const CHATS = 8;

interface Message {
  id: number;
  role: string;
  content: string;
  status: string;
}

async function chat(hob: HobServer, body: unknown, stream: boolean): Promise<string> {
  const response = await hob.fetch("/api/chat", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(stream ? { accept: "text/event-stream" } : {}),
    },
    body: JSON.stringify(body),
  });
  assertEquals(response.status, 200, await response.clone().text());
  if (!stream) return (await response.json()).conversation_id;
  const text = await response.text();
  assertStringIncludes(text, "event: done");
  return text;
}

async function committed(hob: HobServer, id: string): Promise<Message[]> {
  const response = await hob.fetch(`/api/conversations/${id}/messages`);
  const { messages } = await response.json() as { messages: Message[] };
  return messages.filter((m) => m.status === "complete")
    .map(({ id, role, content, status }) => ({ id, role, content, status }));
}

async function memoryFiles(home: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(join(home, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path, prefix);
      else if (entry.isFile && !entry.name.startsWith(".")) {
        files.set(path, await Deno.readTextFile(join(home, path)));
      }
    }
  };
  for (const dir of ["memory", "identity"]) await walk(dir, dir);
  return files;
}

Deno.test("hob backup under 8 streaming chats restores every committed message and memory file into a home that serves", async () => {
  const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
  await using fake = startFakeOpenAI({ fallback: { text: words, delay_ms: 10 } });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  await using hob = await startHob(home.home);

  // Before: a conversation per chat with a turn in it, and things remembered.
  const ids: string[] = [];
  for (let i = 0; i < CHATS; i++) ids.push(await chat(hob, { message: `hello ${i}` }, false));
  for (const text of ["The plant needs water on Fridays.", "Ada prefers tea to coffee."]) {
    const response = await hob.fetch("/api/memory/remember", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    assertEquals(response.status, 201);
    await response.body?.cancel();
  }

  // The load: each chat streams turn after turn until the backup is done.
  let loading = true;
  const turns = { during: 0 };
  const load = ids.map(async (id, i) => {
    for (let n = 0; loading; n++) {
      await chat(hob, { message: `turn ${n} of chat ${i}`, conversation_id: id }, true);
      turns.during++;
    }
  });
  await until(() => turns.during >= CHATS, "the chats to stream", 60_000);

  // What the API says is committed, read before the backup begins.
  const before = new Map<string, Message[]>();
  for (const id of ids) before.set(id, await committed(hob, id));
  const memory = await memoryFiles(home.home);
  const file = join(home.home, "..", `${crypto.randomUUID()}.tar.gz`);
  const atStart = turns.during;
  const started = performance.now();
  const backup = await runHob(["backup", file, "--home", home.home, "--json"]);
  const wall = Math.round(performance.now() - started);
  const turnsDuring = turns.during - atStart;
  loading = false;
  await Promise.all(load);
  assertEquals(backup.code, 0, backup.stderr);
  const record = JSON.parse(backup.stdout);
  assertEquals([record.ok, record.file, record.with_secrets], [true, file, false]);
  console.log(
    `backup: ${record.files} files, ${record.bytes} bytes, ${record.ms} ms to write ` +
      `(${wall} ms for the whole hob backup process); ${turnsDuring} streamed turns finished meanwhile`,
  );

  const restoredHome = join(home.home, "..", `${crypto.randomUUID()}-restored`);
  try {
    const restored = await runHob(["restore", file, "--home", restoredHome, "--json"]);
    assertEquals(restored.code, 0, restored.stderr);
    assertEquals(JSON.parse(restored.stdout).integrity, "ok");
    await Deno.remove(file);

    const db = new DatabaseSync(join(restoredHome, "hob.db"), { readOnly: true });
    try {
      const integrity = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
      assertEquals(integrity.integrity_check, "ok");
      const streaming = db.prepare("SELECT COUNT(*) AS n FROM messages WHERE status = 'streaming'")
        .get() as { n: number };
      assertEquals(streaming.n, 0, "a reply streaming at the backup is interrupted in the copy");
      const read = db.prepare("SELECT id, role, content, status FROM messages WHERE id = ?");
      for (const [id, messages] of before) {
        assert(messages.length >= 2, `chat ${id} had ${messages.length} committed messages`);
        for (const message of messages) {
          assertEquals(
            { ...read.get(message.id) },
            { ...message },
            `message ${message.id} of ${id}`,
          );
        }
      }
    } finally {
      db.close();
    }
    for (const [path, text] of memory) {
      assertEquals(await Deno.readTextFile(join(restoredHome, path)), text, path);
    }

    await using again = await startHob(restoredHome);
    const listed = await again.fetch("/api/conversations?limit=100");
    const { conversations } = await listed.json() as { conversations: { id: string }[] };
    for (const id of ids) assert(conversations.some((c) => c.id === id), `${id} is listed`);
    assertEquals(
      await committed(again, ids[0]).then((m) => m.slice(0, before.get(ids[0])!.length)),
      before.get(ids[0]),
    );
  } finally {
    await Deno.remove(restoredHome, { recursive: true }).catch(() => {});
  }
});

Deno.test("backup.every makes backups while hob serve runs, hob status shows the last, and backup.keep prunes the folder", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(
    fakeProviderYaml(fake.url, `${QUIET}\nbackup: { every: 1s, keep: 2 }`),
  );
  const dir = join(home.home, "backups");
  await Deno.mkdir(dir);
  // An old backup and a file of the owner's: the one goes once two newer are there, the other stays.
  await Deno.writeTextFile(join(dir, "hob-backup-2020-01-01T00-00-00Z.tar.gz"), "old");
  await Deno.writeTextFile(join(dir, "notes.txt"), "mine");
  await using hob = await startHob(home.home);

  const names = async () => {
    const found: string[] = [];
    for await (const entry of Deno.readDir(dir)) found.push(entry.name);
    return found.sort();
  };
  await eventually(
    async () => {
      const status = await (await hob.fetch("/api/status")).json();
      return status.backup.last_ok?.pruned.length > 0;
    },
    "a scheduled backup that pruned the folder",
    120_000,
  );

  const status = await (await hob.fetch("/api/status")).json();
  assertEquals(status.backup.every, "1s");
  assertEquals(status.backup.last_ok.scheduled, true);
  assert(status.backup.next, "the next backup is shown");
  const listed = await names();
  assert(!listed.includes("hob-backup-2020-01-01T00-00-00Z.tar.gz"), listed.join(", "));
  assert(listed.includes("notes.txt"), listed.join(", "));

  const shown = await runHob(["status", "--home", home.home]);
  assertEquals(shown.code, 0, shown.stderr);
  // A backup a second: which one is the last by now is the clock's business, not the test's.
  assertMatch(
    shown.stdout,
    /\nbackups {4}every 1s, keep 2, next .*, last .* \d+\.\d KiB \S+\/backups\/hob-backup-[\dTZ-]+\.tar\.gz\n/,
  );
});
