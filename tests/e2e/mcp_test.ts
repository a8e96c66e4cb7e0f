/**
 * MCP both ways, as a user meets it: hob's agent using a real MCP server from
 * npm over stdio, servers that fail or die, and other agents using hob over
 * streamable HTTP (`/mcp`) and stdio (`hob mcp serve`) through the official SDK.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, parseSse, tempHome, tempRuntime } from "../helpers/home.ts";
import { HOB_FLAGS, runHob, startHob } from "../helpers/hob_process.ts";

type Listed = { uri: string; name: string };
const EVERYTHING = new URL("../fakes/mcp_everything.ts", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const everythingYaml = (extra = "") =>
  `mcpServers:
  everything:
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, --allow-env, --allow-read, ${JSON.stringify(EVERYTHING)}, stdio]
    ${extra}`;

/** A stdio MCP server that exits when its `crash` tool is called; it counts its starts in a file. */
const CRASHY = `
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const starts = Deno.args[0];
await Deno.writeTextFile(starts, "x", { append: true });
const server = new Server({ name: "crashy", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [
  { name: "crash", description: "Exits", inputSchema: { type: "object" } },
  { name: "hello", description: "Greets", inputSchema: { type: "object" } },
  { name: "slow", description: "Takes ten seconds", inputSchema: { type: "object" } },
] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === "crash") Deno.exit(3);
  if (request.params.name === "slow") await new Promise((r) => setTimeout(r, 10_000));
  return { content: [{ type: "text", text: "hello from crashy" }] };
});
await server.connect(new StdioServerTransport());
`;

Deno.test("the agent calls a tool of a real MCP server (server-everything over stdio) and uses the result", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ id: "m1", name: "everything__get_sum", arguments: { a: 20, b: 22 } }] },
      { text: "The sum is 42." },
    ],
  });
  await using home = await tempHome(
    fakeProviderYaml(
      fake.url,
      `memory: { embedder: none }\n${everythingYaml("allow_read_only: true")}`,
    ),
  );
  await using hob = await startHob(home.home);
  // A new server's tools wait for the owner: `hob status` says so, and how to approve them.
  const before = await runHob(["status", "--home", home.home]);
  assertMatch(
    before.stdout,
    /^mcp\s+everything: connected, 0 tools, \d+ waiting for your approval \(not offered\) — 'hob mcp approve everything'/m,
  );
  // Approved through the running server, whose registry takes them at once.
  const approved = await runHob(["mcp", "approve", "everything", "--yes", "--home", home.home]);
  assertEquals(approved.code, 0, approved.stderr);
  assertMatch(approved.stdout, /Approved \d+ tool\(s\) of 'everything'/);
  const response = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ message: "What is 20 + 22? Use the calculator." }),
  });
  const events = parseSse(await response.text());
  const result = events.find((e) => e.event === "tool_result")?.data as {
    name: string;
    content: string;
    is_error: boolean;
  };
  assertEquals(result.name, "everything__get_sum");
  assertEquals(result.is_error, false);
  assertStringIncludes(result.content, "42");
  assertMatch(result.content, /^<untrusted source="mcp:everything\/get-sum">/);
  // The model was offered the server's tools with their schemas, and got the result back.
  // (`hob status` asked the provider for its models first: the chat's requests are the ones with messages.)
  const [first, next] = fake.requests.filter((request) => request.body.messages);
  const offered = first.body.tools as {
    function: {
      name: string;
      description: string;
      parameters: { properties: Record<string, unknown> };
    };
  }[];
  const sum = offered.find((t) => t.function.name === "everything__get_sum");
  assert(sum, "get_sum offered");
  assertEquals(Object.keys(sum.function.parameters.properties).sort(), ["a", "b"]);
  // The server's words, labelled as its own (and approved: they do not taint the turn).
  assertMatch(
    sum.function.description,
    /^<untrusted source="mcp:everything\/get-sum description" approved>\n/,
  );
  const second = next.body.messages as { role: string; content: string }[];
  assertStringIncludes(second.at(-1)!.content, "42");
  const done = events.at(-1)!.data as { status: string };
  assertEquals(done.status, "complete");

  // Read-only tools were allowed by config; the rest ask.
  const { tools } = await (await hob.fetch("/api/tools")).json() as {
    tools: { name: string; policy: string; origin: { kind: string } }[];
  };
  const policy = (name: string) => tools.find((t) => t.name === name)?.policy;
  assertEquals(policy("everything__get_sum"), "allow");
  assertEquals(policy("everything__toggle_simulated_logging"), "ask");
  const status = await (await hob.fetch("/api/status")).json() as {
    mcp: { name: string; state: string; tools: string[] }[];
  };
  assertEquals(status.mcp[0].state, "connected");
  assert(status.mcp[0].tools.includes("everything__echo"));
});

Deno.test("MCP tools ask for approval by default, read-only ones too unless allowed", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ id: "e1", name: "everything__echo", arguments: { message: "hi" } }] },
      { text: "ok" },
    ],
  });
  // Without allow_read_only even a read-only tool asks: the default policy is 'ask'.
  await using home = await tempHome(
    fakeProviderYaml(fake.url, `memory: { embedder: none }\n${everythingYaml()}`),
  );
  await using hob = await startHob(home.home);
  const approved = await hob.fetch("/api/mcp/servers/everything/approve", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tools: ["echo"] }),
  });
  assertEquals((await approved.json()).tools[0].name, "everything__echo");
  const response = hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ message: "echo hi" }),
  });
  let pending: { id: string; tool: string }[] = [];
  for (let i = 0; i < 100 && pending.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pending = (await (await hob.fetch("/api/approvals")).json()).approvals;
  }
  assertEquals(pending[0].tool, "everything__echo");
  await hob.fetch(`/api/approvals/${pending[0].id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve" }),
  });
  const events = parseSse(await (await response).text());
  const result = events.find((e) => e.event === "tool_result")?.data as { content: string };
  assertStringIncludes(result.content, "Echo: hi");
});

Deno.test("hob mcp list, tools and call from the command line", async (t) => {
  await using home = await tempHome(`memory: { embedder: none }\n${everythingYaml()}`);
  await t.step("list says each server's state, and what waits for approval", async () => {
    const list = await runHob(["mcp", "list", "--json", "--home", home.home]);
    assertEquals(list.code, 0, list.stderr);
    const { servers } = JSON.parse(list.stdout);
    assertEquals(servers[0].name, "everything");
    assertEquals(servers[0].state, "connected");
    assertEquals(servers[0].tools, []);
    assert(servers[0].pending.includes("everything__get_sum"));
    const text = await runHob(["mcp", "list", "--home", home.home]);
    assertMatch(text.stdout, /approve them with 'hob mcp approve everything'/);
    const doctor = await runHob(["doctor", "--json", "--skip-model", "--home", home.home]);
    const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) =>
      c.name === "mcp everything"
    );
    assertEquals([check.ok, check.warning], [true, true]);
    assertMatch(check.detail, /wait for your approval — 'hob mcp approve everything'/);
  });
  await t.step("tools lists them by the model's names, those that wait whole", async () => {
    const tools = await runHob(["mcp", "tools", "everything", "--home", home.home]);
    assertEquals(tools.code, 0, tools.stderr);
    assertMatch(tools.stdout, /^everything__get_sum waits: new .*hash [0-9a-f]{16}\n {4}\S/m);
    assertMatch(tools.stdout, /Approve them with 'hob mcp approve everything'\./);
  });
  await t.step("approve shows what it would approve, and approves only with --yes", async () => {
    const shown = await runHob(["mcp", "approve", "everything", "get-sum", "--home", home.home]);
    assertEquals(shown.code, 0, shown.stderr);
    assertMatch(shown.stdout, /^everything__get_sum waits: new/m);
    assertMatch(
      shown.stdout,
      /Nothing was approved\. .*'hob mcp approve everything get-sum --yes'/,
    );
    const done = await runHob([
      "mcp",
      "approve",
      "everything",
      "get-sum",
      "--yes",
      "--json",
      "--home",
      home.home,
    ]);
    assertEquals(done.code, 0, done.stderr);
    assertEquals(JSON.parse(done.stdout).tools.map((t: { name: string }) => t.name), [
      "everything__get_sum",
    ]);
    const listed = await runHob(["mcp", "list", "--json", "--home", home.home]);
    const [server] = JSON.parse(listed.stdout).servers;
    assertEquals(server.tools, ["everything__get_sum"]);
    assert(server.pending.length > 0);
    const unknown = await runHob([
      "mcp",
      "approve",
      "everything",
      "nope",
      "--yes",
      "--home",
      home.home,
    ]);
    assertEquals(unknown.code, 1);
    assertMatch(unknown.stderr, /lists no tool 'nope'/);
  });
  await t.step("call runs one by its own name", async () => {
    const call = await runHob([
      "mcp",
      "call",
      "everything",
      "get-sum",
      "--args",
      '{"a": 2, "b": 3}',
      "--home",
      home.home,
    ]);
    assertEquals(call.code, 0, call.stderr);
    assertStringIncludes(call.stdout, "5");
  });
  await t.step("bad usage exits 2 with one line", async () => {
    const bad = await runHob(["mcp", "call", "everything", "--home", home.home]);
    assertEquals(bad.code, 2);
    assertEquals(bad.stderr.trim().split("\n").length, 1);
    const badArgs = await runHob([
      "mcp",
      "call",
      "everything",
      "echo",
      "--args",
      "[1]",
      "--home",
      home.home,
    ]);
    assertEquals(badArgs.code, 2);
  });
});

Deno.test("an MCP server that cannot start is reported, and hob keeps working without it", async () => {
  await using fake = startFakeOpenAI({ replies: [{ text: "still here" }] });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `memory: { embedder: none }
mcpServers:
  broken:
    command: hob-no-such-program-here
`,
  ));
  const list = await runHob(["mcp", "list", "--home", home.home]);
  assertEquals(list.code, 1);
  assertMatch(list.stdout, /broken\s+failed/);
  const doctor = await runHob(["doctor", "--json", "--skip-model", "--home", home.home]);
  const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) =>
    c.name === "mcp broken"
  );
  assertEquals(check.ok, false);
  assertMatch(check.detail, /^failed: /);

  await using hob = await startHob(home.home);
  const reply = await (await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "hello?" }),
  })).json();
  assertEquals(reply.content, "still here");
  const status = await (await hob.fetch("/api/status")).json();
  assertEquals(status.mcp[0].state, "failed");
  assert(status.mcp[0].error);
  const cli = await runHob(["status", "--home", home.home]);
  assertMatch(cli.stdout, /^mcp\s+broken: failed — /m);
});

Deno.test("an MCP server that dies is reconnected and its tools come back", async () => {
  await using setup = await tempRuntime("memory: { embedder: none }");
  const dir = setup.home.home;
  const script = `${dir}/crashy.ts`;
  const starts = `${dir}/starts.txt`;
  await Deno.writeTextFile(script, CRASHY);
  const config = `memory: { embedder: none }
mcpServers:
  crashy:
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, ${JSON.stringify(`--allow-write=${starts}`)}, --config, ${
    JSON.stringify(new URL("../../deno.json", import.meta.url).pathname)
  }, ${JSON.stringify(script)}, ${JSON.stringify(starts)}]
    policy: allow
    timeout_s: 1
`;
  await Deno.writeTextFile(`${dir}/hob.yaml`, config);
  await setup.runtime.close();
  const { openRuntime } = await import("../../src/runtime/runtime.ts");
  const runtime = await openRuntime({ home: dir, env: {} });
  try {
    await runtime.mcp.start();
    assertEquals(runtime.mcp.status()[0].state, "connected");
    await runtime.app.mcp.approve({ server: "crashy" });
    const registry = runtime.toolbox.registry;
    // A call that outlasts timeout_s is an error result, and the server stays connected.
    const slow = await registry.execute(
      { id: "s1", name: "crashy__slow", arguments: "{}" },
      { conversation_id: null },
    );
    assertEquals(slow.is_error, true);
    assertMatch(slow.content, /timed out/i);
    assertEquals(runtime.mcp.status()[0].state, "connected");
    const crashed = await registry.execute(
      { id: "c1", name: "crashy__crash", arguments: "{}" },
      { conversation_id: null },
    );
    assertEquals(crashed.is_error, true);
    // Back within a few seconds (first retry after 1 s), with its tools registered again.
    let state = "";
    for (let i = 0; i < 100 && state !== "connected"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = runtime.mcp.status()[0].state;
    }
    assertEquals(state, "connected");
    assertEquals(await Deno.readTextFile(starts), "xx");
    const hello = await registry.execute(
      { id: "h1", name: "crashy__hello", arguments: "{}" },
      { conversation_id: null },
    );
    assertStringIncludes(hello.content, "hello from crashy");
    assertEquals(runtime.mcp.status()[0].failures, 0);
  } finally {
    await runtime.close();
  }
});

Deno.test("other agents use hob over /mcp: tools, resources, ask_hob; Host, Origin and token guarded", async (t) => {
  await using fake = startFakeOpenAI({ replies: [{ text: "Hello from hob's agent." }] });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hob.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${hob.token}` } },
    }),
  );
  try {
    await t.step("tools: memory, tasks and ask_hob", async () => {
      const { tools } = await client.listTools();
      assertEquals(tools.map((tool: { name: string }) => tool.name).sort(), [
        "ask_hob",
        "create_task",
        "log_note",
        "memory_get",
        "remember_this",
        "search_memory",
      ]);
      const remembered = await client.callTool({
        name: "remember_this",
        arguments: { text: "The user's bike is a green Brompton." },
      });
      assertEquals(remembered.isError, false);
      // The file history names who wrote it: another agent, through MCP.
      const { versions } = await (await hob.fetch("/api/memory/history?path=MEMORY.md&limit=1"))
        .json();
      assertEquals([versions[0].author, versions[0].via], ["mcp", "remember_this"]);
      const found = await client.callTool({
        name: "search_memory",
        arguments: { query: "Brompton" },
      }) as { content: { text: string }[] };
      assertStringIncludes(found.content[0].text, "green Brompton");
      const asked = await client.callTool({
        name: "ask_hob",
        arguments: { message: "Say hello" },
      }) as { content: { text: string }[]; structuredContent: { conversation_id: string } };
      assertEquals(asked.content[0].text, "Hello from hob's agent.");
      assert(asked.structuredContent.conversation_id);
    });
    await t.step("resources: MEMORY.md and conversations", async () => {
      const { resources } = await client.listResources();
      const memory = (resources as Listed[]).find((r) => r.name === "MEMORY.md");
      assert(memory, "MEMORY.md listed");
      const read = await client.readResource({ uri: memory.uri }) as {
        contents: { text: string }[];
      };
      assertStringIncludes(read.contents[0].text, "green Brompton");
      assert((resources as Listed[]).some((r) => r.uri.startsWith("hob://conversations/")));
      const escape = await client.readResource({ uri: "hob://memory/..%2Fhob.yaml" }).catch((
        e: unknown,
      ) => e);
      assert(escape instanceof Error, "a path outside memory is refused");
    });
  } finally {
    await client.close();
  }
  await t.step("no token, a foreign Host or a foreign Origin is refused", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      },
    };
    const post = (headers: Record<string, string>, path = "/mcp") =>
      fetch(`${hob.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(init),
      });
    const get = await fetch(`${hob.url}/mcp?token=${hob.token}`);
    assertEquals(get.status, 405, "a stateless server keeps no stream to GET");
    await get.body?.cancel();
    const anonymous = await post({});
    assertEquals(anonymous.status, 401);
    await anonymous.body?.cancel();
    const byQuery = await post({}, `/mcp?token=${hob.token}`);
    assertEquals(byQuery.status, 200);
    await byQuery.body?.cancel();
    // fetch() will not send a foreign Host header; a raw request will, as a rebinding page's does.
    const rebinding = await rawStatus(hob.url, "evil.example.com", hob.token, JSON.stringify(init));
    assertEquals(rebinding, 403);
    const crossSite = await post({
      origin: "https://evil.example.com",
      authorization: `Bearer ${hob.token}`,
    });
    assertEquals(crossSite.status, 403);
    await crossSite.body?.cancel();
  });
});

Deno.test("hob mcp serve speaks MCP on stdio", async () => {
  await using home = await tempHome("memory: { embedder: none }");
  await Deno.writeTextFile(
    `${home.home}/memory/MEMORY.md`,
    "# Memory\n\n- Grace's birthday is 14 March.\n",
  );
  // A skill of the user's becomes a prompt: what the skill makes of the input.
  await Deno.mkdir(`${home.home}/skills`, { recursive: true });
  await Deno.writeTextFile(
    `${home.home}/skills/brief.ts`,
    `export default {
  name: "brief",
  description: "Asks for a brief summary",
  run(input) { return "Summarise in three bullet points: " + input; },
};`,
  );
  const client = new Client({ name: "stdio-agent", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...HOB_FLAGS, MAIN, "mcp", "serve", "--home", home.home],
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1" },
      stderr: "ignore",
    }),
  );
  try {
    const found = await client.callTool({
      name: "search_memory",
      arguments: { query: "Grace birthday" },
    }) as { content: { text: string }[] };
    assertStringIncludes(found.content[0].text, "14 March");
    const { prompts } = await client.listPrompts();
    // The user's skill, and the one every home starts with.
    assertEquals(prompts.map((p: { name: string }) => p.name).sort(), ["brief", "press_release"]);
    const prompt = await client.getPrompt({ name: "brief", arguments: { input: "my week" } }) as {
      messages: { role: string; content: { text: string } }[];
    };
    assertEquals(prompt.messages[0].role, "user");
    assertEquals(prompt.messages[0].content.text, "Summarise in three bullet points: my week");
  } finally {
    await client.close();
  }
});

/** POSTs to /mcp over a plain TCP connection with the given Host header; returns the status. */
async function rawStatus(base: string, host: string, token: string, body: string): Promise<number> {
  const { port } = new URL(base);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  try {
    const bytes = new TextEncoder().encode(body);
    const request = [
      "POST /mcp HTTP/1.1",
      `Host: ${host}`,
      `Authorization: Bearer ${token}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      `Content-Length: ${bytes.length}`,
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(request));
    await conn.write(bytes);
    const buffer = new Uint8Array(1024);
    const n = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}
