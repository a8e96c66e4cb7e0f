/**
 * `GET /api/usage` through the real API and runtime: the calls of `/v1` and of
 * MCP's `ask_hob` counted under their own kinds, to the token the fake
 * provider reported; bad query values a 400 naming the field.
 */

import { connect } from "../../src/page/client.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempApi } from "../helpers/api.ts";
import { assertEquals } from "../helpers/assert.ts";
import { fakeProviderYaml } from "../helpers/home.ts";

Deno.test("GET /api/usage counts the calls of /v1 and MCP under their kinds", async (t) => {
  await using fake = startFakeOpenAI({
    fallback: {
      text: "Hello",
      usage: { prompt_tokens: 300, completion_tokens: 20, cached_tokens: 256 },
    },
  });
  await using api = await tempApi(fakeProviderYaml(fake.url));

  const v1 = await api.call("/v1/chat/completions", {
    method: "POST",
    json: { model: "hob", messages: [{ role: "user", content: "hi" }] },
  });
  assertEquals(v1.status, 200, await v1.clone().text());
  await v1.body?.cancel();
  const mcp = await api.call("/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream" },
    json: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ask_hob", arguments: { message: "hello" } },
    },
  });
  assertEquals((await mcp.json()).result.isError, undefined);

  await t.step("by kind, to the token", async () => {
    const response = await api.call("/api/usage?by=kind&since=7d");
    assertEquals(response.status, 200);
    const report = await response.json();
    const byKind = Object.fromEntries(
      report.groups.map((g: { key: string; input_tokens: number; cached_tokens: number }) => [
        g.key,
        [g.input_tokens, g.cached_tokens],
      ]),
    );
    assertEquals(byKind.v1, [300, 256]);
    assertEquals(byKind.mcp, [300, 256]);
    const reported = fake.reported.reduce((n, u) => n + u.prompt_tokens, 0);
    assertEquals(report.totals.input_tokens, reported);
    assertEquals(report.totals.calls, fake.reported.length);
    assertEquals(report.days.length, 1);
  });

  await t.step("the script client reads the same report", async () => {
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      api.http.fetch,
    );
    const hob = connect({ url: `http://127.0.0.1:${server.addr.port}`, token: api.home.token });
    const usage = await hob.usage({ since: "7d", by: "kind" });
    assertEquals(usage, await (await api.call("/api/usage?by=kind&since=7d")).json());
  });

  await t.step("bad input is a 400 naming the field", async () => {
    for (const [query, field] of [["since=yesterday", "since"], ["by=colour", "by"]]) {
      const response = await api.call(`/api/usage?${query}`);
      assertEquals(response.status, 400);
      assertEquals((await response.json()).error.field, field);
    }
  });
});
