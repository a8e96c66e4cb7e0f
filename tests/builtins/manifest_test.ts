/**
 * The built-in tools' manifest (src/builtins/manifest.gen.ts) says what their
 * modules say: a turn and `hob tool list` read it instead of loading 37 tool
 * modules, so a stale entry would offer a model a schema the tool refuses.
 */

import { assert, assertEquals, assertStrictEquals } from "../helpers/assert.ts";
import { join } from "node:path";
import { builtinMeta } from "../../src/tools/builtin_meta.ts";
import { SETTINGS_DEPENDENT } from "../../src/builtins/settings_dependent.ts";
import { BUILTIN_TOOLS } from "../../src/builtins/catalog.ts";
import { BUILTIN_MANIFEST } from "../../src/builtins/manifest.gen.ts";
import { tempRegistry } from "../helpers/tools.ts";
import { HOB_FLAGS } from "../helpers/hob_process.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

Deno.test("the manifest holds every built-in's data, in order, and loads its module", async () => {
  assertEquals(
    BUILTIN_MANIFEST.map((entry) => entry.name),
    BUILTIN_TOOLS.map((tool) => tool.name),
    "stale: run `deno task gen:tools`",
  );
  for (const [i, { load, ...data }] of BUILTIN_MANIFEST.entries()) {
    const tool = BUILTIN_TOOLS[i];
    assertEquals(data, builtinMeta(tool), `${tool.name} is stale: run \`deno task gen:tools\``);
    assertStrictEquals((await load()).default, tool, `${tool.name}'s module`);
  }
});

Deno.test("settings-dependent parts of a tool are the functions the manifest's listing uses", () => {
  for (const tool of BUILTIN_TOOLS) {
    const dependent = SETTINGS_DEPENDENT[tool.name] ?? {};
    const permissions = typeof tool.permissions === "function" ? tool.permissions : undefined;
    assertStrictEquals(dependent.permissions, permissions, `${tool.name}: permissions`);
    assertStrictEquals(dependent.review_range, tool.review_range, `${tool.name}: review_range`);
  }
});

Deno.test("a registry from the manifest lists and offers what one from the modules does", async () => {
  for (const policy of ["ask", "allowlist", "deny"]) {
    const settings = {
      run_command: { shell: { policy, allowlist: ["ls"] } },
      run_python: { shell: { policy } },
      email_file: {
        email: { smtp: { host: "mail.example", port: 587, secure: false }, from: "a@b.example" },
      },
    };
    await using whole = await tempRegistry({ settings });
    await using listed = await tempRegistry({ settings, listed: true });
    const scrub = (text: string) => text.replaceAll(whole.home, "H").replaceAll(listed.home, "H");
    assertEquals(
      scrub(JSON.stringify(listed.registry.list())),
      scrub(JSON.stringify(whole.registry.list())),
    );
    assertEquals(listed.registry.specs(), whole.registry.specs());
  }
});

Deno.test("a listed built-in loads its module at its first call and runs", async () => {
  await using temp = await tempRegistry({ listed: true });
  assert("load" in temp.registry.get("get_time")!, "known from the manifest only");
  const [first, second] = await Promise.all([
    temp.registry.execute(
      { id: "1", name: "get_time", arguments: '{"timezone":"UTC"}' },
      { conversation_id: null },
    ),
    temp.registry.execute({ id: "2", name: "get_time", arguments: '{"timezone":7}' }, {
      conversation_id: null,
    }),
  ]);
  assert(!first.is_error && first.content.includes("UTC:"), first.content);
  assert(
    second.is_error && second.content.includes("timezone"),
    "validated by the module's schema",
  );
  assert(!("load" in temp.registry.get("get_time")!), "whole after its first call");
});

Deno.test("`hob tool list` loads no built-in tool module", async () => {
  const home = await Deno.makeTempDir({ prefix: "hob-manifest-" });
  try {
    // As hob ships (its flags), with every built-in tool's module and the catalog unreadable:
    // any import of one fails.
    const modules = [...BUILTIN_TOOLS.map((tool) => tool.name), "catalog"]
      .map((name) => join(ROOT, `src/builtins/${name}.ts`));
    const hob = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...HOB_FLAGS,
          `--deny-read=${modules.join(",")}`,
          join(ROOT, "main.ts"),
          ...args,
          "--home",
          home,
        ],
        env: { HOB_MODEL: "fake/none", NO_COLOR: "1" },
        stdin: "null",
      }).output();
    assert((await hob("init")).success, "init");
    const listed = await hob("tool", "list", "--json");
    const stderr = new TextDecoder().decode(listed.stderr);
    assert(listed.success, stderr);
    const tools = JSON.parse(new TextDecoder().decode(listed.stdout)).tools as { name: string }[];
    for (const tool of BUILTIN_TOOLS) {
      assert(tools.some((listed) => listed.name === tool.name), tool.name);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
