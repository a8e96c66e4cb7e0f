/**
 * Crash safety with real processes: `hob serve` killed by SIGKILL while it
 * streams a reply, runs a tool, writes memory or runs a job, then the home
 * opened again and hob.db read as it was left. And a home on a full disk or a
 * read-only mount (real tmpfs and bind mounts when the tests run as root).
 * Every kill waits for something observable (SSE text, a file, a row), never a
 * fixed sleep alone.
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, parseSse, type SseEvent, tempHome } from "../helpers/home.ts";
import { type HobServer, runHob, spawnHobCode, startHob } from "../helpers/hob_process.ts";
import { MISSING_TOOL_RESULT } from "../../src/core/history.ts";
import { listMarkdown } from "../../src/memory/search_index.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";

/** No background work but what a test asks for, keyword search only. */
const QUIET = `heartbeat: { enabled: false }
tasks: { workers: 0 }
memory: { embedder: none }`;

const JSON_HEADERS = { "content-type": "application/json" };
const SSE_HEADERS = { "content-type": "application/json", accept: "text/event-stream" };

interface Row {
  id: number;
  role: string;
  content: string;
  status: string;
  tool_calls: string | null;
  tool_call_id: string | null;
}

/** Reads hob.db as a crash left it, read-only, and closes it. */
function readDb<T>(home: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(home, "hob.db"), { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function integrity(home: string): string {
  return readDb(home, (db) => {
    const rows = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("\n");
  });
}

function messagesOf(home: string, conversationId: string): Row[] {
  return readDb(home, (db) =>
    db.prepare(
      "SELECT id, role, content, status, tool_calls, tool_call_id FROM messages WHERE conversation_id = ? ORDER BY id",
    ).all(conversationId).map((row) => ({ ...row }) as unknown as Row));
}

/** Polls until `check` returns something truthy; fails after `timeoutMs` saying what it waited for. */
async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A server-sent event stream read as it arrives. */
function sseStream(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  const more = async (): Promise<boolean> => {
    try {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += value;
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop()!;
      for (const block of blocks) events.push(...parseSse(`${block}\n\n`));
      return true;
    } catch {
      return false; // the server died mid-stream
    }
  };
  return {
    events,
    text: () =>
      events.filter((e) => e.event === "text").map((e) => (e.data as { text: string }).text)
        .join(""),
    /** Reads until `predicate` holds; fails if the stream ends first. */
    async until(what: string, predicate: () => boolean): Promise<void> {
      while (!predicate()) {
        if (!(await more())) throw new Error(`the stream ended before ${what}`);
      }
    },
    /** Reads whatever arrived before the stream broke or ended. */
    async drain(): Promise<void> {
      while (await more()) { /* keep reading */ }
      await reader.cancel().catch(() => {});
    },
  };
}

async function postJson(hob: HobServer, path: string, body: unknown): Promise<Response> {
  return await hob.fetch(path, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("SIGKILL while a reply streams: earlier turns, the question and every word the client was shown survive, and the conversation goes on", async () => {
  const words = Array.from({ length: 2_000 }, (_, i) => `word${i} `);
  await using fake = startFakeOpenAI({
    replies: [
      { text: "First answer." },
      { text: "Second answer." },
      { text: words, delay_ms: 10 },
      { text: "Back again." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));

  let conversationId = "";
  let committed = "";
  let seen = "";
  {
    await using hob = await startHob(home.home);
    for (const message of ["One", "Two"]) {
      const reply = await (await postJson(hob, "/api/chat", {
        message,
        ...(conversationId ? { conversation_id: conversationId } : {}),
      })).json();
      assertEquals(reply.status, "complete");
      conversationId = reply.conversation_id;
    }
    const stream = sseStream(
      await hob.fetch("/api/chat", {
        method: "POST",
        headers: SSE_HEADERS,
        body: JSON.stringify({ message: "Three, at length", conversation_id: conversationId }),
      }),
    );
    await stream.until("20 words of text", () => stream.text().split(" ").length > 20);
    // Wait until the database holds part of the reply (saved every 250 ms).
    committed = await waitFor("a save of the reply", () => {
      const reply = messagesOf(home.home, conversationId).at(-1)!;
      return reply.role === "assistant" && reply.content.split(" ").length > 20 && reply.content;
    });
    await hob.stop("SIGKILL");
    await stream.drain();
    seen = stream.text();
  }

  assertEquals(integrity(home.home), "ok");
  const rows = messagesOf(home.home, conversationId);
  assertEquals(rows.map((r) => [r.role, r.status]), [
    ["user", "complete"],
    ["assistant", "complete"],
    ["user", "complete"],
    ["assistant", "complete"],
    ["user", "complete"],
    ["assistant", "streaming"],
  ]);
  assertEquals(rows.map((r) => r.content).slice(0, 5), [
    "One",
    "First answer.",
    "Two",
    "Second answer.",
    "Three, at length",
  ]);
  const saved = rows[5].content;
  // Nothing committed was lost, and the client was shown nothing that was not saved first.
  assert(saved.startsWith(committed), `lost committed text: ${saved.length} < ${committed.length}`);
  assert(
    saved.startsWith(seen),
    `the client was shown ${seen.length - saved.length} characters more than were saved`,
  );
  assert(words.join("").startsWith(saved), "the saved reply is the model's");
  assert(saved.length < words.join("").length, "the reply was cut off");

  await using again = await startHob(home.home);
  const listed = await (await again.fetch(`/api/conversations/${conversationId}/messages`)).json();
  assertEquals(listed.messages[5].status, "interrupted");
  assertEquals(listed.messages[5].content, saved);
  const next = await (await postJson(again, "/api/chat", {
    message: "Four",
    conversation_id: conversationId,
  })).json();
  assertEquals([next.status, next.content], ["complete", "Back again."]);
  // The model was shown the cut-off reply, marked as such.
  const shown = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
  assertMatch(shown.at(-2)!.content, /^word0 word1 [\s\S]*\[reply interrupted\]$/);
  assertEquals(messagesOf(home.home, conversationId).length, 8);
});

const SLOW_TOOL = `export default {
  name: "slow_step",
  description: "Notes that it started, then works for two minutes.",
  side_effect: "local",
  permissions: { write: ["$WORKSPACE"] },
  timeout_ms: 120000,
  parameters: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
  async run(args, context) {
    await Deno.writeTextFile(context.workspace + "/started-" + args.label, "");
    await new Promise((resolve) => setTimeout(resolve, 120000));
    return "finished " + args.label;
  },
};
`;

Deno.test("SIGKILL while a tool runs: the call is committed and the conversation works after a restart", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ id: "call_slow", name: "slow_step", arguments: { label: "one" } }] },
      { text: "Picked up after the crash." },
    ],
  });
  await using home = await tempHome(
    fakeProviderYaml(fake.url, `${QUIET}\ntools: { policies: { slow_step: allow } }`),
  );
  await Deno.writeTextFile(`${home.home}/tools/slow_step.ts`, SLOW_TOOL);
  const started = `${home.home}/workspace/started-one`;

  let conversationId = "";
  {
    await using hob = await startHob(home.home);
    const stream = sseStream(
      await hob.fetch("/api/chat", {
        method: "POST",
        headers: SSE_HEADERS,
        body: JSON.stringify({ message: "Do the slow step" }),
      }),
    );
    await stream.until("the tool call", () => stream.events.some((e) => e.event === "tool_call"));
    conversationId = (stream.events[0].data as { conversation_id: string }).conversation_id;
    // The tool itself says it is running.
    await waitFor("the tool to start", () => Deno.stat(started).then(() => true, () => false));
    await hob.stop("SIGKILL");
    await stream.drain();
    assertEquals(stream.events.some((e) => e.event === "tool_result"), false);
  }

  assertEquals(integrity(home.home), "ok");
  const rows = messagesOf(home.home, conversationId);
  assertEquals(rows.map((r) => [r.role, r.status]), [["user", "complete"], [
    "assistant",
    "complete",
  ]]);
  assertEquals(
    JSON.parse(rows[1].tool_calls!).map((c: { id: string; name: string }) => [c.id, c.name]),
    [["call_slow", "slow_step"]],
  );

  await using again = await startHob(home.home);
  const reply = await (await postJson(again, "/api/chat", {
    message: "Are you still there?",
    conversation_id: conversationId,
  })).json();
  assertEquals([reply.status, reply.content], ["complete", "Picked up after the crash."]);
  // History repair gave the dangling call a result, so the provider accepted the history.
  const shown = fake.requests.at(-1)!.body.messages as {
    role: string;
    content: string;
    tool_call_id?: string;
    tool_calls?: { id: string }[];
  }[];
  const call = shown.findIndex((m) => m.tool_calls?.[0]?.id === "call_slow");
  assert(call > 0, "the tool call is in the history");
  assertEquals(
    [shown[call + 1].role, shown[call + 1].tool_call_id, shown[call + 1].content],
    ["tool", "call_slow", MISSING_TOOL_RESULT],
  );
  assertEquals(shown.at(-1), { role: "user", content: "Are you still there?" });
  assertEquals(messagesOf(home.home, conversationId).map((r) => r.role), [
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
});

/** A whole memory file, large enough that writing it takes a while; its marker word is unique. */
function version(name: string, n: number): string {
  const lines = Array.from(
    { length: 5_000 },
    (_, i) => `- ${name} v${n} line ${i}: the quick brown fox jumps over the lazy dog`,
  );
  return `# ${name} version ${n}\n\nmarker${name}v${n}x\n\n${lines.join("\n")}\n`;
}

function fact(n: number): string {
  return `fact ${n}: ${"remember this for later ".repeat(80).trim()}`;
}

Deno.test("SIGKILL while memory is written: every file is whole, no acknowledged write is lost, the index agrees", async () => {
  await using home = await tempHome(fakeProviderYaml("http://127.0.0.1:9/v1", QUIET));
  const memoryDir = `${home.home}/memory`;
  const template = await Deno.readTextFile(`${memoryDir}/MEMORY.md`);
  const files = ["alpha", "bravo"];
  const sent = new Map<string, number>(files.map((f) => [f, 0]));
  const acked = new Map<string, number>(files.map((f) => [f, 0]));
  const factsSent = new Set<number>();
  const factsAcked = new Set<number>();

  {
    await using hob = await startHob(home.home);
    let stop = false;
    const putLoop = async (name: string) => {
      for (let n = 1; !stop; n++) {
        sent.set(name, n);
        const response = await hob.fetch(`/api/memory/files/${name}.md`, {
          method: "PUT",
          headers: JSON_HEADERS,
          body: JSON.stringify({ content: version(name, n) }),
        }).catch(() => null);
        if (!response) return;
        assertEquals(response.status, 200, await response.text());
        acked.set(name, n);
      }
    };
    let nextFact = 1;
    const rememberLoop = async () => {
      while (!stop) {
        const n = nextFact++;
        factsSent.add(n);
        const response = await postJson(hob, "/api/memory/remember", { text: fact(n) })
          .catch(() => null);
        if (!response) return;
        assertEquals(response.status, 201, await response.text());
        factsAcked.add(n);
      }
    };
    const loops = [...files.map(putLoop), rememberLoop(), rememberLoop()];
    // Kill while every writer is busy, after each has had a few writes acknowledged.
    await waitFor(
      "three acknowledged writes from each writer",
      () => [...acked.values()].every((n) => n >= 3) && factsAcked.size >= 6,
      60_000,
    );
    await hob.stop("SIGKILL");
    stop = true;
    await Promise.all(loops);
  }

  // Each file is one whole version: the last acknowledged one or one sent after it.
  for (const name of files) {
    const text = await Deno.readTextFile(`${memoryDir}/${name}.md`);
    const n = Number(/^# \w+ version (\d+)\n/.exec(text)?.[1]);
    assert(n >= acked.get(name)! && n <= sent.get(name)!, `${name}.md holds version ${n}`);
    assert(text === version(name, n), `${name}.md is not whole (${text.length} characters)`);
  }
  // MEMORY.md: the template plus whole entries, every acknowledged one among them.
  const memory = await Deno.readTextFile(`${memoryDir}/MEMORY.md`);
  const entries = [...memory.matchAll(/^- \[[^\]]+\] (fact (\d+): .*)$/gm)];
  for (const [, text, n] of entries) {
    assert(factsSent.has(Number(n)), `fact ${n} was never sent`);
    assertEquals(text, fact(Number(n)));
  }
  const present = new Set(entries.map((e) => Number(e[2])));
  for (const n of factsAcked) assert(present.has(n), `acknowledged fact ${n} is lost`);
  assertEquals(
    memory.replace(/^- \[[^\]]+\] fact \d+: .*\n/gm, "").replace(/\n{3,}/g, "\n\n"),
    template,
  );
  // Half-written temporary files may remain, but hidden: memory is only the Markdown files.
  assertEquals(await listMarkdown(memoryDir), ["MEMORY.md", "alpha.md", "bravo.md"]);

  await using again = await startHob(home.home);
  const listed = await (await again.fetch("/api/memory/files")).json();
  assertEquals(listed.files, ["MEMORY.md", "alpha.md", "bravo.md"]);
  await (await again.fetch("/api/memory/stats")).body?.cancel(); // the index has caught up
  const indexed = readDb(
    home.home,
    (db) =>
      db.prepare("SELECT path, hash FROM memory_files ORDER BY path").all()
        .map((r) => ({ ...r }) as { path: string; hash: string }),
  );
  assertEquals(indexed.map((r) => r.path), ["MEMORY.md", "alpha.md", "bravo.md"]);
  for (const row of indexed) {
    assertEquals(row.hash, await sha256(await Deno.readTextFile(`${memoryDir}/${row.path}`)));
  }
  for (const name of files) {
    const text = await Deno.readTextFile(`${memoryDir}/${name}.md`);
    const marker = /^marker\w+x$/m.exec(text)![0];
    const { hits } = await (await again.fetch(`/api/memory/search?q=${marker}&mode=keyword`))
      .json();
    assertEquals(hits[0]?.path, `${name}.md`, `search for ${marker}`);
  }
  // The next write sweeps what a killed writer left behind.
  assertEquals(
    (await postJson(again, "/api/memory/remember", { text: "after the crash" })).status,
    201,
  );
  const leftovers = [...Deno.readDirSync(memoryDir)].filter((e) => e.name.endsWith(".tmp"));
  assertEquals(leftovers.map((e) => e.name), []);
  assertEquals(integrity(home.home), "ok");
});

Deno.test("a memory writer killed at the moment it starts writing a large file leaves the old file whole", async () => {
  // The API caps a file at 1 MB, written in a blink; a big file written by a real process
  // makes the kill land inside the write every time, so a non-atomic write cannot pass.
  const dir = await Deno.makeTempDir({ prefix: "hob-memory-kill-" });
  try {
    const module = new URL("../../src/memory/files.ts", import.meta.url).href;
    const script = `import { MemoryFiles } from "${module}";
      const files = new MemoryFiles({ dir: Deno.args[0], now: () => new Date() });
      await files.replace("big.md", "# new\\n" + "new content line\\n".repeat(4_000_000), { author: "owner", via: "test" });`;
    const old = `# old\n${"old content line\n".repeat(100_000)}`;
    for (let round = 1; round <= 3; round++) {
      await Deno.writeTextFile(`${dir}/big.md`, old);
      await Deno.writeTextFile(`${dir}/.write.lock`, "");
      const watcher = Deno.watchFs(dir);
      const child = await spawnHobCode(script, { args: [dir], stdout: "null", stderr: "null" });
      // The first change in the directory (a new file, or big.md itself): kill at once.
      for await (const event of watcher) {
        if (!["create", "modify"].includes(event.kind)) continue;
        if (event.paths.every((path) => path.endsWith(".write.lock"))) continue;
        child.kill("SIGKILL");
        break;
      }
      watcher.close();
      const status = await child.status;
      assertEquals(status.signal, "SIGKILL", `round ${round}: the writer finished before the kill`);
      const text = await Deno.readTextFile(`${dir}/big.md`);
      assert(text === old, `round ${round}: big.md is not whole (${text.length} characters)`);
      assertEquals(await listMarkdown(dir), ["big.md"]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGKILL while jobs run: the runs are marked interrupted, run_once runs again once, skip does not", async () => {
  const calls = new Map<string, number>();
  await using fake = startFakeOpenAI({
    respond(body) {
      const last = (body.messages as { role: string; content: string }[]).at(-1)!.content;
      const job = /Slow job (\w+)/.exec(last)?.[1] ?? "other";
      calls.set(job, (calls.get(job) ?? 0) + 1);
      // Each job's first run streams for a long time (it is killed); later runs answer at once.
      return calls.get(job) === 1
        ? { text: Array.from({ length: 3_000 }, (_, i) => `w${i} `), delay_ms: 20 }
        : { text: `done ${job}` };
    },
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));

  const runsOf = (job: number) =>
    readDb(home.home, (db) =>
      db.prepare(
        "SELECT id, trigger, status, error, result FROM job_runs WHERE job_id = ? ORDER BY id",
      ).all(job).map((r) =>
        ({ ...r }) as {
          id: number;
          trigger: string;
          status: string;
          error: string | null;
          result: string;
        }
      ));
  const ids: Record<string, number> = {};
  const killed: Record<string, number> = {};
  {
    await using hob = await startHob(home.home);
    await (await hob.fetch("/api/schedules")).body?.cancel(); // warm: the once: time below is near
    // A one-off job due in a moment (run_once, the default), and a recurring one that skips.
    // A moment is longer on a busy machine: a time already past when the request lands is
    // refused (400), and the job is asked for again further ahead.
    const soon = (ms: number) => `once:${new Date(Date.now() + ms).toISOString()}`;
    for (
      const job of [
        { name: "again", schedule: (ms: number) => soon(ms) },
        { name: "later", schedule: () => "every 2s", missed_policy: "skip" },
      ]
    ) {
      for (const ms of [2_500, 10_000, 30_000]) {
        const response = await postJson(hob, "/api/schedules", {
          ...job,
          schedule: job.schedule(ms),
          prompt: `Slow job ${job.name}`,
        });
        const text = await response.text();
        if (response.status === 400 && /in the past/.test(text)) continue;
        assertEquals(response.status, 201, text);
        ids[job.name] = JSON.parse(text).id;
        break;
      }
      assert(ids[job.name], `job '${job.name}' was made`);
    }
    // Both runs are under way: the run log says so and the model is streaming to each.
    for (const name of ["again", "later"]) {
      killed[name] = await waitFor(
        `job '${name}' to run`,
        () => calls.get(name) === 1 && runsOf(ids[name]).find((r) => r.status === "running")?.id,
      );
    }
    await waitFor("both replies to stream", () =>
      readDb(home.home, (db) =>
        db.prepare(
          "SELECT COUNT(*) AS n FROM messages WHERE status = 'streaming' AND content != ''",
        ).get() as { n: number }).n === 2);
    await hob.stop("SIGKILL");
  }

  assertEquals(integrity(home.home), "ok");
  for (const name of ["again", "later"]) {
    assertEquals(runsOf(ids[name]).find((r) => r.id === killed[name])?.status, "running");
  }

  {
    await using hob = await startHob(home.home);
    await waitFor(
      "the catch-up run of 'again'",
      () => runsOf(ids.again).some((r) => r.trigger === "catch_up" && r.status === "ok"),
    );
    assertMatch(hob.stderr(), /Job 'again' was cut off by an earlier crash; running it once now/);
    assertMatch(hob.stderr(), /Job 'later' was cut off by an earlier crash.*; skipped/);
    assertEquals(await hob.stop("SIGTERM"), 0);
  }

  assertEquals(integrity(home.home), "ok");
  for (const name of ["again", "later"]) {
    const run = runsOf(ids[name]).find((r) => r.id === killed[name])!;
    assertEquals([run.status, run.error], ["interrupted", "hob stopped during the run"]);
  }
  const again = runsOf(ids.again);
  assertEquals(again.map((r) => [r.trigger, r.status]), [["schedule", "interrupted"], [
    "catch_up",
    "ok",
  ]]);
  assertEquals(again[1].result, "done again");
  const later = runsOf(ids.later);
  assertEquals(later.filter((r) => r.trigger === "catch_up"), []);
  assertEquals(later.filter((r) => r.status === "running"), []);
  // The replies the jobs were streaming are kept, marked interrupted.
  const streaming = readDb(
    home.home,
    (db) =>
      db.prepare(
        "SELECT status, COUNT(*) AS n FROM messages WHERE role = 'assistant' AND content LIKE 'w0 %' GROUP BY status",
      )
        .all().map((r) => ({ ...r })),
  );
  assertEquals(streaming, [{ status: "interrupted", n: 2 }]);
  assertEquals(calls.get("again"), 2);
});

/** Runs a system command (mount, umount, chmod); whether it succeeded. */
async function system(command: string, ...args: string[]): Promise<boolean> {
  const output = await new Deno.Command(command, { args, stdout: "null", stderr: "null" })
    .output().catch(() => null);
  return output?.success ?? false;
}

/** A small tmpfs on a new directory, or null where mounting is not allowed (not root). */
async function smallDisk(sizeKb: number): Promise<({ dir: string } & AsyncDisposable) | null> {
  const dir = await Deno.makeTempDir({ prefix: "hob-disk-" });
  if (
    Deno.uid() !== 0 ||
    !(await system("mount", "-t", "tmpfs", "-o", `size=${sizeKb}k`, "tmpfs", dir))
  ) {
    await Deno.remove(dir);
    return null;
  }
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await system("umount", dir);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Makes `dir` read-only: a read-only bind mount as root (chmod does not stop root), else chmod. */
async function readOnly(dir: string): Promise<({ how: string } & AsyncDisposable) | null> {
  if (Deno.uid() !== 0) {
    if (!(await system("chmod", "-R", "a-w", dir))) return null;
    return {
      how: "chmod -R a-w",
      async [Symbol.asyncDispose]() {
        await system("chmod", "-R", "u+w", dir);
      },
    };
  }
  if (!(await system("mount", "--bind", dir, dir))) return null;
  if (!(await system("mount", "-o", "remount,bind,ro", dir))) {
    await system("umount", dir);
    return null;
  }
  return {
    how: "a read-only bind mount",
    async [Symbol.asyncDispose]() {
      await system("umount", dir);
    },
  };
}

/** Fills the file system holding `dir` to the last byte; returns the filler to delete. */
async function fillDisk(dir: string): Promise<string> {
  const path = `${dir}/filler`;
  const file = await Deno.open(path, { write: true, create: true, append: true });
  try {
    for (let size = 1 << 20; size >= 1;) {
      await file.write(new Uint8Array(size)).catch(() => size >>= 1);
    }
  } finally {
    file.close();
  }
  return path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Fails unless `stderr` is exactly one line, `hob: cannot write to HOME: …`, with no stack trace. */
function assertOneLine(stderr: string, home: string, problem: RegExp): void {
  assertEquals(stderr.split("\n").filter(Boolean).length, 1, stderr);
  assertMatch(stderr, new RegExp(`^hob: cannot write to ${escapeRegExp(home)}: ${problem.source}`));
}

Deno.test("a read-only home: hob serve and hob ask say so in one line and exit 1; hob.db stays whole", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  {
    // A home that has been used: hob.db and a conversation in it.
    const runtime = await openRuntime({ home: home.home, env: {} });
    runtime.conversations.createConversation({ title: "Before" });
    await runtime.close();
  }
  {
    await using locked = await readOnly(home.home);
    if (!locked) {
      console.log("  skipped: cannot make a directory read-only here (bind mounts need root)");
      return;
    }
    console.log(`  read-only by ${locked.how}`);
    for (const args of [["ask", "hello"], ["serve", "--port", "0"]]) {
      const result = await runHob([...args, "--home", home.home], { timeoutMs: 30_000 });
      assertEquals(result.code, 1, `hob ${args[0]}: ${result.stderr}`);
      assertOneLine(result.stderr, home.home, /(it is read-only|permission denied) — /);
    }
  }
  assertEquals(integrity(home.home), "ok");
  const ask = await runHob(["ask", "hello", "--home", home.home]);
  assertEquals([ask.code, ask.stdout.trim()], [0, "ok"], ask.stderr);
});

Deno.test("a full disk: the API answers 507 storage_full, the CLI says so in one line, and hob goes on once there is room", async () => {
  await using disk = await smallDisk(8 * 1024);
  if (!disk) {
    console.log("  skipped: mounting a small tmpfs needs root");
    return;
  }
  await using fake = startFakeOpenAI();
  const home = `${disk.dir}/home`;
  await Deno.mkdir(home, { mode: 0o700 });
  // One task worker, to see it wait out the full disk rather than stop for good.
  await Deno.writeTextFile(
    `${home}/hob.yaml`,
    fakeProviderYaml(fake.url, "heartbeat: { enabled: false }\nmemory: { embedder: none }"),
  );
  const big = "a very long message ".repeat(20_000); // 400 KB: more than any free space in the WAL
  {
    await using hob = await startHob(home);
    const first = await (await postJson(hob, "/api/chat", { message: "Before the disk fills" }))
      .json();
    assertEquals(first.status, "complete");

    const filler = await fillDisk(disk.dir);
    for (
      const [method, path, body] of [
        ["POST", "/api/chat", { message: big }],
        ["PUT", "/api/memory/files/big.md", { content: big }],
        ["POST", "/api/memory/remember", { text: "A fact for a full disk" }],
      ] as const
    ) {
      const response = await hob.fetch(path, {
        method,
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
      });
      assertEquals(response.status, 507, `${method} ${path}`);
      const { error } = await response.json();
      assertEquals(error.code, "storage_full");
      assertMatch(error.message, /the disk is full/);
    }
    // Reading still works, and so does a second process, saying what is wrong.
    assertEquals((await hob.fetch("/api/conversations")).status, 200);
    const ask = await runHob(["ask", "--home", home], { stdin: big, timeoutMs: 60_000 });
    assertEquals(ask.code, 1, ask.stderr);
    assertOneLine(ask.stderr, home, /the disk is full — /);
    assertStringIncludes(hob.stderr(), "the disk is full");

    await waitFor("the task worker to notice", () => hob.stderr().includes("a task worker waits"));

    await Deno.remove(filler);
    assertEquals((await postJson(hob, "/api/memory/remember", { text: "Room again" })).status, 201);
    const task = await (await postJson(hob, "/api/tasks", { title: "After the disk filled" }))
      .json();
    await waitFor("the task worker to run a task again", async () => {
      const { status } = await (await hob.fetch(`/api/tasks/${task.id}`)).json();
      return ["complete", "failed"].includes(status);
    });
    const after = await (await postJson(hob, "/api/chat", { message: "After" })).json();
    assertEquals(after.status, "complete");
    assertEquals(await hob.stop("SIGTERM"), 0);
  }
  assertEquals(integrity(home), "ok");

  // Starting on a full disk.
  const filler = await fillDisk(disk.dir);
  for (const args of [["serve", "--port", "0"], ["ask", "hello"]]) {
    const result = await runHob([...args, "--home", home], { timeoutMs: 30_000 });
    assertEquals(result.code, 1, `hob ${args[0]}: ${result.stderr}`);
    assertOneLine(result.stderr, home, /the disk is full — /);
  }
  await Deno.remove(filler);
  assertEquals(integrity(home), "ok");
  const titles = readDb(
    home,
    (db) =>
      db.prepare("SELECT title FROM conversations ORDER BY created_at").all().map((r) => r.title),
  );
  assert(titles.includes("Before the disk fills") && titles.includes("After"), String(titles));
});
