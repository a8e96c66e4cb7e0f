import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { collectReply } from "../../src/core/reply.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

/** The names of the tools a request to the fake offered. */
function offered(body: Record<string, unknown>): string[] {
  return (body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
}

Deno.test("a turn with relevant tools finds a tool outside its first offer, then calls it", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      // A small model reaches for a tool it was not offered, as text: refused, not run.
      {
        text: '<tool_call>{"name": "read_csv", "arguments": {"path": "spending.csv"}}</tool_call>',
      },
      { tool_calls: [{ name: "find_tools", arguments: { query: "read a CSV spreadsheet" } }] },
      { tool_calls: [{ name: "read_csv", arguments: { path: "spending.csv" } }] },
      { text: "You spent 30 on rent." },
    ],
  });
  await using env = await tempRuntime(
    fakeProviderYaml(fake.url, "memory: { embedder: none }\ntools: { offer: relevant }"),
  );
  const { runtime } = env;
  await Deno.writeTextFile(
    `${env.home.home}/workspace/spending.csv`,
    "item,amount\nrent,30\nfood,12\n",
  );
  const turn = await collectReply(runtime.turn({ message: "How much did I spend on rent?" }));

  const [first, afterRefusal, afterFind] = fake.requests.map((request) => offered(request.body));
  assert(!first.includes("read_csv"), `read_csv was offered at first: ${first}`);
  for (const name of ["find_tools", "get_time", "search_memory", "remember_this"]) {
    assert(first.includes(name), `${name} is always offered`);
  }
  assertEquals(afterRefusal, first);
  assert(afterFind.includes("read_csv"), "find_tools offered read_csv");
  assertEquals(turn.tool_calls.map((call) => [call.name, call.is_error]), [
    ["read_csv", true],
    ["find_tools", false],
    ["read_csv", false],
  ]);
  assertMatch(turn.tool_calls[0].result!, /^Not run: 'read_csv' was not offered in this turn/);
  assertStringIncludes(turn.tool_calls[1].result!, "- read_csv (");
  assertStringIncludes(turn.tool_calls[2].result!, "rent");
  assertEquals(turn.content, "You spent 30 on rent.");

  // The next turn of the conversation offers the tool it used from the start.
  fake.enqueue({ text: "Food was 12." });
  await collectReply(
    runtime.turn({ message: "And on food?", conversation_id: turn.conversation_id }),
  );
  assert(offered(fake.requests.at(-1)!.body).includes("read_csv"), "a recently used tool stays");
});

Deno.test("a turn with all tools offers every tool and no find_tools", async () => {
  await using fake = startFakeOpenAI({ replies: [{ text: "Hi." }] });
  await using env = await tempRuntime(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await collectReply(env.runtime.turn({ message: "How much did I spend on rent?" }));
  const names = offered(fake.requests[0].body);
  assertEquals(names.length, env.runtime.toolbox.registry.specs().length);
  assert(names.includes("read_csv") && !names.includes("find_tools"), names.join(" "));
});
