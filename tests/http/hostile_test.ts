/**
 * The inputs the API fuzz (tests/e2e/fuzz_test.ts) found answered with a 500,
 * a non-JSON error or a JSON-RPC internal error, each pinned here: malformed
 * %-escapes in wildcard paths, broken form bodies, ids that cannot go into a
 * header, unlimited form bodies, text errors on the page's routes, invalid
 * MCP params, and a task priority that broke every later read of the queue.
 */

import { TaskError } from "../../src/store/tasks.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../helpers/assert.ts";

const YAML = "memory: { embedder: none }\nserver: { max_body_bytes: 2048 }\n";

Deno.test("malformed %-escapes in a wildcard path are a 400 naming the path", async (t) => {
  await using api = await tempApi(YAML);
  for (
    const [method, path] of [
      ["GET", "/api/memory/files/%ff"],
      ["GET", "/api/memory/files/notes%E0%80.md"],
      ["PUT", "/api/memory/files/%c0%ae%c0%ae%2fx.md"],
      ["GET", "/api/uploads/%c0%ae%c0%ae%2f"],
      ["GET", "/api/uploads/2026-01-01/%ff.png"],
    ]
  ) {
    await t.step(`${method} ${path}`, async () => {
      const response = await api.call(path, {
        method,
        ...(method === "PUT" ? { json: { content: "x" } } : {}),
      });
      assertEquals(response.status, 400);
      const body = await response.json();
      assertEquals([body.error.code, body.error.field], ["invalid_path", "path"]);
    });
  }
});

Deno.test("a form body that does not parse is a 400, not a 500", async (t) => {
  await using api = await tempApi(YAML);
  for (
    const [path, type, body] of [
      ["/api/uploads", "multipart/form-data; boundary=abc", "garbage"],
      ["/api/uploads", "multipart/form-data", "x"],
      ["/ui/tasks", "multipart/form-data; boundary=abc", "garbage"],
      ["/ui/memory/file", "multipart/form-data", "x"],
    ]
  ) {
    await t.step(`${path} ${JSON.stringify(body)}`, async () => {
      const response = await api.call(path, {
        method: "POST",
        headers: { "content-type": type },
        body,
      });
      assertEquals(response.status, 400);
      assertEquals((await response.json()).error.code, "invalid_form");
    });
  }
});

Deno.test("the page's fragments take no body over server.max_body_bytes", async () => {
  await using api = await tempApi(YAML);
  const response = await api.call("/ui/memory/file", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `path=memory%2FMEMORY.md&content=${"x".repeat(4096)}`,
  });
  assertEquals(response.status, 413);
  assertEquals((await response.json()).error.code, "payload_too_large");
  const memory = await api.call("/api/memory/files/MEMORY.md");
  assert(!(await memory.text()).includes("xxxx"), "the body was written");
});

Deno.test("deleting a conversation from the page with any id answers 200 and an ASCII HX-Trigger", async () => {
  await using api = await tempApi(YAML);
  const id = "💩\u202e\r\nX-Injected: 1";
  const response = await api.call(`/ui/conversations/${encodeURIComponent(id)}`, {
    method: "DELETE",
  });
  assertEquals(response.status, 200);
  const trigger = response.headers.get("hx-trigger")!;
  assertMatch(trigger, /^[\x20-\x7e]+$/);
  assertEquals(JSON.parse(trigger), { "hob:conversation-deleted": { id } });
  assertEquals(response.headers.get("x-injected"), null);
});

Deno.test("the page's routes answer a missing panel, file or asset with a JSON 404", async (t) => {
  await using api = await tempApi(YAML);
  for (
    const path of [
      "/ui/panel/nope",
      "/ui/panel/..%2f..%2ftoken",
      "/ui/memory/file?name=..%2Ftoken",
      "/static/..%2f..%2ftoken",
      "/static/%ff",
    ]
  ) {
    await t.step(path, async () => {
      const response = await api.call(path);
      assertEquals(response.status, 404);
      assertEquals((await response.json()).error.code, "not_found");
    });
  }
});

Deno.test("the ?token= link redirects to the path as it came, so an escaped CR LF stays escaped", async () => {
  await using api = await tempApi(YAML);
  const response = await api.call(
    `/c/x%0d%0aSet-Cookie:%20pwned=1?token=${api.home.token}`,
    { auth: false, redirect: "manual" },
  );
  assertEquals(response.status, 303);
  assertEquals(response.headers.get("location"), "/c/x%0d%0aSet-Cookie:%20pwned=1");
  assert(!(response.headers.get("set-cookie") ?? "").includes("pwned"));
});

Deno.test("unknown routes answer in the shape of their API: OpenAI's under /v1, JSON-RPC under /mcp", async () => {
  await using api = await tempApi(YAML);
  const v1 = await api.call("/v1/embeddings", { method: "POST", json: { input: "x" } });
  assertEquals(v1.status, 404);
  const openai = (await v1.json()).error;
  assertEquals([typeof openai.message, openai.type, openai.code], [
    "string",
    "invalid_request_error",
    "not_found",
  ]);
  const mcp = await api.call("/mcp/tools", { method: "POST", json: {} });
  assertEquals(mcp.status, 404);
  const rpc = await mcp.json();
  assertEquals([rpc.jsonrpc, rpc.error.code, rpc.id], ["2.0", -32000, null]);
});

Deno.test("/mcp answers params that do not fit the method with Invalid params, not Internal error", async (t) => {
  await using api = await tempApi(YAML);
  const call = async (method: string, params: unknown) => {
    const response = await api.call("/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 7, method, params },
    });
    assertEquals(response.status, 200);
    return (await response.json()) as { error?: { code: number; message: string } };
  };
  for (
    const [method, params] of [
      ["tools/call", { name: "search_memory", arguments: "text" }],
      ["tools/call", { arguments: {} }],
      ["resources/read", { uri: 42 }],
      ["resources/read", { uri: "hob://memory/%ff" }],
      ["prompts/get", {}],
      ["initialize", { protocolVersion: 1 }],
      ["logging/setLevel", { level: "loud" }],
    ] as const
  ) {
    await t.step(`${method} ${JSON.stringify(params)}`, async () => {
      const { error } = await call(method, params);
      assertEquals(error?.code, -32602, JSON.stringify(error));
    });
  }
  await t.step("a fitting call still works", async () => {
    const answer = await call("tools/call", { name: "search_memory", arguments: { query: "x" } });
    assertEquals(answer.error, undefined);
  });
});

Deno.test("a priority SQLite cannot hand back is refused, so the task queue stays readable", async () => {
  await using api = await tempApi(YAML);
  const form = await api.call("/ui/tasks", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "title=t&priority=9007199254740993",
  });
  assertEquals(form.status, 422);
  assertMatch(await form.text(), /priority is from -1000 to 1000/);
  assertThrows(
    () => api.runtime.background.tasks.add({ title: "t", prompt: "p", priority: 2 ** 53 }),
    TaskError,
    "priority must be an integer from -1000 to 1000",
  );
  const list = await api.call("/api/tasks");
  assertEquals(list.status, 200);
  assertEquals((await list.json()).tasks, []);
});
