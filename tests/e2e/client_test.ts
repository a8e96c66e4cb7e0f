/**
 * The client module as scripts meet it: `GET /client.ts` from a real `hob serve`, the examples run
 * as subprocesses under exactly `--allow-net` and `--allow-import` for hob's address (and stopped
 * by Deno with less), and every call of the client, imported from its file, against hob serve.
 */

import type { AgentEvent, Conversation, StoredMessage } from "../../src/core/types.ts";
import type { TurnReply } from "../../src/core/reply.ts";
import type { IndexStats, MemoryHit } from "../../src/memory/search_index.ts";
import type { MemoryExcerpt } from "../../src/memory/memory.ts";
import type { JobRun, JobView } from "../../src/store/jobs.ts";
import type { Task } from "../../src/store/tasks.ts";
import type { Approval } from "../../src/store/approvals.ts";
import type { Notification } from "../../src/store/notifications.ts";
import type { InvokeResult, ToolInfo } from "../../src/tools/registry.ts";
import type { HobStatus } from "../../src/app/status.ts";
import type { UsageReport } from "../../src/app/usage.ts";
import type { DiscoveryReport } from "../../src/llm/router.ts";
import * as client from "../../src/page/client.ts";
import { CLIENT_CONTENT_TYPE } from "../../src/page/assets.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";
import { tempApi } from "../helpers/api.ts";

/**
 * Never called: type-checking it is the test. What hob sends must fit the client's copies of its
 * types, so `deno task check` fails, naming the field, when the two drift.
 */
function _serverTypesFitTheClient(server: {
  event: AgentEvent;
  reply: TurnReply;
  conversation: Conversation;
  message: StoredMessage;
  hit: MemoryHit;
  excerpt: MemoryExcerpt;
  stats: IndexStats;
  schedule: JobView;
  run: JobRun;
  task: Task;
  tool: ToolInfo;
  result: InvokeResult;
  approval: Approval;
  notification: Notification;
  status: HobStatus;
  models: DiscoveryReport & { default: string; advice: string | null };
  usage: UsageReport;
}): void {
  const fits: {
    event: client.ChatEvent;
    reply: client.ChatReply;
    conversation: client.Conversation;
    message: client.Message;
    hit: client.MemoryHit;
    excerpt: client.MemoryExcerpt;
    stats: client.MemoryStats;
    schedule: client.Schedule;
    run: client.ScheduleRun;
    task: client.Task;
    tool: client.ToolInfo;
    result: client.ToolResult;
    approval: client.Approval;
    notification: client.Notification;
    status: client.Status;
    models: client.Models;
    usage: client.UsageReport;
  } = server;
  void fits;
}

const EXAMPLES = new URL("../../examples/", import.meta.url);
const QUIET = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }";

/** What a finished script printed. */
interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The examples copied into a temporary directory with hob's test address in place of
 * 127.0.0.1:8484, run by a Deno with its own empty cache and no access to the tester's
 * environment.
 */
async function examplesFor(hob: HobServer) {
  const host = new URL(hob.url).host;
  const dir = await Deno.makeTempDir({ prefix: "hob-examples-" });
  for await (const entry of Deno.readDir(EXAMPLES)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, EXAMPLES));
    assertStringIncludes(source, `"http://127.0.0.1:8484/client.ts"`, entry.name);
    await Deno.writeTextFile(`${dir}/${entry.name}`, source.replaceAll("127.0.0.1:8484", host));
  }
  const granted = [`--allow-net=${host}`, `--allow-import=${host}`];
  async function run(
    script: string,
    args: string[],
    options: { flags?: string[]; env?: Record<string, string> } = {},
  ): Promise<ScriptResult> {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...(options.flags ?? granted), `${dir}/${script}`, ...args],
      cwd: dir,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? dir,
        NO_COLOR: "1",
        DENO_DIR: `${dir}/.deno_dir`,
        DENO_NO_UPDATE_CHECK: "1",
        ...options.env,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  }
  return {
    host,
    granted,
    run,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("GET /client.ts serves the client module without a token, as TypeScript, with an ETag", async () => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(fakeProviderYaml(fake.url, QUIET));
  const response = await api.call("/client.ts", { auth: false });
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), CLIENT_CONTENT_TYPE);
  const body = await response.text();
  assertEquals(body, await Deno.readTextFile(new URL("../../src/page/client.ts", import.meta.url)));
  // Dependency-free: a script's sandbox lets it import this one file and nothing else.
  assert(!/^\s*import\s/m.test(body), "the client module imports something");
  const etag = response.headers.get("etag")!;
  assertMatch(etag, /^"[0-9a-f]{16}"$/);
  const again = await api.call("/client.ts", { auth: false, headers: { "if-none-match": etag } });
  assertEquals(again.status, 304);
});

Deno.test("the examples run under exactly --allow-net and --allow-import for hob's address", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ id: "t1", name: "get_time", arguments: { timezone: "Asia/Tokyo" } }] },
      { text: "It is evening in Tokyo." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  await using hob = await startHob(home.home);
  await using examples = await examplesFor(hob);
  const token = ["--token", hob.token];

  await t.step("ask.ts streams the reply to stdout and tool activity to stderr", async () => {
    const result = await examples.run("ask.ts", [...token, "What time is it in Tokyo?"]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout, "It is evening in Tokyo.\n");
    assertStringIncludes(result.stderr, `[get_time {"timezone":"Asia/Tokyo"}]`);
    assertMatch(result.stderr, /\[get_time done, \d+ ms\]/);
    const id = /\(conversation (\S+), complete\)/.exec(result.stderr)![1];
    const { messages } = await (await hob.fetch(`/api/conversations/${id}/messages`)).json();
    assertEquals(messages.map((m: { role: string }) => m.role), [
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
  });

  await t.step("remember.ts writes a memory and finds it", async () => {
    const result = await examples.run("remember.ts", [
      ...token,
      "The boiler service is due in March.",
      "boiler service",
    ]);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "Remembered in memory/MEMORY.md.");
    assertMatch(result.stdout, /^MEMORY\.md:\d+-\d+ .*The boiler service is due in March\./m);
    assertStringIncludes(
      await Deno.readTextFile(`${home.home}/memory/MEMORY.md`),
      "The boiler service is due in March.",
    );
  });

  await t.step("daily_digest.ts lists tasks and schedules, and adds its own schedule", async () => {
    const post = (path: string, body: unknown) =>
      hob.fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const task = await post("/api/tasks", { title: "Tidy my notes" });
    await post("/api/schedules", { name: "standup", prompt: "Plan my day", schedule: "0 9 * * *" });

    const digest = await examples.run("daily_digest.ts", token);
    assertEquals(digest.code, 0, digest.stderr);
    assertStringIncludes(digest.stdout, `hob `);
    assertStringIncludes(digest.stdout, `#${task.id} [pending] Tidy my notes`);
    assertMatch(digest.stdout, /standup: 0 9 \* \* \* — next \d{4}-/);
    assertStringIncludes(digest.stdout, "Waiting for your approval (0)");

    const added = await examples.run("daily_digest.ts", [...token, "--add", "0 18 * * *"]);
    assertEquals(added.code, 0, added.stderr);
    assertStringIncludes(added.stdout, "Scheduled daily-digest (0 18 * * *");
    const again = await examples.run("daily_digest.ts", [...token, "--add", "every 1d"]);
    assertStringIncludes(again.stdout, "Rescheduled daily-digest (every 1d");
    const { schedules } = await (await hob.fetch("/api/schedules")).json();
    assertEquals(
      schedules.map((job: { name: string; schedule: string }) => [job.name, job.schedule]).sort(),
      [["daily-digest", "every 1d"], ["standup", "0 9 * * *"]],
    );
  });

  await t.step(
    "the token comes from --token, or from HOB_TOKEN only with --allow-env",
    async () => {
      const env = { HOB_TOKEN: hob.token };
      const denied = await examples.run("remember.ts", ["Not saved without a token."], { env });
      assertEquals(denied.code, 1);
      assertStringIncludes(denied.stderr, "no token was given");
      assertStringIncludes(denied.stderr, "--allow-env=HOB_TOKEN");

      const flags = [...examples.granted, "--allow-env=HOB_TOKEN"];
      const allowed = await examples.run("remember.ts", ["Saved with HOB_TOKEN."], { env, flags });
      assertEquals(allowed.code, 0, allowed.stderr);
      const memory = await Deno.readTextFile(`${home.home}/memory/MEMORY.md`);
      assertStringIncludes(memory, "Saved with HOB_TOKEN.");
      assert(!memory.includes("Not saved without a token."));
    },
  );
});

Deno.test("a script given less permission is stopped by Deno", async (t) => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  await using hob = await startHob(home.home);
  await using examples = await examplesFor(hob);
  const token = ["--token", hob.token];
  const memory = () => Deno.readTextFile(`${home.home}/memory/MEMORY.md`);

  await t.step("without --allow-import it cannot load the client", async () => {
    const result = await examples.run("remember.ts", [...token, "Imported anyway."], {
      flags: [`--allow-net=${examples.host}`],
    });
    assert(result.code !== 0);
    assertStringIncludes(result.stderr, `Requires import access to "${examples.host}"`);
    assert(!(await memory()).includes("Imported anyway."));
  });

  await t.step("without --allow-net it loads the client but cannot call hob", async () => {
    const result = await examples.run("remember.ts", [...token, "Sent anyway."], {
      flags: [`--allow-import=${examples.host}`],
    });
    assert(result.code !== 0);
    assertStringIncludes(result.stderr, "NotCapable");
    assertStringIncludes(result.stderr, `Requires net access to "${examples.host}"`);
    assert(!(await memory()).includes("Sent anyway."));
  });

  await t.step("with network access to another address only, it cannot call hob", async () => {
    const result = await examples.run("ask.ts", [...token, "hello"], {
      flags: ["--allow-net=127.0.0.1:9", `--allow-import=${examples.host}`],
    });
    assert(result.code !== 0);
    assertStringIncludes(result.stderr, `Requires net access to "${examples.host}"`);
    assertEquals(fake.requests.length, 0);
  });
});

Deno.test("connect talks to hob serve: streamed and whole replies, every area, HobError", async (t) => {
  const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
  await using fake = startFakeOpenAI({ fallback: { text: "Hello from the fake." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, QUIET));
  await using server = await startHob(home.home);
  const url = server.url;
  const hob = client.connect({ url, token: server.token });

  await t.step("chatStream yields start, text, then done", async () => {
    const events: client.ChatEvent[] = [];
    for await (const event of hob.chatStream("hi")) events.push(event);
    const types = events.map((e) => e.type).filter((type) => type !== "title");
    assertEquals(types[0], "start");
    assertEquals(types.at(-1), "done");
    assert(types.includes("text"));
    const text = events.map((e) => e.type === "text" ? e.text : "").join("");
    assertEquals(text, "Hello from the fake.");
  });

  await t.step("chat returns the whole reply, and continues a conversation", async () => {
    const first = await hob.chat("one");
    assertEquals(first.content, "Hello from the fake.");
    assertEquals(first.status, "complete");
    const second = await hob.chat("two", { conversation_id: first.conversation_id });
    assertEquals(second.conversation_id, first.conversation_id);
    const messages = await hob.conversations.messages(first.conversation_id);
    assertEquals(messages.map((m) => m.content), [
      "one",
      "Hello from the fake.",
      "two",
      second.content,
    ]);
  });

  await t.step("leaving chatStream early stops the turn and keeps what was written", async () => {
    fake.enqueue({ text: words, delay_ms: 5 });
    let conversation = "";
    let shown = "";
    for await (const event of hob.chatStream("a long one")) {
      if (event.type === "start") conversation = event.conversation_id;
      // Ten words shown: text comes in batches, each saved before it is sent.
      if (event.type === "text" && (shown += event.text).split(" ").length > 10) break;
    }
    let reply: client.Message | undefined;
    for (let i = 0; i < 50 && reply?.status !== "interrupted"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = (await hob.conversations.messages(conversation))[1];
    }
    assertEquals(reply?.status, "interrupted");
    assert(reply!.content.startsWith("w0 w1 "));
  });

  await t.step("conversations", async () => {
    const created = await hob.conversations.create({ title: "Plans" });
    assertEquals(created.message_count, 0);
    assertEquals((await hob.conversations.rename(created.id, "Trip plans")).title, "Trip plans");
    assertEquals((await hob.conversations.get(created.id)).title, "Trip plans");
    const found = await hob.conversations.list({ q: "Trip" });
    assertEquals(found.map((c) => c.id), [created.id]);
    await hob.conversations.delete(created.id);
    assertEquals(await hob.conversations.list({ q: "Trip" }), []);
  });

  await t.step("memory", async () => {
    assertEquals(await hob.memory.remember("The spare key is under the blue pot."), "MEMORY.md");
    const hits = await hob.memory.search("spare key");
    assertStringIncludes(hits[0].text, "under the blue pot");
    await hob.memory.write("notes/garden.md", "# Garden\n\nPlant tulips in October.\n");
    assertEquals(
      (await hob.memory.read("notes/garden.md", { from: 3 })).text.trim(),
      "Plant tulips in October.",
    );
    assert((await hob.memory.files()).includes("notes/garden.md"));
    assertMatch(await hob.memory.log("Called the plumber"), /^\d{4}-\d{2}-\d{2}\.md$/);
  });

  await t.step("schedules, tasks, tools, approvals, notifications, status, health", async () => {
    const job = await hob.schedules.add({
      name: "stretch",
      prompt: "Stretch",
      schedule: "every 45m",
    });
    assertEquals((await hob.schedules.list()).map((j) => j.name), ["stretch"]);
    assertEquals((await hob.schedules.update(job.id, { enabled: false })).enabled, false);
    const run = await hob.schedules.run(job.id);
    assertEquals(run.status, "ok");
    assertEquals((await hob.schedules.runs(job.id)).map((r) => r.id), [run.id]);
    await hob.schedules.remove(job.id);
    assertEquals(await hob.schedules.list(), []);

    const task = await hob.tasks.add({ title: "Sort photos", priority: 2 });
    assertEquals((await hob.tasks.get(task.id)).status, "pending");
    assertEquals((await hob.tasks.list({ status: "pending" })).map((t) => t.id), [task.id]);
    assertEquals((await hob.tasks.cancel(task.id)).status, "cancelled");

    assert((await hob.tools.list()).some((tool) => tool.name === "get_time"));
    const time = await hob.tools.invoke("get_time", { timezone: "Asia/Tokyo" });
    assertEquals(time.is_error, false);
    assertStringIncludes(time.content, "Asia/Tokyo");

    assertEquals(await hob.approvals.list(), []);
    assertEquals(await hob.notifications.list({ unread: true }), []);
    assertEquals((await hob.status()).model.id, "fake/fake-model");
    assertEquals((await client.connect({ url }).health()).ok, true);
  });

  await t.step("an API error is a HobError with hob's status, code and field", async () => {
    const missing = await assertRejects(() => hob.tasks.get(999));
    assert(missing instanceof client.HobError);
    assertEquals([missing.status, missing.code], [404, "not_found"]);
    assertEquals(missing.message, "Task '999' does not exist");

    const bad = await assertRejects(() =>
      hob.schedules.add({ name: "x", prompt: "y", schedule: "whenever" })
    ) as client.HobError;
    assertEquals([bad.status, bad.code, bad.field], [400, "invalid_request", "schedule"]);

    const streamed = await assertRejects(async () => {
      for await (const _ of hob.chatStream("hi", { conversation_id: "nope" })) { /* none */ }
    }) as client.HobError;
    assertEquals([streamed.status, streamed.code], [404, "not_found"]);

    const wrong = await assertRejects(() =>
      client.connect({ url, token: "x".repeat(32) }).tasks.list()
    ) as client.HobError;
    assertEquals([wrong.status, wrong.code], [401, "unauthorized"]);
    const none = await assertRejects(() => client.connect({ url }).tasks.list()) as client.HobError;
    assertStringIncludes(none.message, "no token was given");

    const away = await assertRejects(() =>
      client.connect({ url: "http://127.0.0.1:9" }).health()
    ) as client.HobError;
    assertEquals([away.status, away.code], [0, "unreachable"]);
    assertStringIncludes(away.message, "is `hob serve` running?");
  });

  await t.step("takeToken and connect check their input", () => {
    assertEquals(client.takeToken(["--token", "abc", "hello", "world"]), {
      token: "abc",
      args: ["hello", "world"],
    });
    assertEquals(client.takeToken(["hi", "--token=xyz"]), { token: "xyz", args: ["hi"] });
    assertEquals(client.takeToken(["hi"]), { args: ["hi"] });
    let error: unknown;
    try {
      client.connect(); // imported from a file: no origin to default to
    } catch (e) {
      error = e;
    }
    assert(error instanceof TypeError);
    assertStringIncludes(error.message, "was not imported from hob");
  });
});
