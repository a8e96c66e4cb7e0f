/** The `hob` CLI run as a subprocess, the way a user types it. */

import { DatabaseSync } from "node:sqlite";
import manifest from "../../deno.json" with { type: "json" };
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, pathExists, tempHome } from "../helpers/home.ts";
import { HOB_FLAGS, runHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";

const COMMANDS = [
  "serve",
  "ask",
  "chat",
  "init",
  "onboard",
  "models",
  "usage",
  "config",
  "doctor",
  "cron",
  "task",
  "worker",
  "status",
  "reset",
];

Deno.test("hob --version and --help", async () => {
  const version = await runHob(["--version"]);
  assertEquals(version.code, 0);
  assertEquals(version.stdout, `hob ${manifest.version} (deno ${Deno.version.deno})\n`);

  const help = await runHob(["--help"]);
  assertEquals(help.code, 0);
  for (const command of COMMANDS) assertMatch(help.stdout, new RegExp(`\\n  ${command} `));
});

Deno.test("every command has --help", async () => {
  for (const command of COMMANDS) {
    const result = await runHob([command, "--help"]);
    assertEquals(result.code, 0, `${command}: ${result.stderr}`);
    assertMatch(result.stdout, new RegExp(`^Usage: hob ${command}`));
    assertStringIncludes(result.stdout, "--home DIR");
  }
});

Deno.test("bad usage exits 2 with one line naming the problem", async (t) => {
  await using home = await tempHome("");
  const cases: [string[], string][] = [
    [["frobnicate"], "hob: unknown command 'frobnicate' — see 'hob --help'\n"],
    [["stauts"], "hob: unknown command 'stauts' — did you mean 'hob status'?\n"],
    [["serve", "--prot", "1"], "hob serve: unknown option '--prot' — did you mean '--port'?\n"],
    [["serve", "--verbose"], "hob serve: unknown option '--verbose'\n"],
    [
      ["serve", "--port", "eighty", "--home", home.home],
      "hob serve: --port must be an integer from 0 to 65535: got 'eighty'\n",
    ],
    [["ask", "--model"], "hob ask: option '--model' needs a value\n"],
    [["models", "extra"], "hob models: unexpected argument 'extra' — see 'hob models --help'\n"],
    [
      ["config", "edit", "--home", home.home],
      "hob config: unknown action 'edit' — use 'hob config show'\n",
    ],
    [["ask", "--home", home.home], `hob ask: missing the message — hob ask "your question"\n`],
    [
      ["cron", "add", "x", "every day", "p", "--home", home.home],
      "hob cron: 'every day' is not a schedule: use 5-field cron ('0 9 * * 1-5'), 'every 10m', or 'once:2026-12-24T18:00'\n",
    ],
    [
      ["cron", "add", "x", "0 9 * * *", "p", "--timezone", "Atlantis", "--home", home.home],
      "hob cron: 'Atlantis' is not a time zone: use an IANA name such as 'Europe/Berlin'\n",
    ],
    [
      ["cron", "add", "x", "--home", home.home],
      `hob cron add: needs NAME, SCHEDULE and PROMPT — e.g. hob cron add standup "0 9 * * 1-5" "Plan my day"\n`,
    ],
    [["task", "show", "abc", "--home", home.home], "hob task show: needs a task id\n"],
    [
      ["reset", "everything", "--home", home.home],
      "hob reset: unknown part 'everything' — use memory, tasks, schedules, conversations, all\n",
    ],
  ];
  for (const [args, expected] of cases) {
    await t.step(args.join(" "), async () => {
      const result = await runHob(args);
      assertEquals(result.code, 2);
      assertEquals(result.stderr, expected);
      assertEquals(result.stdout, "");
    });
  }
});

Deno.test("hob init creates the home from the templates, with a private token", async () => {
  const parent = await Deno.makeTempDir({ prefix: "hob-init-" });
  const home = `${parent}/home`;
  try {
    const first = await runHob(["init", "--home", home]);
    assertEquals(first.code, 0, first.stderr);
    assertStringIncludes(first.stdout, `Created the hob home ${home}`);
    for (
      const file of [
        "hob.yaml",
        "identity/SOUL.md",
        "identity/USER.md",
        "identity/HEARTBEAT.md",
        "memory/MEMORY.md",
        "token",
      ]
    ) {
      assert((await Deno.stat(`${home}/${file}`)).isFile, file);
    }
    for (const dir of ["tools", "workspace", "skills", "uploads"]) {
      assert((await Deno.stat(`${home}/${dir}`)).isDirectory, dir);
    }
    assertEquals((await Deno.stat(`${home}/token`)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(home)).mode! & 0o777, 0o700);
    assertMatch(await Deno.readTextFile(`${home}/token`), /^[\w-]{40,}\n$/);
    assertStringIncludes(await Deno.readTextFile(`${home}/identity/SOUL.md`), "You are hob");

    await Deno.writeTextFile(`${home}/identity/USER.md`, "# Me\nAda");
    const token = await Deno.readTextFile(`${home}/token`);
    const second = await runHob(["init", "--home", home]);
    assertEquals(second.code, 0);
    assertStringIncludes(second.stdout, "already exists; nothing to create");
    assertEquals(await Deno.readTextFile(`${home}/identity/USER.md`), "# Me\nAda", "edits survive");
    assertEquals(await Deno.readTextFile(`${home}/token`), token);

    // A home others can read is reported; a token others can read is made private again.
    await Deno.chmod(home, 0o755);
    await Deno.chmod(`${home}/token`, 0o644);
    const doctor = await runHob(["doctor", "--json", "--home", home]);
    const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === "home");
    assertMatch(check.detail, /open to other users \(mode 755\) — chmod 700/);
    assertEquals((await Deno.stat(`${home}/token`)).mode! & 0o777, 0o600);
    assertEquals(await Deno.readTextFile(`${home}/token`), token);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("HOB_HOME picks the home when --home is absent", async () => {
  const parent = await Deno.makeTempDir({ prefix: "hob-env-home-" });
  try {
    const result = await runHob(["init", "--json"], { env: { HOB_HOME: `${parent}/h` } });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(JSON.parse(result.stdout).home, `${parent}/h`);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("hob config show prints the effective config with secrets redacted", async () => {
  await using home = await tempHome(
    "model: openrouter/some-model\nproviders:\n  corp: { type: openai, base_url: 'http://x:1/v1', api_key: sk-secret-1 }\n",
  );
  const result = await runHob(["config", "show", "--home", home.home], {
    env: { OPENROUTER_API_KEY: "sk-or-secret", HOB_PORT: "9191" },
  });
  assertEquals(result.code, 0, result.stderr);
  assertStringIncludes(result.stdout, "model: openrouter/some-model");
  assertStringIncludes(result.stdout, "port: 9191");
  assertStringIncludes(result.stdout, "api_key: <redacted>");
  // The values, not the word: `backup.with_secrets` is a key like any other.
  for (const secret of ["sk-secret-1", "sk-or-secret"]) {
    assert(!result.stdout.includes(secret), result.stdout);
  }

  const json = await runHob(["config", "show", "--json", "--home", home.home]);
  assertEquals(JSON.parse(json.stdout).providers.corp.api_key, "<redacted>");
});

Deno.test("a bad hob.yaml exits 2 with one line naming the key and the file", async () => {
  await using home = await tempHome("model: ollama/x\nserver:\n  port: [80]\n");
  for (const command of [["ask", "hi"], ["serve"], ["config", "show"], ["models"]]) {
    const result = await runHob([...command, "--home", home.home]);
    assertEquals(result.code, 2, command.join(" "));
    assertEquals(result.stderr.split("\n").length, 2, result.stderr);
    assertMatch(
      result.stderr,
      /^hob: bad config: .*hob\.yaml:3: server\.port: Invalid input: expected number, received array\n$/,
    );
  }
});

Deno.test("a hob.yaml with three problems has all three named, wherever it is read", async (t) => {
  await using home = await tempHome(
    "model: llama3\nserver:\n  port: eighty\nagent: { max_tool_iterations: 0 }\n",
  );
  const problems = [
    /hob\.yaml:1: model: expected '<provider>\/<model>'/,
    /hob\.yaml:3: server\.port: Invalid input: expected number, received string/,
    /hob\.yaml:4: agent\.max_tool_iterations: Too small: expected number to be >=1/,
  ];
  for (const command of [["serve"], ["config", "show"], ["ask", "hi"]]) {
    await t.step(`hob ${command.join(" ")}`, async () => {
      const result = await runHob([...command, "--home", home.home]);
      assertEquals(result.code, 2, result.stderr);
      const lines = result.stderr.trimEnd().split("\n");
      assertEquals(lines[0], "hob: bad config: 3 problems:");
      assertEquals(lines.length, 4, result.stderr);
      problems.forEach((problem, index) => assertMatch(lines[index + 1], problem));
    });
  }
  await t.step("hob doctor: a failed check for each", async () => {
    const result = await runHob(["doctor", "--home", home.home]);
    assertEquals(result.code, 1);
    const failed = result.stdout.split("\n").filter((line) => line.startsWith("✗ config"));
    assertEquals(failed.length, 3, result.stdout);
    problems.forEach((problem, index) => assertMatch(failed[index], problem));
  });
});

Deno.test("hob ask streams a reply, shows tool activity and continues conversations", async (t) => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url));

  await t.step("a plain answer on stdout", async () => {
    fake.enqueue({ text: "Hello from the fake." });
    const result = await runHob(["ask", "Say hello", "--home", home.home]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout, "Hello from the fake.\n");
  });
  await t.step("tool calls on stderr, the answer on stdout", async () => {
    fake.enqueue({ tool_calls: [{ name: "get_time", arguments: {} }] }, { text: "It is late." });
    const result = await runHob(["ask", "What time is it?", "--home", home.home]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout, "It is late.\n");
    assertMatch(result.stderr, /⚙ get_time \{\}\n {2}↳ .*UTC: .* \(\d+ ms\)\n/);
  });
  await t.step("--json, --model and --conversation", async () => {
    fake.enqueue({ text: "First." }, { text: "Second." });
    const first = JSON.parse((await runHob(["ask", "one", "--json", "--home", home.home])).stdout);
    assertEquals([first.content, first.status], ["First.", "complete"]);
    const second = await runHob([
      "ask",
      "two",
      "--json",
      "--model",
      "fake/other-model",
      "--conversation",
      first.conversation_id,
      "--home",
      home.home,
    ]);
    const reply = JSON.parse(second.stdout);
    assertEquals([reply.content, reply.conversation_id, reply.model], [
      "Second.",
      first.conversation_id,
      "fake/other-model",
    ]);
    const sent = fake.requests.at(-1)!.body;
    assertEquals(sent.model, "other-model");
    assertEquals((sent.messages as { content: string }[]).map((m) => m.content).slice(1), [
      "one",
      "First.",
      "two",
    ]);
  });
  await t.step("the message from stdin", async () => {
    fake.enqueue({ text: "Piped." });
    const result = await runHob(["ask", "--home", home.home], { stdin: "from a pipe\n" });
    assertEquals(result.stdout, "Piped.\n");
    const sent = fake.requests.at(-1)!.body.messages as { content: string }[];
    assertEquals(sent.at(-1)!.content, "from a pipe");
  });
  await t.step("an unknown conversation exits 1", async () => {
    const result = await runHob(["ask", "hi", "--conversation", "nope", "--home", home.home]);
    assertEquals(result.code, 1);
    assertEquals(
      result.stderr,
      "hob: Conversation 'nope' does not exist — 'hob ask' without --conversation starts a new one\n",
    );
  });
});

Deno.test("hob ask exits 1 with a readable message when the provider is down", async () => {
  await using home = await tempHome(fakeProviderYaml(`http://127.0.0.1:${closedPort()}/v1`));
  const result = await runHob(["ask", "hello?", "--home", home.home]);
  assertEquals(result.code, 1);
  assertMatch(
    result.stderr,
    /^error: provider 'fake' is not reachable at http:\/\/127\.0\.0\.1:\d+\/v1 — is the server running and the base_url right\?\n$/,
  );
});

Deno.test("hob chat runs a conversation from stdin with /new and /model", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ text: "Reply one." }, { text: "Reply two." }, { text: "Reply three." }],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const script = [
    "first message",
    "/model fake/switched",
    "/model",
    "second message",
    "/model nowhere",
    "/new",
    "third message",
    "/exit",
    "never sent",
  ].join("\n");
  const result = await runHob(["chat", "--home", home.home], { stdin: `${script}\n` });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(
    result.stdout,
    "Reply one.\nModel is now fake/switched.\nfake/switched\nReply two.\nStarted a new conversation.\nReply three.\n",
  );
  assertStringIncludes(
    result.stderr,
    "error: model 'nowhere' is not of the form '<provider>/<model>'",
  );
  const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
  assertEquals(chats.map((r) => r.body.model), ["fake-model", "switched", "switched"]);
  const lengths = chats.map((r) => (r.body.messages as unknown[]).length);
  assertEquals(lengths, [2, 4, 2], "the second continues the first; /new starts afresh");
});

Deno.test("hob chat shows a tool's outside text with its source, and the untrusted notice once", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] },
      { text: "Read them." },
      { text: "Nothing else." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await Deno.writeTextFile(`${home.home}/workspace/notes.md`, "Buy oat milk.");
  const result = await runHob(["chat", "--home", home.home], {
    stdin: "Read my notes\nAnything else?\n",
  });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.stdout, "Read them.\nNothing else.\n");
  assertMatch(result.stderr, /↳ \[from read_file: [^\]]*notes\.md\] Buy oat milk\. \(\d+ ms\)/);
  assert(!result.stderr.includes("untrusted source="), result.stderr);
  // Told on the turn that read the file; the next turn of the conversation does not repeat it.
  assertEquals(result.stderr.match(/note: This turn has read untrusted content/g)?.length, 1);
});

Deno.test("hob models lists the providers' models", async () => {
  await using fake = startFakeOpenAI({ models: ["fake-model", "bigger"] });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const json = await runHob(["models", "--json", "--home", home.home]);
  assertEquals(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  assertEquals(report.default, "fake/fake-model");
  assertEquals(
    report.models.filter((m: { provider: string }) => m.provider === "fake").map((
      m: { id: string },
    ) => m.id),
    ["fake/fake-model", "fake/bigger"],
  );
  const text = await runHob(["models", "--home", home.home]);
  assertMatch(text.stdout, /✓ fake +2 model\(s\)/);
  assertMatch(text.stdout, /\* fake\/fake-model\n/);
  assertMatch(text.stdout, /✗ openrouter +no API key — set OPENROUTER_API_KEY/);
});

Deno.test("hob doctor checks config, provider, tool calling and permissions", async (t) => {
  await t.step("everything works", async () => {
    await using fake = startFakeOpenAI({
      replies: [{ tool_calls: [{ name: "get_time", arguments: {} }] }],
    });
    await using home = await tempHome(fakeProviderYaml(fake.url));
    const result = await runHob(["doctor", "--json", "--home", home.home]);
    assertEquals(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout);
    assertEquals(report.checks.map((c: { name: string }) => c.name), [
      "home",
      "config",
      "database",
      "permissions",
      "user tools",
      "skills",
      "memory",
      "speech in",
      "speech out",
      "ffmpeg",
      "video",
      "provider",
      "model",
      "tools",
    ]);
    assert(report.checks.every((c: { ok: boolean }) => c.ok));
    // Voice not set up is a warning that says how, not a failure.
    const speechIn = report.checks.find((c: { name: string }) => c.name === "speech in");
    assertEquals(speechIn.warning, true);
    assertMatch(speechIn.detail, /set speech\.transcribe in hob\.yaml/);
  });
  await t.step("a model that does not call tools", async () => {
    await using fake = startFakeOpenAI({ replies: [{ text: "I cannot use tools." }] });
    await using home = await tempHome(fakeProviderYaml(fake.url));
    const result = await runHob(["doctor", "--home", home.home]);
    assertEquals(result.code, 1);
    assertMatch(
      result.stdout,
      /✗ tools +the model answered without calling the tool — pick a model/,
    );
  });
  await t.step("a provider that is down", async () => {
    await using home = await tempHome(fakeProviderYaml(`http://127.0.0.1:${closedPort()}/v1`));
    const result = await runHob(["doctor", "--home", home.home]);
    assertEquals(result.code, 1);
    assertMatch(
      result.stdout,
      /✗ provider +fake: not reachable at http:\/\/127\.0\.0\.1:\d+\/v1\/models/,
    );
  });
  await t.step("a bad config", async () => {
    await using home = await tempHome("agent: { max_tool_iterations: 0 }\n");
    const result = await runHob(["doctor", "--home", home.home]);
    assertEquals(result.code, 1);
    assertMatch(result.stdout, /✗ config +.*hob\.yaml:1: agent\.max_tool_iterations: /);
  });
});

Deno.test("commands create the home on first use", async () => {
  const parent = await Deno.makeTempDir({ prefix: "hob-first-" });
  try {
    const result = await runHob(["ask", "hi", "--model", "ollama/x", "--home", `${parent}/new`], {
      env: { HOB_MODEL: "ollama/x" },
    });
    // No Ollama runs here, so the turn fails — but the home now exists.
    assertEquals(result.code, 1);
    assert((await Deno.stat(`${parent}/new/token`)).isFile);
    assert((await Deno.stat(`${parent}/new/hob.db`)).isFile);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("commands that only read refuse a directory that is not a hob home, creating nothing", async (t) => {
  const parent = await Deno.makeTempDir({ prefix: "hob-typo-" });
  const refusal = (home: string) =>
    `hob: ${home} is not a hob home — check --home, or create one with 'hob init --home ${home}'\n`;
  try {
    const missing = `${parent}/typo`;
    for (
      const args of [
        ["status"],
        ["cron", "list"],
        ["cron", "runs", "plan"],
        ["tool", "list"],
        ["memory", "search", "keys"],
        ["config", "show"],
        ["doctor"],
        ["approvals", "approve", "36aa"],
        ["task", "list"],
        ["models"],
        ["reset", "all"],
      ]
    ) {
      await t.step(args.join(" "), async () => {
        const result = await runHob([...args, "--home", missing]);
        assertEquals([result.code, result.stderr], [1, refusal(missing)]);
        assertEquals(await pathExists(missing), false);
      });
    }
    await t.step("an empty directory is not a home either, and stays empty", async () => {
      const empty = `${parent}/empty`;
      await Deno.mkdir(empty);
      const result = await runHob(["status", "--home", empty]);
      assertEquals([result.code, result.stderr], [1, refusal(empty)]);
      assertEquals(await Array.fromAsync(Deno.readDir(empty)), []);
    });
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("deno.json's tasks run hob with the same permission flags", () => {
  const flags = HOB_FLAGS.join(" ");
  assertStringIncludes(manifest.tasks.dev, flags);
  // The release binary gets them from the hob task itself (scripts/compile.ts; tests/scripts).
  assertStringIncludes(manifest.tasks.compile, "scripts/compile.ts");
  assert(
    !flags.includes("--allow-all") && !flags.includes(" -A"),
    "hob runs with explicit permissions",
  );
});

Deno.test("hob serve on a port in use exits 1 and says so", async () => {
  await using home = await tempHome("");
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const result = await runHob(["serve", "--port", String(port), "--home", home.home]);
  assertEquals(result.code, 1);
  assertEquals(
    result.stderr,
    `hob: port ${port} on 127.0.0.1 is in use — is hob already running? Pick another with --port\n`,
  );
});

Deno.test("hob cron, hob task, hob status and hob reset from the command line", async (t) => {
  await using fake = startFakeOpenAI({ fallback: { text: "Morning plan: write." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const h = ["--home", home.home];

  await t.step("cron add, list, run, disable, remove", async () => {
    const added = await runHob([
      "cron",
      "add",
      "plan",
      "30 7 * * *",
      "Plan my day",
      "--timezone",
      "Asia/Tokyo",
      ...h,
    ], { env: { TZ: "UTC" } });
    assertEquals(added.code, 0, added.stderr);
    // 07:30 in Tokyo, shown in the user's zone and labelled.
    assertMatch(added.stdout, /^Added job 1 'plan'; next run \d{4}-\d\d-\d\d 22:30:00 UTC\.\n$/);
    const run = await runHob(["cron", "run", "plan", ...h]);
    assertEquals(run.code, 0, run.stderr);
    assertStringIncludes(run.stdout, "Morning plan: write.");
    const list = await runHob(["cron", "list", ...h]);
    assertMatch(list.stdout, /plan {2}30 7 \* \* \* \(Asia\/Tokyo\)/);
    assertMatch(list.stdout, /last .* ok/);
    assertEquals((await runHob(["cron", "disable", "1", ...h])).stdout, "Disabled 'plan'.\n");
    const missing = await runHob(["cron", "run", "nope", ...h]);
    assertEquals([missing.code, missing.stderr], [1, "hob: no job 'nope' — see 'hob cron list'\n"]);
    assertEquals(
      (await runHob(["cron", "remove", "plan", ...h])).stdout,
      "Removed job 1 'plan' and its run log.\n",
    );
  });

  await t.step("task add, list, cancel", async () => {
    const added = await runHob([
      "task",
      "add",
      "Sort photos",
      "Sort the photos by year",
      "--priority",
      "2",
      ...h,
    ]);
    assertEquals(added.code, 0, added.stderr);
    assertStringIncludes(added.stdout, "Added task 1 'Sort photos'");
    const blocked = await runHob([
      "task",
      "add",
      "Print album",
      "--blocked-by",
      "1",
      "--json",
      ...h,
    ]);
    assertEquals(JSON.parse(blocked.stdout).blocked_by, [1]);
    const list = await runHob(["task", "list", ...h]);
    assertMatch(list.stdout, /1 {2}pending +Sort photos {2}priority 2/);
    assertMatch(list.stdout, /2 {2}pending +Print album {2}after 1/);
    assertEquals((await runHob(["task", "cancel", "2", ...h])).stdout, "Cancelled task 2.\n");
    const again = await runHob(["task", "cancel", "2", ...h]);
    assertEquals([again.code, again.stderr], [1, "hob: Task 2 is cancelled already\n"]);
  });

  await t.step("status shows the whole assistant", async () => {
    const status = await runHob(["status", ...h]);
    assertEquals(status.code, 0, status.stderr);
    assertMatch(status.stdout, /server +not running/);
    assertMatch(status.stdout, /model +fake\/fake-model — fake reachable/);
    assertMatch(
      status.stdout,
      /tasks +1 pending · 0 in progress · 0 waiting · 0 complete · 0 failed · 1 cancelled/,
    );
    assertMatch(status.stdout, /heartbeat +every 30 min, not yet ticked/);

    // A tick with nothing to check in HEARTBEAT.md (a new home's) spent nothing: status says so.
    const db = new DatabaseSync(`${home.home}/hob.db`);
    db.prepare("INSERT INTO kv (key, value, updated_at) VALUES ('heartbeat', ?, 'now')").run(
      JSON.stringify({
        last_tick: null,
        last_status: "empty_checklist",
        last_error: null,
        last_reply: null,
        last_conversation_id: null,
        next_tick: null,
        ticks: 0,
        failures: 0,
      }),
    );
    db.close();
    const idle = await runHob(["status", ...h]);
    assertMatch(
      idle.stdout,
      /heartbeat +every 30 min, idle: HEARTBEAT\.md has nothing to check, so no model calls/,
    );
  });

  await t.step("reset prints what it would delete and deletes only with --yes", async () => {
    const dry = await runHob(["reset", "tasks", ...h]);
    assertEquals(dry.code, 0, dry.stderr);
    assertMatch(dry.stdout, /^Would delete:\n +2 {2}background tasks\n/);
    assertStringIncludes(dry.stdout, "Nothing was deleted. Run 'hob reset tasks --yes' to delete.");
    assertEquals(
      JSON.parse((await runHob(["task", "list", "--json", ...h])).stdout).tasks.length,
      2,
    );
    const done = await runHob(["reset", "tasks", "--yes", ...h]);
    assertMatch(done.stdout, /^Deleted:\n +2 {2}background tasks\n/);
    assertEquals(
      JSON.parse((await runHob(["task", "list", "--json", ...h])).stdout).tasks.length,
      0,
    );

    await Deno.writeTextFile(`${home.home}/memory/2026-01-01.md`, "# 2026-01-01\n\nA note.\n");
    const all = JSON.parse((await runHob(["reset", "all", "--json", ...h])).stdout);
    assertEquals(all.deleted, false);
    const memoryFiles = all.items.find((i: { what: string }) => i.what.startsWith("memory files"));
    assertEquals(memoryFiles.count, 2);
    await runHob(["reset", "memory", "--yes", ...h]);
    assertEquals(await Deno.stat(`${home.home}/memory/2026-01-01.md`).catch(() => null), null);
    assertStringIncludes(await Deno.readTextFile(`${home.home}/memory/MEMORY.md`), "#");
  });
});

Deno.test("every command shows times in the user's zone, labelled, whatever the job's zone", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "Planned." } });
  await using home = await tempHome(
    fakeProviderYaml(fake.url, "memory: { embedder: none }\nheartbeat: { enabled: false }"),
  );
  const hob = (...args: string[]) =>
    runHob([...args, "--home", home.home], { env: { TZ: "America/New_York" } });
  // 07:30 in Tokyo is the evening before in New York: 18:30 GMT-4 (EDT) or 17:30 GMT-5 (EST).
  const evening = "\\d{4}-\\d\\d-\\d\\d (18:30:00 GMT-4|17:30:00 GMT-5)";
  const added = await hob("cron", "add", "plan", "30 7 * * *", "Plan", "--timezone", "Asia/Tokyo");
  assertMatch(added.stdout, new RegExp(`next run ${evening}\\.`));
  const list = await hob("cron", "list");
  assertMatch(
    list.stdout,
    new RegExp(`plan  30 7 \\* \\* \\* \\(Asia/Tokyo\\)\\n +next ${evening}`),
  );
  const status = await hob("status");
  assertMatch(status.stdout, new RegExp(`jobs +1 \\(1 enabled\\), next 'plan' at ${evening}\\n`));
  assertEquals((await hob("cron", "run", "plan")).code, 0);
  const runs = await hob("cron", "runs", "plan");
  assertMatch(runs.stdout, /^ +1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT-[45] {2}ok/);
});

Deno.test("hob tool list shows the policy calls really get", async () => {
  await using home = await tempHome(
    "memory: { embedder: none }\ntools: { shell: { policy: allowlist } }\n",
  );
  const list = await runHob(["tool", "list", "--home", home.home]);
  assertEquals(list.code, 0, list.stderr);
  assertMatch(list.stdout, /^run_command +allowlist, else deny +/m);
  assertMatch(list.stdout, /^run_python +deny +/m);
  assertMatch(list.stdout, /^get_time +allow +/m);
});

Deno.test("./hob routes 'task', 'task add|list|…' and unknown names to hob's background tasks, deno.json's tasks to deno", async () => {
  await using home = await tempHome("memory: { embedder: none }");
  const script = new URL("../../hob", import.meta.url).pathname;
  const run = async (...args: string[]) => {
    const output = await new Deno.Command("bash", {
      args: [script, ...args],
      env: {
        NO_COLOR: "1",
        PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH")}`,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
  };
  const added = await run("task", "add", "Water plants", "--home", home.home);
  assertEquals(added.code, 0, added.stderr);
  assertStringIncludes(added.stdout, "Added task 1 'Water plants'");
  const listed = await run("task", "list", "--home", home.home);
  assertStringIncludes(listed.stdout, "Water plants");
  // './hob task' alone says what background tasks are, not deno.json's developer tasks.
  const alone = await run("task");
  assertEquals(alone.code, 0, alone.stderr);
  assert(alone.stdout.startsWith("Usage: hob task add TITLE"), alone.stdout);
  // A deno.json task by its name runs; any other name is hob task's own error.
  const fmt = await run("task", "fmt", "--check", "deno.json");
  assertEquals(fmt.code, 0, fmt.stderr);
  const unknown = await run("task", "no-such-task");
  assertEquals([unknown.code, unknown.stdout], [2, ""]);
  assertEquals(
    unknown.stderr,
    "hob task: unknown action 'no-such-task' — use add, list, show, cancel, resume\n",
  );
});
