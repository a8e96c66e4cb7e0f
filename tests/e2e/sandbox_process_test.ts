/**
 * Code hob did not write, against a real `hob serve`: run_code's Deno.exit and
 * heap bomb, and a user tool that exits, each end only their own tool process —
 * the one hob process started answers its health check after every one.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";

async function invoke(hob: HobServer, name: string, args: Record<string, unknown>) {
  const response = await hob.fetch(`/api/tools/${name}/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ args }),
  });
  assertEquals(response.status, 200);
  const { content, is_error } = await response.json() as { content: string; is_error: boolean };
  return { content, is_error };
}

/** hob answers its health check: had a tool taken it down, the request would fail. */
async function assertHealthy(hob: HobServer): Promise<void> {
  const response = await hob.fetch("/api/health");
  assertEquals(response.status, 200);
  assertEquals((await response.json()).ok, true);
}

Deno.test("hob serve outlives run_code's Deno.exit and heap bomb, and a user tool's exit", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url));
  await Deno.writeTextFile(
    `${home.home}/tools/quitter.ts`,
    `export default {
      name: "quitter", description: "Exits", category: "test", side_effect: "none",
      parameters: { type: "object", properties: {} },
      run() { Deno.exit(5); },
    };`,
  );
  await using hob = await startHob(home.home);
  await assertHealthy(hob);

  const exit = await invoke(hob, "run_code", { code: "console.log('bye'); Deno.exit(7);" });
  assertEquals(exit, { content: "run_code exited with code 7", is_error: true });
  await assertHealthy(hob);

  const bomb = await invoke(hob, "run_code", {
    code: "const a = []; for (;;) a.push(new Array(1e6));",
    timeout: 60,
  });
  assert(bomb.is_error, bomb.content);
  assertMatch(bomb.content, /^run_code ran out of memory \(memory cap \d+ MB\)$/);
  await assertHealthy(hob);

  const quitter = await invoke(hob, "quitter", {});
  assertEquals(quitter, { content: "quitter exited with code 5", is_error: true });
  await assertHealthy(hob);

  const fine = await invoke(hob, "run_code", { code: "export default 6 * 7" });
  assertEquals(fine, { content: "default export: 42", is_error: false });
});
