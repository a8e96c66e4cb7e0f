/** User tools in HOME/tools: checked in a sandbox, refused with a reason, reloaded when they change. */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";

const tool = (name: string, extra = "", body = `return "ok from ${name}";`) =>
  `export default {
  name: "${name}", description: "a test tool", category: "test", side_effect: "none",
  parameters: { type: "object", properties: { n: { type: "number" } } },
  ${extra}
  run(args, context) { ${body} },
};`;

Deno.test("user tools load at start, or are refused with the reason", async () => {
  await using fake = startFakeOpenAI();
  const yaml = fakeProviderYaml(fake.url, "tools: { user_tools: { net: [api.example.com] } }");
  await using env = await tempRuntime(yaml);
  const dir = `${env.home.home}/tools`;
  const files: Record<string, string> = {
    "good.ts": tool("good"),
    "net_ok.ts": tool("net_ok", `permissions: { net: ["api.example.com"] },`),
    "greedy.ts": tool("greedy", `permissions: { net: ["*"] },`),
    "reader.ts": tool("reader", `permissions: { read: ["/etc"] },`),
    "runner.ts": tool("runner", `permissions: { run: ["bash"] },`),
    "hosty.ts": tool("hosty", `services: ["agent"],`),
    "misnamed.ts": tool("other_name"),
    "read_file.ts": tool("read_file"),
    "syntax.ts": "export default {",
    "nothing.ts": "export const x = 1;",
    "bad_effect.ts": tool("bad_effect").replace('side_effect: "none"', 'side_effect: "huge"'),
  };
  for (const [name, source] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, source);
  }
  await env.runtime.toolbox.reload();

  const registry = env.runtime.toolbox.registry;
  assert(registry.get("good"), "good");
  assert(registry.get("net_ok"), "net_ok");
  assertEquals(registry.get("net_ok")!.permissions.net, ["api.example.com"]);
  const problems = Object.fromEntries(
    env.runtime.toolbox.problems().map((p) => [p.file.split("/").pop(), p.error]),
  );
  assertMatch(problems["greedy.ts"], /asks for net access to any host, which the user's policy/);
  assertMatch(problems["reader.ts"], /asks for read access to \/etc/);
  assertMatch(problems["runner.ts"], /asks for run access to bash/);
  assertMatch(problems["hosty.ts"], /user tools cannot use hob's services/);
  assertMatch(problems["misnamed.ts"], /defines 'other_name' but the file is named 'misnamed\.ts'/);
  assertMatch(problems["read_file.ts"], /a built-in tool is already named 'read_file'/);
  assertMatch(problems["syntax.ts"], /does not load/);
  assertMatch(problems["nothing.ts"], /exports no tool/);
  assertMatch(problems["bad_effect.ts"], /side_effect must be none, local or external/);
  assertEquals(Object.keys(problems).length, 9);
  // Refused tools are never offered to the model.
  assert(!registry.specs().some((s) => s.name === "greedy"));

  const result = await registry.execute(
    { id: "1", name: "good", arguments: '{"n": "not a number"}' },
    { conversation_id: null },
  );
  assert(result.is_error);
  assertMatch(result.content, /Invalid arguments for good: n: /);
});

Deno.test("user tools are reloaded when their files change", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { toolbox } = env.runtime;
  toolbox.watch();
  const file = `${env.home.home}/tools/live.ts`;
  const waitFor = async (check: () => boolean, what: string) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
    assert(check(), what);
  };
  await Deno.writeTextFile(file, tool("live"));
  await waitFor(() => toolbox.registry.get("live") !== undefined, "added");
  await Deno.writeTextFile(file, tool("live").replace("a test tool", "a changed tool"));
  await waitFor(() => toolbox.registry.get("live")?.description === "a changed tool", "changed");
  await Deno.remove(file);
  await waitFor(() => toolbox.registry.get("live") === undefined, "removed");
});

Deno.test("a user tool is inspected in a process once per content; the policy is checked at every load", async () => {
  await using fake = startFakeOpenAI();
  const yaml = fakeProviderYaml(fake.url, "tools: { user_tools: { net: [api.example.com] } }");
  await using env = await tempRuntime(yaml);
  const home = env.home.home;
  await Deno.writeTextFile(`${home}/tools/first.ts`, tool("first"));
  await Deno.writeTextFile(
    `${home}/tools/second.ts`,
    tool("second", `permissions: { net: ["api.example.com"] },`),
  );
  const { toolbox } = env.runtime;
  let inspected = 0;
  const exchange = toolbox.spawner.exchange.bind(toolbox.spawner);
  toolbox.spawner.exchange = (...args) => {
    inspected++;
    return exchange(...args);
  };
  // The examples a new home gets are known without inspecting (template_inspections_test.ts).
  const examples = new Set(["roll_dice.ts", "word_count.ts", "press_release.ts"]);
  const sources = async () => {
    let count = 0;
    for (const dir of ["tools", "skills"]) {
      for await (const entry of Deno.readDir(`${home}/${dir}`)) {
        if (entry.name.endsWith(".ts") && !examples.has(entry.name)) count++;
      }
    }
    return count;
  };
  const cached = () =>
    env.runtime.db.prepare("SELECT key FROM kv WHERE key LIKE 'inspection:%'").all().length;

  await toolbox.reload();
  assert(toolbox.registry.get("first") && toolbox.registry.get("second"));
  assertEquals(toolbox.problems(), []);
  assertEquals(inspected, await sources(), "each source inspected once");
  assertEquals(cached(), await sources());

  const firstLoad = inspected;
  await toolbox.reload();
  assertEquals(inspected, firstLoad, "unchanged sources are not inspected again");

  await Deno.writeTextFile(`${home}/tools/first.ts`, tool("first", "", `return "changed";`));
  await Deno.remove(`${home}/tools/second.ts`);
  await toolbox.reload();
  assertEquals(inspected, firstLoad + 1, "a changed source is inspected again");
  assertEquals(cached(), await sources(), "what no file holds is forgotten");

  // A description from the cache still meets the user's policy at load: here, a stricter one.
  await Deno.writeTextFile(
    `${home}/tools/second.ts`,
    tool("second", `permissions: { net: ["api.example.com"] },`),
  );
  await toolbox.reload();
  assert(toolbox.registry.get("second"));
  await Deno.writeTextFile(`${home}/hob.yaml`, fakeProviderYaml(fake.url));
  const stricter = await openRuntime({ home, env: {} });
  try {
    await stricter.toolbox.reload();
    assert(!stricter.toolbox.registry.get("second"), "refused by the stricter policy");
    assertMatch(stricter.toolbox.problems()[0].error, /asks for net access to api\.example\.com/);
  } finally {
    await stricter.close();
  }
});

Deno.test("a user tool that imports a package hob does not pin is refused, saying what it may import", async () => {
  await using env = await tempRuntime(
    fakeProviderYaml("http://127.0.0.1:9/v1", "memory: { embedder: none }"),
  );
  const home = env.home.home;
  // zod is in hob's import map and lockfile; left-pad is in neither (and nothing is downloaded).
  await Deno.writeTextFile(
    `${home}/tools/zod_user.ts`,
    `import { z } from "zod";\n${tool("zod_user", "", 'return z.string().parse("ok");')}`,
  );
  await Deno.writeTextFile(
    `${home}/tools/padder.ts`,
    `import leftPad from "npm:left-pad@1.3.0";\n${tool("padder", "", 'return leftPad("x", 3);')}`,
  );
  const { toolbox } = env.runtime;
  await toolbox.reload();
  assert(toolbox.registry.get("zod_user"), "a tool importing zod loads");
  const [problem, ...rest] = toolbox.problems();
  assertEquals(rest, []);
  assertMatch(
    problem.error,
    /^padder\.ts was not loaded: it imports a package hob does not have \(a tool may import only what hob's deno\.json names/,
  );
});
