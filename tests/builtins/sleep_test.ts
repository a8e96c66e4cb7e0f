/** The sleep tool, run through the registry in a real Worker: it waits, refuses bad waits, and stops with the turn. */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import type { ToolRegistryPort } from "../../src/core/ports.ts";
import type { AgentEvent, ToolResult } from "../../src/core/types.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";
import { tempRegistry } from "../helpers/tools.ts";

type R = Awaited<ReturnType<typeof tempRegistry>>;
const sleep = (r: R, args: unknown, signal?: AbortSignal) =>
  r.registry.execute({ id: "1", name: "sleep", arguments: JSON.stringify(args) }, {
    conversation_id: null,
    signal,
  });

Deno.test("sleep waits the time it is asked, and no less", async () => {
  await using r = await tempRegistry();
  const started = performance.now();
  const result = await sleep(r, { seconds: 1 });
  assertEquals(result, { content: "Slept 1 s.", is_error: false });
  assert(performance.now() - started >= 1000, "returned before the second was up");
});

Deno.test("sleep refuses no wait and more than an hour, saying the bounds", async () => {
  await using r = await tempRegistry();
  const zero = await sleep(r, { seconds: 0 });
  assert(zero.is_error);
  assertMatch(zero.content, /Invalid arguments for sleep: seconds: sleep waits at least 1 second/);
  const long = await sleep(r, { seconds: 3601 });
  assert(long.is_error);
  assertMatch(long.content, /seconds: sleep waits at most 3600 seconds \(an hour\)/);
});

Deno.test("the call's abort ends an hour's sleep at once", async () => {
  await using r = await tempRegistry();
  const stop = new AbortController();
  const call = sleep(r, { seconds: 3600 }, stop.signal);
  // Give the Worker a moment to start sleeping; the outcome says whether the stop ended it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop.abort();
  const result = await call;
  assert(result.is_error);
  assertMatch(result.content, /stopped/i);
  assert(!/Slept/.test(result.content));
});

Deno.test("the turn's stop reaches the agent's sleep: it ends stopped, and the turn interrupted", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ tool_calls: [{ name: "sleep", arguments: { seconds: 3600 } }] }],
  });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const registry = env.runtime.toolbox.registry;
  const stop = new AbortController();
  let result: Promise<ToolResult> | undefined;
  // The real registry, watched: the stop comes once the sleep is under way.
  const watched: ToolRegistryPort = {
    specs: () => registry.specs(),
    execute(call, context) {
      result = registry.execute(call, context);
      setTimeout(() => stop.abort(), 300);
      return result;
    },
  };
  const events: AgentEvent[] = [];
  const turn = env.runtime.turn({ message: "wait an hour", signal: stop.signal }, watched);
  for await (const event of turn) events.push(event);
  assert(result, "the sleep was called");
  const outcome = await result;
  assert(outcome.is_error, "the sleep did not finish");
  assertMatch(outcome.content, /stopped/i);
  const done = events.at(-1);
  assert(done?.type === "done");
  assertEquals(done.status, "interrupted");
  assertEquals(fake.requests.length, 1, "no model call after the stop");
});
