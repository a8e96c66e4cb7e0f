import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../helpers/assert.ts";
import { SqliteConversationStore } from "../../src/store/conversations.ts";
import { tempStore } from "../helpers/store.ts";

Deno.test("SqliteConversationStore keeps conversations and messages", async (t) => {
  using s = tempStore();
  const { store } = s;

  await t.step("lists conversations by recent activity, with counts", () => {
    const a = store.createConversation({ title: "Alpha plans" });
    const b = store.createConversation({ title: "Beta 100%_done" });
    store.addMessage({ conversation_id: a.id, role: "user", content: "newest activity" });
    const list = store.listConversations();
    assertEquals(list.map((c) => [c.title, c.message_count]), [["Alpha plans", 1], [
      "Beta 100%_done",
      0,
    ]]);
    assertEquals(store.listConversations({ limit: 1, offset: 1 }).map((c) => c.id), [b.id]);
  });
  await t.step("searches titles case-insensitively, taking % and _ literally", () => {
    assertEquals(store.listConversations({ query: "alpha" }).map((c) => c.title), ["Alpha plans"]);
    assertEquals(store.listConversations({ query: "100%_" }).map((c) => c.title), [
      "Beta 100%_done",
    ]);
    assertEquals(store.listConversations({ query: "%" }).map((c) => c.title), ["Beta 100%_done"]);
  });
  await t.step("stores tool calls and results with their ids", () => {
    const c = store.createConversation({});
    const calls = [{ id: "call_1", name: "get_time", arguments: "{}" }];
    const assistant = store.addMessage({
      conversation_id: c.id,
      role: "assistant",
      content: "",
      tool_calls: calls,
    });
    store.addMessage({
      conversation_id: c.id,
      role: "tool",
      content: "noon",
      tool_call_id: "call_1",
      tool_name: "get_time",
      is_error: true,
    });
    const [first, second] = store.listMessages(c.id);
    assertEquals(first.id, assistant.id);
    assertEquals(first.tool_calls, calls);
    assertEquals([second.tool_call_id, second.tool_name, second.is_error], [
      "call_1",
      "get_time",
      true,
    ]);
    assertEquals(store.listMessages(c.id, { after: first.id }).map((m) => m.id), [second.id]);
    assertEquals(store.recentMessages(c.id, 1).map((m) => m.id), [second.id]);
  });
  await t.step("deleting a conversation deletes its messages", () => {
    const c = store.createConversation({});
    store.addMessage({ conversation_id: c.id, role: "user", content: "bye" });
    assertEquals(store.deleteConversation(c.id), true);
    assertEquals(store.deleteConversation(c.id), false);
    const left = s.db.prepare("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?").get(
      c.id,
    );
    assertEquals({ ...left }, { n: 0 });
  });
});

Deno.test("SqliteConversationStore.recoverInterrupted marks only replies of dead processes", () => {
  using s = tempStore();
  const c = s.store.createConversation({});
  const mine = s.store.addMessage({
    conversation_id: c.id,
    role: "assistant",
    content: "mine",
    status: "streaming",
  });
  const insert = s.db.prepare(
    "INSERT INTO messages (conversation_id, role, content, status, owner, created_at) VALUES (?, 'assistant', ?, 'streaming', ?, '')",
  );
  // A pid far above pid_max (4194304) cannot be running.
  const dead = Number(insert.run(c.id, "crashed", "99999999:gone").lastInsertRowid);
  // pid 1 always runs; another process's reply must be left alone.
  const alive = Number(insert.run(c.id, "busy", "1:other").lastInsertRowid);

  // A reply of this process's pid under an earlier process (pid reuse after a crash) is dead too.
  const reused = Number(insert.run(c.id, "reused", `${Deno.pid}:earlier-run`).lastInsertRowid);

  // Recovery as a second connection sees it, e.g. a `hob ask` beside a running server.
  const connection = new DatabaseSync(s.path);
  assertEquals(new SqliteConversationStore(connection).recoverInterrupted(), 2);
  connection.close();
  const status = (id: number) =>
    (s.db.prepare("SELECT status FROM messages WHERE id = ?").get(id) as { status: string }).status;
  assertEquals(status(dead), "interrupted");
  assertEquals(status(reused), "interrupted");
  assertEquals(status(alive), "streaming");
  assertEquals(status(mine.id), "streaming");
  assertEquals(s.store.listMessages(c.id).find((m) => m.id === dead)?.content, "crashed");
});
