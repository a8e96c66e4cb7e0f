/**
 * Matrix end to end: a real runtime answering through matrix-js-sdk's
 * client against a stand-in homeserver (tests/fakes/matrix_server.ts) and a
 * fake model on 127.0.0.1: direct chats, rooms where hob answers only when
 * mentioned, threads, invitations, strangers, and a restart.
 */

import { openRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import { type FakeMatrix, startFakeMatrix } from "../fakes/matrix_server.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";

const OWNER = "@ada:test";
const DM = "!dm:test";
const ROOM = "!team:test";

function matrixYaml(matrix: FakeMatrix): string {
  return `channels:
  matrix:
    homeserver: "${matrix.url}"
    user_id: "${matrix.userId}"
    access_token: "${matrix.token}"
    allow_from: ["${OWNER}"]
    poll_timeout_s: 1
`;
}

async function serving(home: string): Promise<Runtime> {
  const runtime = await openRuntime({ home, env: {}, log: () => {} });
  runtime.channels.start();
  // Connected, and past the first sync that marks where now is.
  const deadline = Date.now() + 20_000;
  while (!runtime.db.prepare("SELECT 1 FROM kv WHERE key = 'channel.cursor.matrix'").get()) {
    if (Date.now() > deadline) throw new Error(JSON.stringify(runtime.channels.states()));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return runtime;
}

const bodies = (matrix: FakeMatrix, room: string) =>
  matrix.sentTo(room).map((event) => String(event.content.body));

Deno.test("Matrix: direct chats answered, rooms only when mentioned, in their threads", async () => {
  await using model = startFakeOpenAI({ fallback: { text: "Hello from hob" } });
  await using matrix = startFakeMatrix();
  // History from before hob started is not answered.
  matrix.room(DM, 2);
  matrix.push(DM, { sender: OWNER, body: "an old message" });
  await using home = await tempHome(fakeProviderYaml(model.url, matrixYaml(matrix)));
  const runtime = await serving(home.home);
  try {
    const asked = matrix.push(DM, { sender: OWNER, body: "hi" });
    await matrix.until(() => matrix.sentTo(DM).length === 1, "the reply in the direct chat");
    const [reply] = matrix.sentTo(DM);
    assertEquals(reply.content.body, "Hello from hob");
    assertEquals(reply.content["m.relates_to"], { "m.in_reply_to": { event_id: asked } });
    assert(matrix.typing.includes(DM));
    assertEquals(model.requests.length, 1);

    // A room of five: talk among others is not for hob; a mention is, and in its thread.
    // A notice (what bots send) is never answered, even from the owner in a direct chat.
    matrix.push(DM, { sender: OWNER, body: "Daily digest: 3 items", msgtype: "m.notice" });
    matrix.room(ROOM, 5);
    matrix.push(ROOM, { sender: OWNER, body: "lunch at noon, everyone?" });
    // Someone else talking in the room, not to hob: not a stranger to list, just talk.
    matrix.push(ROOM, { sender: "@carol:test", body: "yes, noon works" });
    matrix.push(ROOM, { sender: "@bob:test", body: "@hob:test who are you?" });
    const root = matrix.push(ROOM, { sender: OWNER, body: "plans" });
    const inThread = matrix.push(ROOM, {
      sender: OWNER,
      body: "hob, what is the plan?",
      thread: root,
      mentions: ["@hob:test"],
    });
    await matrix.until(() => matrix.sentTo(ROOM).length === 1, "the reply in the room");
    assertEquals(matrix.sentTo(ROOM)[0].content["m.relates_to"], {
      rel_type: "m.thread",
      event_id: root,
      is_falling_back: true,
      "m.in_reply_to": { event_id: inThread },
    });
    assertEquals(model.requests.length, 2);
    assertEquals(matrix.sentTo(DM).length, 1, "the notice was not answered");
    // Bob mentioned hob but nobody allowed him: listed, not answered.
    const [bob] = runtime.app.channels.strangers({ channel: "matrix" });
    assertEquals([bob.sender_id, bob.chat_id], ["@bob:test", ROOM]);
    const state = runtime.channels.states()[0];
    assertEquals([state.name, state.state, state.account], ["matrix", "connected", "@hob:test"]);
  } finally {
    await runtime.close();
  }
});

Deno.test("Matrix: invitations from the owner are joined, others not; a restart answers once", async () => {
  // Not "Noted": a reply claiming a save no memory tool made is nudged (src/core/save_claim.ts).
  await using model = startFakeOpenAI({ fallback: { text: "Seen" } });
  await using matrix = startFakeMatrix();
  await using home = await tempHome(fakeProviderYaml(model.url, matrixYaml(matrix)));
  let runtime = await serving(home.home);
  matrix.invite("!spam:test", "@mallory:test");
  matrix.invite("!family:test", OWNER);
  await matrix.until(() => matrix.joined.length === 1, "the join");
  assertEquals(matrix.joined, ["!family:test"]);
  matrix.room(DM, 2);
  matrix.push(DM, { sender: OWNER, body: "one" });
  await matrix.until(() => matrix.sentTo(DM).length === 1, "the first reply");
  await runtime.close();
  matrix.push(DM, { sender: OWNER, body: "two, while hob was down" });
  runtime = await serving(home.home);
  try {
    await matrix.until(() => matrix.sentTo(DM).length === 2, "the reply after the restart");
    assertEquals(bodies(matrix, DM), ["Seen", "Seen"]);
    assertEquals(model.requests.length, 2);
  } finally {
    await runtime.close();
  }
});
