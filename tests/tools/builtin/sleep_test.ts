/** The sleep tool, run through the registry in a real Worker: it waits, refuses bad waits, and stops with the turn. */

import { assert, assertEquals, assertMatch } from "../../helpers/assert.ts";
import { tempRegistry } from "../../helpers/tools.ts";

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

Deno.test("stopping the turn ends an hour's sleep at once", async () => {
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
