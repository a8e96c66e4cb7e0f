/** Who a tool's write is by, as the file history records it. */

import { assertEquals } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";
import { writtenBy } from "../../src/runtime/services.ts";

Deno.test("a write in a job's or the heartbeat's turn is the job's; in a chat, the agent's; direct calls, their caller's", async () => {
  await using env = await tempRuntime("memory: { embedder: none }\n");
  const { store } = env.runtime;
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
