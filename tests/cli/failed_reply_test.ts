/**
 * A turn whose provider failed keeps a reply saying why, and the terminal's
 * view of a conversation shows it: `hob task show` lists the failed reply's
 * error after the task's prompt, in text and in `--json`.
 */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";

Deno.test("hob task show lists a failed reply with its error", async () => {
  await using fake = startFakeOpenAI({ fallback: { status: 500, message: "the fake broke" } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const add = await runHob(["task", "add", "Tidy up", "--home", home.home]);
  assertEquals(add.code, 0, add.stderr);
  const id = /\d+/.exec(add.stdout)![0];
  const worker = await runHob(["worker", "--once", "--home", home.home]);
  assertEquals(worker.code, 0, worker.stderr);

  const show = await runHob(["task", "show", id, "--home", home.home]);
  assertEquals(show.code, 0, show.stderr);
  assertMatch(show.stdout, /assistant\s+failed: provider 'fake' failed with 500: the fake broke/);

  const json = await runHob(["task", "show", id, "--json", "--home", home.home]);
  const { messages } = JSON.parse(json.stdout);
  const failed = messages.find((m: { role: string }) => m.role === "assistant");
  assertEquals([failed.status, failed.error.code], ["error", "provider_error"]);
});
