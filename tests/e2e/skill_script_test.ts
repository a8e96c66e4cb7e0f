/**
 * A skill's script run by hob as shipped (`hob serve` with deno.json's flags,
 * never --allow-all) through the REST API: it gets its arguments and its own
 * files, and not HOME/token, whatever hob itself may read.
 */

import { join } from "node:path";
import { openRuntime } from "../../src/runtime/runtime.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";
import { installProbe } from "../helpers/skill_probe.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

Deno.test("hob serve runs a skill's script without hob's permissions: HOME/token stays unread", async () => {
  await using home = await tempHome(YAML);
  {
    const runtime = await openRuntime({ home: home.home, env: {} });
    try {
      await installProbe(runtime.app, []);
    } finally {
      await runtime.close();
    }
  }
  await using hob = await startHob(home.home);
  const invoke = async (args: Record<string, unknown>) => {
    const response = await hob.fetch("/api/tools/run_skill_script/invoke", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ args: { skill: "probe", ...args } }),
    });
    assertEquals(response.status, 200);
    return await response.json() as { content: string; is_error: boolean };
  };

  const echoed = await invoke({ script: "scripts/echo.ts", args: ["from", "the API"] });
  assertEquals(echoed.is_error, false, echoed.content);
  assertMatch(echoed.content, /"args":\["from","the API"\],"ref":"the reference text"/);

  const read = await invoke({
    script: "scripts/read.ts",
    args: [join(home.home, "token"), "../token"],
  });
  assertEquals(read.is_error, false, read.content);
  assertEquals(read.content.includes(home.token), false, "the token leaked");
  assertEquals(read.content.match(/^DENIED .* NotCapable /gm)?.length, 2, read.content);
  assertEquals(read.content.includes("READ"), false, read.content);
  assertMatch(read.content, /^DENIED env NotCapable$/m);
  // hob asked for no permission beyond its flags on the way.
  assertEquals(await hob.stop(), 0);
});
