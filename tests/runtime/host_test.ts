/** The hob services tools reach from their Workers: the model, sub-agents and skills — through whole turns. */

import { unmark } from "../helpers/tools.ts";
import { collectReply } from "../../src/core/reply.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("analyze_image sends the image to the conversation's model", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          name: "analyze_image",
          arguments: { path: "dot.png", question: "What colour?" },
        }],
      },
      { text: "A single red pixel." },
      { text: "It is a red pixel." },
    ],
  });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  await Deno.writeFile(`${env.runtime.toolbox.scope.workspace}/dot.png`, PNG);
  await t.step("as image content, and the answer comes back as the tool's result", async () => {
    const reply = await collectReply(env.runtime.turn({ message: "look at dot.png" }));
    assertEquals(unmark(reply.tool_calls[0].result!), "A single red pixel.");
    assertEquals(reply.content, "It is a red pixel.");
    const vision = fake.requests[1].body.messages as { role: string; content: unknown }[];
    const content = vision.at(-1)!.content as {
      type: string;
      text?: string;
      image_url?: { url: string };
    }[];
    assertEquals(content[0], { type: "text", text: "What colour?" });
    assertEquals(content[1].type, "image_url");
    assertMatch(content[1].image_url!.url, /^data:image\/png;base64,iVBORw0KGgo/);
    // The tool's model call is counted as the tool's.
    const byTool = (await env.runtime.app.usage.report({ by: "tool" })).groups;
    assertEquals(byTool.find((g) => g.key === "analyze_image")?.calls, 1);
    const byKind = (await env.runtime.app.usage.report({ by: "kind" })).groups;
    assertEquals(byKind.find((g) => g.key === "tool")?.calls, 1);
  });
  await t.step("a BMP goes to the model as PNG", async () => {
    const bmp =
      "Qk1GAAAAAAAAADYAAAAoAAAAAgAAAAIAAAABABgAAAAAABAAAAATCwAAEwsAAAAAAAAAAAAAAAD/AAD/AAAAAP8AAP8AAA==";
    await Deno.writeFile(
      `${env.runtime.toolbox.scope.workspace}/red.bmp`,
      Uint8Array.from(atob(bmp), (c) => c.charCodeAt(0)),
    );
    fake.enqueue({ tool_calls: [{ name: "analyze_image", arguments: { path: "red.bmp" } }] }, {
      text: "red",
    }, { text: "ok" });
    const reply = await collectReply(env.runtime.turn({ message: "look at red.bmp" }));
    assertEquals(unmark(reply.tool_calls[0].result!), "red");
    const sent = fake.requests.at(-2)!.body.messages as {
      content: { image_url?: { url: string } }[];
    }[];
    const url = sent.at(-1)!.content[1].image_url!.url;
    assertMatch(url, /^data:image\/png;base64,/);
    const { PNG } = await import("pngjs");
    const { Buffer } = await import("node:buffer");
    const png = PNG.sync.read(Buffer.from(url.split(",")[1], "base64"));
    assertEquals([png.width, png.height], [2, 2]);
    assertEquals([...png.data.subarray(0, 4)], [255, 0, 0, 255]);
  });
  await t.step("a model without vision gives a clear error", async () => {
    fake.enqueue(
      { tool_calls: [{ name: "analyze_image", arguments: { path: "dot.png" } }] },
      { status: 400, message: "this model does not support image input" },
      { text: "I cannot see images." },
    );
    const reply = await collectReply(env.runtime.turn({ message: "look again" }));
    assert(reply.tool_calls[0].is_error);
    assertMatch(
      reply.tool_calls[0].result!,
      /could not look at the image .*does not support image input.*no vision/,
    );
  });
  await t.step("not an image", async () => {
    await Deno.writeTextFile(`${env.runtime.toolbox.scope.workspace}/note.txt`, "hello");
    fake.enqueue({ tool_calls: [{ name: "analyze_image", arguments: { path: "note.txt" } }] }, {
      text: "ok",
    });
    const reply = await collectReply(env.runtime.turn({ message: "look at note.txt" }));
    assertMatch(reply.tool_calls[0].result!, /not a PNG, JPEG, GIF, WebP or BMP image/);
  });
});

Deno.test("spawn_agent runs a child agent in its own conversation and returns its answer", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          name: "spawn_agent",
          arguments: { task: "Add 2 and 3", context: "Use arithmetic." },
        }],
      },
      // The sub-agent tries to spawn another and is refused, then answers.
      { tool_calls: [{ name: "spawn_agent", arguments: { task: "deeper" } }] },
      { text: "The sum is 5." },
      { text: "The sub-agent says 5." },
    ],
  });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const reply = await collectReply(env.runtime.turn({ message: "delegate the sum" }));
  assertEquals(reply.content, "The sub-agent says 5.");
  assertMatch(reply.tool_calls[0].result!, /^The sum is 5\.\n\n\(sub-agent conversation [\w-]+\)$/);
  const subRequest = fake.requests[1].body.messages as { role: string; content: string }[];
  assertEquals(subRequest.at(-1)!.content, "Add 2 and 3\n\nContext:\nUse arithmetic.");
  assertEquals(
    subRequest.length,
    2,
    "the sub-agent sees only its task, not the parent conversation",
  );
  const refused = fake.requests[2].body.messages as { role: string; content: string }[];
  assertMatch(refused.at(-1)!.content, /A sub-agent cannot spawn further sub-agents/);
  const titles = env.runtime.conversations.listConversations({ kind: "all" }).map((c) => c.title);
  assert(titles.includes("Sub-agent: Add 2 and 3"), titles.join(", "));
  // The user's list of chats is not cluttered by them.
  const chats = env.runtime.conversations.listConversations().map((c) => [c.title, c.kind]);
  assert(chats.every(([, kind]) => kind === "chat"), JSON.stringify(chats));
  assertEquals(env.runtime.conversations.listConversations({ kind: "subagent" }).length, 1);
  // The sub-agent's two model calls are counted as a sub-agent's.
  const byKind = (await env.runtime.app.usage.report({ by: "kind" })).groups;
  assertEquals(byKind.find((g) => g.key === "subagent")?.calls, 2);
});

const GREET = `export default {
  name: "greet",
  description: "Greets someone and says the time",
  async run(input, skill) {
    const time = await skill.tool("get_time", { timezone: "UTC" });
    const line = await skill.model("Write a greeting for " + input);
    return line + " (" + time.split("\\n")[1] + ")";
  },
};`;

Deno.test("skills: the model builds one, the user runs it as /name, run_skill and list_skills see it", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          name: "build_skill",
          arguments: { name: "greet", description: "Greets", steps: GREET },
        }],
      },
      { text: "Built it." },
    ],
  });
  await using env = await tempRuntime(
    fakeProviderYaml(fake.url, "tools: { policies: { build_skill: allow } }"),
  );
  await t.step("build_skill writes and checks it", async () => {
    const reply = await collectReply(env.runtime.turn({ message: "make a greeting skill" }));
    assertEquals(
      reply.tool_calls[0].result,
      "Built the skill 'greet'. Run it with /greet <input> in chat, or run_skill.",
    );
    assertEquals(await Deno.readTextFile(`${env.home.home}/skills/greet.ts`), GREET);
  });
  await t.step(
    "/greet Ada runs it: a tool call and a model call, no turn of the model",
    async () => {
      fake.enqueue({ text: "Hello, Ada!" });
      const before = fake.requests.length;
      const reply = await collectReply(env.runtime.turn({ message: "/greet Ada" }));
      assertMatch(reply.content, /^Hello, Ada! \(UTC: \d{4}-\d\d-\d\dT/);
      assertEquals(fake.requests.length, before + 1, "one model call: the skill's own");
      const asked = fake.requests.at(-1)!.body.messages as { content: string }[];
      assertEquals(asked.at(-1)!.content, "Write a greeting for Ada");
      const events = env.runtime.toolbox.events.list(reply.conversation_id);
      assertEquals(events.map((e) => [e.tool, e.source]), [["get_time", "skill"], [
        "/greet",
        "skill",
      ]]);
      // The skill's model call is counted as the skill's, by its name.
      const bySkill = (await env.runtime.app.usage.report({ by: "tool" })).groups;
      assertEquals(bySkill.find((g) => g.key === "greet")?.calls, 1);
      const byKind = (await env.runtime.app.usage.report({ by: "kind" })).groups;
      assertEquals(byKind.find((g) => g.key === "skill")?.calls, 1);
    },
  );
  await t.step("list_skills and run_skill", async () => {
    fake.enqueue(
      {
        tool_calls: [{ id: "l", name: "list_skills", arguments: {} }, {
          id: "r",
          name: "run_skill",
          arguments: { name: "greet", input: "Bob" },
        }],
      },
      { text: "Hi Bob" },
      { text: "Done." },
    );
    const reply = await collectReply(env.runtime.turn({ message: "what skills?" }));
    // The skill built here, and the one every home starts with.
    const listed = reply.tool_calls[0].result!.split("\n");
    assert(listed.includes("/greet — Greets someone and says the time"), listed.join("\n"));
    assert(listed.some((line) => line.startsWith("/press_release — Write 2 press releases")));
    assertStringIncludes(reply.tool_calls[1].result!, "Hi Bob (UTC:");
  });
  await t.step("an unknown /command is an ordinary message", async () => {
    fake.enqueue({ text: "No such command, but hi." });
    const reply = await collectReply(env.runtime.turn({ message: "/nothing here" }));
    assertEquals(reply.content, "No such command, but hi.");
  });
  await t.step("build_skill refuses to overwrite", async () => {
    fake.enqueue(
      {
        tool_calls: [{
          name: "build_skill",
          arguments: { name: "greet", description: "again", steps: GREET },
        }],
      },
      { text: "ok" },
    );
    const reply = await collectReply(env.runtime.turn({ message: "again" }));
    assertMatch(reply.tool_calls[0].result!, /A skill named 'greet' exists already/);
  });
});
