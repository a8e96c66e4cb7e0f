/**
 * One turn, every way in: the same bad chat message fed through REST
 * (`POST /api/chat`), MCP's `ask_hob`, `/v1/chat/completions` and `hob ask`
 * (a real process on the same home) is refused by all of them — each in its
 * own wire format, with the bounds `POST /api/chat` documents — and none of
 * them stores a conversation. Then approvals and tools: a decision on an
 * approval that is not there, and a tool that is not there, refused alike
 * by REST, the page, the CLI and MCP.
 */

import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { type HobResult, runHob } from "../helpers/hob_process.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";
/** `hob` processes at once: each is a `deno run`. */
const CONCURRENCY = 4;
/** One character past the longest message `POST /api/chat` takes. */
const TOO_LONG = "x".repeat(500_001);

type Api = Awaited<ReturnType<typeof tempApi>>;

/** One bad turn, as each way in spells it, and what each answers. */
interface BadTurn {
  what: string;
  /** `POST /api/chat`'s body; MCP's `ask_hob` gets it too, when `mcp` is set. */
  json: Record<string, unknown>;
  rest: { status: number; field?: string };
  /** The text of `ask_hob`'s error result. */
  mcp?: RegExp;
  /** `/v1`'s request beyond the defaults, and its status and `param`. */
  v1?: { body: Record<string, unknown>; status: number; param: string };
  /** `hob ask`'s arguments (and stdin), exit code and one line. */
  cli: { args: string[]; stdin?: string; code: number; stderr: RegExp };
}

const BAD_TURNS: BadTurn[] = [
  {
    what: "a message past 500000 characters",
    json: { message: TOO_LONG },
    rest: { status: 400, field: "message" },
    mcp: /^'message': Too big: expected string to have <=500000 characters$/,
    v1: {
      body: { messages: [{ role: "user", content: TOO_LONG }] },
      status: 400,
      param: "messages",
    },
    cli: {
      args: [],
      stdin: TOO_LONG,
      code: 2,
      stderr: /^hob ask: the message: Too big: expected string to have <=500000 characters\n$/,
    },
  },
  {
    what: "an empty message",
    json: { message: "" },
    rest: { status: 400, field: "message" },
    mcp: /^'message': must not be empty$/,
    v1: { body: { messages: [{ role: "user", content: "" }] }, status: 400, param: "messages" },
    cli: { args: [""], code: 2, stderr: /^hob ask: missing the message/ },
  },
  {
    what: "a conversation that does not exist",
    json: { message: "hi", conversation_id: "nope" },
    rest: { status: 404 },
    mcp: /^Conversation 'nope' does not exist$/,
    cli: {
      args: ["hi", "--conversation", "nope"],
      code: 1,
      stderr:
        /^hob: Conversation 'nope' does not exist — 'hob ask' without --conversation starts a new one\n$/,
    },
  },
  {
    what: "a model no provider serves",
    json: { message: "hi", model: "nope/x" },
    rest: { status: 400, field: "model" },
    v1: { body: { model: "hob/nope/x" }, status: 404, param: "model" },
    cli: {
      args: ["hi", "--model", "nope/x"],
      code: 2,
      stderr: /^hob ask: --model: model 'nope\/x'/,
    },
  },
];

/** Runs `hob` argument lists a few at a time; results in order. */
async function runAll(cases: { args: string[]; stdin?: string }[]): Promise<HobResult[]> {
  const results: HobResult[] = new Array(cases.length);
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runHob(cases[index].args, { stdin: cases[index].stdin });
    }
  }));
  return results;
}

/** One JSON-RPC call to /mcp; the whole response body. */
async function mcpCall(api: Api, method: string, params: unknown) {
  const response = await api.call("/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream" },
    json: { jsonrpc: "2.0", id: 1, method, params },
  });
  assertEquals(response.status, 200);
  return await response.json();
}

Deno.test("a bad turn is refused alike by REST, MCP, /v1 and the CLI", async (t) => {
  await using api = await tempApi(YAML);
  const home = api.home.home;
  const cli = await runAll(BAD_TURNS.map((bad) => ({
    args: ["ask", ...bad.cli.args, "--home", home],
    stdin: bad.cli.stdin,
  })));

  for (const [i, bad] of BAD_TURNS.entries()) {
    await t.step(bad.what, async () => {
      const rest = await api.call("/api/chat", { method: "POST", json: bad.json });
      assertEquals(rest.status, bad.rest.status);
      const { error } = await rest.json();
      assertEquals(error.field, bad.rest.field);

      if (bad.mcp) {
        const { result } = await mcpCall(api, "tools/call", {
          name: "ask_hob",
          arguments: bad.json,
        });
        assertEquals(result.isError, true);
        assertMatch(result.content[0].text, bad.mcp);
      }

      if (bad.v1) {
        const v1 = await api.call("/v1/chat/completions", {
          method: "POST",
          json: { model: "hob", messages: [{ role: "user", content: "hi" }], ...bad.v1.body },
        });
        assertEquals(v1.status, bad.v1.status);
        const { error } = await v1.json();
        assertEquals([error.type, error.param], ["invalid_request_error", bad.v1.param]);
      }

      assertEquals(
        cli[i].code,
        bad.cli.code,
        `hob ask ${bad.cli.args.join(" ")}: ${cli[i].stderr}`,
      );
      assertMatch(cli[i].stderr, bad.cli.stderr);
      assertEquals(cli[i].stdout, "");
    });
  }

  await t.step("MCP's ask_hob takes only what its schema shows", async () => {
    const { result: tools } = await mcpCall(api, "tools/list", {});
    const ask = tools.tools.find((tool: { name: string }) => tool.name === "ask_hob");
    assertEquals(Object.keys(ask.inputSchema.properties), ["message", "conversation_id"]);
    assertEquals(ask.inputSchema.properties.message.maxLength, 500_000);
    const { result } = await mcpCall(api, "tools/call", {
      name: "ask_hob",
      arguments: { message: "hi", model: "nope/x" },
    });
    assertEquals([result.isError, result.content[0].text], [true, "'model': unknown field"]);
  });

  await t.step("nothing was stored by any of them", () => {
    assertEquals(api.runtime.app.conversations.list({ kind: "all" }), []);
  });
});

Deno.test("an approval or a tool that is not there is refused alike by REST, the page, the CLI and MCP", async (t) => {
  await using api = await tempApi(YAML);
  const home = api.home.home;
  const [approve, decide, call] = await runAll([
    { args: ["approvals", "approve", "nope", "--home", home] },
    { args: ["approvals", "maybe", "nope", "--home", home] },
    { args: ["tool", "call", "nope", "--home", home] },
  ]);
  const page = (decision: string) =>
    api.call("/ui/approvals/nope", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
      body: `decision=${decision}`,
    });

  await t.step("a decision on an approval that is not there", async () => {
    const rest = await api.call("/api/approvals/nope", {
      method: "POST",
      json: { decision: "approve" },
    });
    assertEquals([rest.status, (await rest.json()).error.code], [404, "not_found"]);
    assertMatch(await (await page("approve")).text(), /Approval &#39;nope&#39; does not exist/);
    assertEquals([approve.code, approve.stderr], [
      1,
      "hob: Approval 'nope' does not exist — the list of approvals shows the pending ones\n",
    ]);
  });

  await t.step("a decision that is neither approve nor deny", async () => {
    const rest = await api.call("/api/approvals/nope", {
      method: "POST",
      json: { decision: "maybe" },
    });
    assertEquals([rest.status, (await rest.json()).error.field], [400, "decision"]);
    assertMatch(await (await page("maybe")).text(), /Choose approve or deny\./);
    assertEquals(decide.code, 2);
    assertMatch(decide.stderr, /^hob approvals: unknown action 'maybe'/);
  });

  await t.step("a tool that is not there", async () => {
    const rest = await api.call("/api/tools/nope/invoke", { method: "POST", json: { args: {} } });
    assertEquals([rest.status, (await rest.json()).error.message], [404, "No tool named 'nope'"]);
    assertEquals([call.code, call.stderr], [
      1,
      "hob: No tool named 'nope' — 'hob tool list' shows them\n",
    ]);
    const { error } = await mcpCall(api, "tools/call", { name: "nope", arguments: {} });
    assert(error, "a JSON-RPC error");
    assertMatch(error.message, /Unknown tool 'nope'/);
  });
});
