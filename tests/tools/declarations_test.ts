/**
 * A tool's labels are checked against its permissions: one that may write,
 * reach the net or run programs has side effects, and one that may read,
 * reach the net or run brings in untrusted output, whatever it says.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml } from "../helpers/home.ts";
import { tempApi } from "../helpers/api.ts";
import { BUILTIN_TOOLS } from "../../src/builtins/catalog.ts";
import type { SideEffect, ToolPermissions } from "../../src/sandbox/definition.ts";
import {
  effectiveSideEffect,
  impliedSideEffect,
  mayBringInOutside,
} from "../../src/tools/user_tools.ts";

const ORDER: SideEffect[] = ["none", "local", "external"];

/** A user tool's source with the given label and extra fields. */
const userTool = (name: string, label: SideEffect, extra: string) =>
  `export default {
  name: "${name}", description: "a test tool", category: "test", side_effect: "${label}",
  parameters: { type: "object", properties: {} },
  ${extra}
  run() { return "ok"; },
};`;

Deno.test("the rule: write is at least local, net or run external, and the stricter label wins", () => {
  assertEquals(impliedSideEffect({}), "none");
  assertEquals(impliedSideEffect({ read: ["$ROOTS"], env: ["HOME"] }), "none");
  assertEquals(impliedSideEffect({ write: ["$WORKSPACE"] }), "local");
  assertEquals(impliedSideEffect({ write: [] }), "none", "an empty grant gives nothing");
  assertEquals(impliedSideEffect({ net: ["api.example.com"] }), "external");
  assertEquals(impliedSideEffect({ net: true }), "external", "a Worker's net: true");
  assertEquals(impliedSideEffect({ run: ["bash"], write: ["$WORKSPACE"] }), "external");
  assertEquals(effectiveSideEffect("none", { write: ["$WORKSPACE"] }), "local");
  assertEquals(effectiveSideEffect("external", { write: ["$WORKSPACE"] }), "external");
  assertEquals(effectiveSideEffect("local", {}), "local");
  assert(mayBringInOutside({ read: ["$WORKSPACE"] }));
  assert(mayBringInOutside({ net: ["api.example.com"] }));
  assert(mayBringInOutside({ run: ["echo"] }));
  assert(!mayBringInOutside({ write: ["$WORKSPACE"], env: ["HOME"] }));
});

Deno.test("a user tool gets the side effect its permissions imply, and /api/tools shows it", async () => {
  await using fake = startFakeOpenAI();
  const yaml = fakeProviderYaml(
    fake.url,
    "memory: { embedder: none }\ntools: { user_tools: { net: [api.example.com], run: [echo] } }",
  );
  await using api = await tempApi(yaml);
  const files: Record<string, string> = {
    "quiet_writer.ts": userTool("quiet_writer", "none", `permissions: { write: ["$WORKSPACE"] },`),
    "quiet_caller.ts": userTool(
      "quiet_caller",
      "none",
      `permissions: { net: ["api.example.com"] },`,
    ),
    "quiet_runner.ts": userTool("quiet_runner", "local", `permissions: { run: ["echo"] },`),
    "honest.ts": userTool("honest", "external", ""),
    "pure.ts": userTool("pure", "none", ""),
  };
  for (const [file, source] of Object.entries(files)) {
    await Deno.writeTextFile(`${api.home.home}/tools/${file}`, source);
  }
  await api.runtime.toolbox.reload();
  assertEquals(api.runtime.toolbox.problems(), []);

  const response = await api.call("/api/tools");
  assertEquals(response.status, 200);
  const listed = new Map(
    ((await response.json()).tools as { name: string; side_effect: string; policy: string }[])
      .map((tool) => [tool.name, tool]),
  );
  assertEquals(listed.get("quiet_writer")?.side_effect, "local");
  assertEquals(listed.get("quiet_caller")?.side_effect, "external");
  assertEquals(listed.get("quiet_runner")?.side_effect, "external");
  assertEquals(listed.get("honest")?.side_effect, "external", "a stricter label stays");
  assertEquals(listed.get("pure")?.side_effect, "none");
  // What the side effect decides follows it: external tools ask unless hob.yaml says otherwise.
  assertEquals(listed.get("quiet_caller")?.policy, "ask");
  assertEquals(listed.get("pure")?.policy, "allow");
  // `hob tool list --json` prints the registry's list, which is what the API sent.
  const fromRegistry = api.runtime.toolbox.registry.list().find((t) => t.name === "quiet_writer");
  assertEquals(fromRegistry?.side_effect, "local");
});

Deno.test("a user tool cannot switch off untrusted output when it may read, reach the net or run", async () => {
  await using fake = startFakeOpenAI();
  const yaml = fakeProviderYaml(
    fake.url,
    "memory: { embedder: none }\ntools: { user_tools: { net: [api.example.com] } }",
  );
  await using api = await tempApi(yaml);
  const files: Record<string, string> = {
    "reader.ts": userTool(
      "reader",
      "none",
      `permissions: { read: ["$WORKSPACE"] }, untrusted_output: false,`,
    ),
    "caller.ts": userTool(
      "caller",
      "none",
      `permissions: { net: ["api.example.com"] }, untrusted_output: false,`,
    ),
    "writer.ts": userTool("writer", "local", `permissions: { write: ["$WORKSPACE"] },`),
  };
  for (const [file, source] of Object.entries(files)) {
    await Deno.writeTextFile(`${api.home.home}/tools/${file}`, source);
  }
  await api.runtime.toolbox.reload();
  assertEquals(api.runtime.toolbox.problems(), []);
  const { registry } = api.runtime.toolbox;
  assertEquals(registry.get("reader")?.untrusted_output, true);
  assertEquals(registry.get("caller")?.untrusted_output, true);
  assertEquals(registry.get("writer")?.untrusted_output, false, "writing brings nothing in");
});

/**
 * Built-ins that break the rule, reported rather than changed here: fetching and
 * searching are labelled `none` though their Workers may reach any host (a GET
 * can carry data out). Each entry must still break it, so fixing one fails
 * this test until the entry goes.
 */
const KNOWN_VIOLATIONS = new Set(["fetch_url", "web_search"]);

/** Settings under which a tool's permissions are widest: email configured. */
const WIDEST_SETTINGS: Record<string, unknown> = {
  roots: ["/tmp"],
  email: { smtp: { host: "smtp.example.com", port: 587, secure: false }, from: "hob@example.com" },
};

/** A built-in's permissions under no settings and under the widest ones. */
function permissionsOf(tool: typeof BUILTIN_TOOLS[number]): ToolPermissions[] {
  const declared = tool.permissions ?? {};
  return typeof declared === "function" ? [declared({}), declared(WIDEST_SETTINGS)] : [declared];
}

Deno.test("no built-in tool declares fewer side effects than its permissions imply", () => {
  const violations = new Map<string, string>();
  for (const tool of BUILTIN_TOOLS) {
    for (const permissions of permissionsOf(tool)) {
      const implied = impliedSideEffect(permissions);
      if (ORDER.indexOf(tool.side_effect) < ORDER.indexOf(implied)) {
        violations.set(
          tool.name,
          `${tool.name} says ${tool.side_effect} but may ${JSON.stringify(permissions)}`,
        );
      }
    }
  }
  const unexpected = [...violations].filter(([name]) => !KNOWN_VIOLATIONS.has(name));
  assertEquals(unexpected.map(([, why]) => why), []);
  for (const name of KNOWN_VIOLATIONS) {
    assert(violations.has(name), `${name} keeps the rule now: take it off KNOWN_VIOLATIONS`);
  }
  // The tool with no permissions at all has nothing to declare.
  const runCode = BUILTIN_TOOLS.find((tool) => tool.name === "run_code")!;
  assertEquals(permissionsOf(runCode), [{}]);
  assertEquals(runCode.side_effect, "none");
  // email_file's permissions depend on its settings, and the widest ones were looked at.
  const email = BUILTIN_TOOLS.find((tool) => tool.name === "email_file")!;
  assertEquals(impliedSideEffect(permissionsOf(email).at(-1)!), "external");
});
