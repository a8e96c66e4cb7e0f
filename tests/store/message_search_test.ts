/**
 * Full-text search over stored messages (schema 10): what is indexed and
 * when, the triggers keeping the index in step with edits, streamed drafts
 * and deletes, the backfill of a database from before, and the window of
 * messages around a hit. A real SQLite file each time.
 */

import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";
import { openDatabase } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { SqliteConversationStore } from "../../src/store/conversations.ts";
import { searchTerms, snippetOf } from "../../src/store/message_search.ts";
import { untrusted } from "../../src/core/untrusted.ts";
import type { DatabaseSync } from "node:sqlite";

const ids = (hits: { message_id: number }[]) => hits.map((hit) => hit.message_id);

/** FTS5's own check that the index holds exactly what the content table does. */
function assertIndexIntact(db: DatabaseSync): void {
  db.exec("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)");
}

Deno.test("SqliteConversationStore.searchMessages finds what was said, where", async (t) => {
  using s = tempStore();
  const { store } = s;
  const trip = store.createConversation({ title: "Kyoto trip" });
  const asked = store.addMessage({
    conversation_id: trip.id,
    role: "user",
    content: "Which hotel did we pick in Kyoto?",
  });
  const answered = store.addMessage({
    conversation_id: trip.id,
    role: "assistant",
    content: "The Ryokan Sawaya, near the Kamo river.",
  });
  const read = store.addMessage({
    conversation_id: trip.id,
    role: "tool",
    tool_name: "fetch_url",
    tool_call_id: "c1",
    content: untrusted("fetch_url: https://sawaya.example", "Sawaya: rooms from 12,000 yen"),
  });
  const other = store.createConversation({ title: "Groceries" });
  const list = store.addMessage({
    conversation_id: other.id,
    role: "user",
    content: "Buy rice and miso; the hotel breakfast was miso soup",
  });

  await t.step("user text, hob's replies and tool results, with their places", () => {
    const [hit] = store.searchMessages("sawaya", { role: "assistant" });
    assertEquals(hit.message_id, answered.id);
    assertEquals(
      [hit.conversation_id, hit.title, hit.kind, hit.position, hit.role],
      [trip.id, "Kyoto trip", "chat", 2, "assistant"],
    );
    assertEquals(ids(store.searchMessages("sawaya")).sort(), [answered.id, read.id].sort());
    const [tool] = store.searchMessages("yen");
    assertEquals([tool.message_id, tool.tool_name, tool.position], [read.id, "fetch_url", 3]);
    assertStringIncludes(tool.snippet, '<untrusted source="fetch_url: https://sawaya.example">');
  });
  await t.step("stems match: hotels finds hotel", () => {
    assertEquals(ids(store.searchMessages("hotels")).sort(), [asked.id, list.id].sort());
  });
  await t.step("all the terms when some message has them, else any", () => {
    assertEquals(ids(store.searchMessages("hotel kyoto")), [asked.id]);
    assertEquals(ids(store.searchMessages("kamo miso")).sort(), [answered.id, list.id].sort());
  });
  await t.step("a conversation named, one left out, a limit", () => {
    assertEquals(ids(store.searchMessages("hotel", { conversationId: other.id })), [list.id]);
    assertEquals(ids(store.searchMessages("hotel", { excludeConversationId: trip.id })), [list.id]);
    assertEquals(store.searchMessages("hotel", { limit: 1 }).length, 1);
  });
  await t.step("a query of stop words or FTS syntax finds nothing and does not throw", () => {
    assertEquals(store.searchMessages("what is the"), []);
    assertEquals(store.searchMessages('"'), []);
    assertEquals(ids(store.searchMessages('kyoto" AND NOT(*')), [asked.id]);
  });
  assertIndexIntact(s.db);
});

Deno.test("the message index follows edits, streamed replies and deletes", async (t) => {
  using s = tempStore();
  const { store } = s;
  const c = store.createConversation({ title: "Plans" });

  await t.step("a streamed reply is found by its final text, not by a draft's", () => {
    const draft = store.addMessage({
      conversation_id: c.id,
      role: "assistant",
      content: "",
      status: "streaming",
    });
    store.updateMessage(draft.id, { content: "Thinking about zucchini" });
    assertEquals(store.searchMessages("zucchini"), [], "a reply is not found while it streams");
    store.updateMessage(draft.id, { content: "Plant the courgettes in May", status: "complete" });
    assertEquals(ids(store.searchMessages("courgettes")), [draft.id]);
    assertEquals(store.searchMessages("zucchini"), []);
  });
  await t.step("an edited message is found by its new words only", () => {
    const note = store.addMessage({ conversation_id: c.id, role: "user", content: "tulips" });
    store.updateMessage(note.id, { content: "daffodils" });
    assertEquals(store.searchMessages("tulips"), []);
    assertEquals(ids(store.searchMessages("daffodils")), [note.id]);
  });
  await t.step("a reply a crash left streaming is indexed once recovered", () => {
    const left = store.addMessage({
      conversation_id: c.id,
      role: "assistant",
      content: "Half a sentence about dahlias",
      status: "streaming",
    });
    s.db.prepare("UPDATE messages SET owner = 'gone:1' WHERE id = ?").run(left.id);
    assertEquals(store.searchMessages("dahlias"), []);
    assertEquals(store.recoverInterrupted(), 1);
    assertEquals(ids(store.searchMessages("dahlias")), [left.id]);
  });
  await t.step("system rows are never found", () => {
    store.addMessage({ conversation_id: c.id, role: "system", content: "secret marigolds" });
    assertEquals(store.searchMessages("marigolds"), []);
  });
  await t.step("a deleted conversation's messages are gone from the index", () => {
    const gone = store.createConversation({ title: "Old" });
    store.addMessage({ conversation_id: gone.id, role: "user", content: "bonsai pruning" });
    store.addMessage({ conversation_id: gone.id, role: "assistant", content: "bonsai wiring" });
    assertEquals(store.searchMessages("bonsai").length, 2);
    assert(store.deleteConversation(gone.id));
    assertEquals(store.searchMessages("bonsai"), []);
    const left = s.db.prepare(
      "SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'bonsai'",
    )
      .get() as { n: number };
    assertEquals(left.n, 0, "the index itself lost them, not only the join");
  });
  assertIndexIntact(s.db);
});

Deno.test("schema 10 indexes the messages a database already had", () => {
  const dir = Deno.makeTempDirSync({ prefix: "hob-fts-" });
  try {
    const path = `${dir}/hob.db`;
    const before = openDatabase(path, { migrations: MIGRATIONS.filter((m) => m.version < 10) });
    const old = new SqliteConversationStore(before);
    const c = old.createConversation({ title: "Last year" });
    const kept = old.addMessage({ conversation_id: c.id, role: "user", content: "the blue kayak" });
    before.close();

    const db = openDatabase(path);
    try {
      const store = new SqliteConversationStore(db);
      assertEquals(ids(store.searchMessages("kayak")), [kept.id]);
      assertIndexIntact(db);
    } finally {
      db.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("SqliteConversationStore.messageWindow reads around a message", async (t) => {
  using s = tempStore();
  const { store } = s;
  const c = store.createConversation({ title: "Long" });
  const messages = Array.from(
    { length: 10 },
    (_, i) => store.addMessage({ conversation_id: c.id, role: "user", content: `line ${i + 1}` }),
  );
  const other = store.createConversation({});
  const elsewhere = store.addMessage({ conversation_id: other.id, role: "user", content: "x" });

  await t.step("before, the message itself and after, with positions", () => {
    const window = store.messageWindow(c.id, { messageId: messages[4].id }, 2, 1)!;
    assertEquals(window.map((m) => [m.position, m.content]), [
      [3, "line 3"],
      [4, "line 4"],
      [5, "line 5"],
      [6, "line 6"],
    ]);
  });
  await t.step("by position, clipped at both ends", () => {
    assertEquals(store.messageWindow(c.id, { position: 2 }, 5, 0)!.map((m) => m.position), [1, 2]);
    assertEquals(store.messageWindow(c.id, { position: 10 }, 0, 5)!.map((m) => m.position), [10]);
    assertEquals(store.messageWindow(c.id, {}, 0, 1)!.map((m) => m.position), [1, 2]);
  });
  await t.step("a message of another conversation, or past the end, is none", () => {
    assertEquals(store.messageWindow(c.id, { messageId: elsewhere.id }, 1, 1), undefined);
    assertEquals(store.messageWindow(c.id, { position: 11 }, 1, 1), undefined);
    assertEquals(store.messageWindow("nope", {}, 1, 1), undefined);
  });
});

Deno.test("searchTerms and snippetOf", async (t) => {
  await t.step("terms: lower-cased, no stop words, no single letters, deduplicated", () => {
    assertEquals(searchTerms("What did we say about the Kyoto hotel? Kyoto!"), [
      "say",
      "about",
      "kyoto",
      "hotel",
    ]);
    assertEquals(searchTerms("a 2 b"), ["2"]);
  });
  await t.step("a snippet is cut around the first term, labels kept whole", () => {
    const text = `${"filler ".repeat(100)}${untrusted("web", `${"page ".repeat(80)}the hotel`)}`;
    const snippet = snippetOf(text, ["hotel"]);
    assertStringIncludes(snippet, "the hotel");
    assertStringIncludes(snippet, '<untrusted source="web">');
    assert(snippet.length < 400, `${snippet.length}`);
  });
});
