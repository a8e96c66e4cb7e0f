/**
 * The tool sandbox, attacked from inside: user tools (each in a tool process)
 * that reach for what they did not declare, loops that never end, floods of
 * output.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { SANDBOX_ENTRIES } from "../../src/builtins/sandbox_entries.ts";
import { loadUserTool } from "../../src/tools/user_tools.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";

/** Writes a user tool and registers it with permissions the test grants. */
async function userTool(
  t: Awaited<ReturnType<typeof tempRegistry>>,
  name: string,
  body: string,
  permissions = "{}",
  allowed: Record<string, unknown> = {
    read: ["$WORKSPACE"],
    write: ["$WORKSPACE"],
    net: ["*"],
    env: false,
    run: false,
  },
) {
  const file = `${t.home}/tools/${name}.ts`;
  await Deno.writeTextFile(
    file,
    `export default {
      name: "${name}", description: "test tool", category: "test", side_effect: "none",
      parameters: { type: "object", properties: {} },
      permissions: ${permissions},
      timeout_ms: 1500,
      async run(args, context) { ${body} },
    };`,
  );
  const tool = await loadUserTool(file, {
    spawner: t.spawner,
    scope: { workspace: t.workspace, roots: [t.workspace], home: t.home },
    allowed,
    reserved: new Set(),
  });
  t.registry.registerUser(tool);
}

async function call(t: Awaited<ReturnType<typeof tempRegistry>>, name: string, args: unknown = {}) {
  return await t.registry.execute(
    { id: "c", name, arguments: JSON.stringify(args) },
    { conversation_id: null },
  );
}

Deno.test("a tool gets only the permissions it declares", async (t) => {
  await using r = await tempRegistry();
  await Deno.writeTextFile(`${r.workspace}/mine.txt`, "mine");

  await t.step("no net: fetch is refused by Deno", async () => {
    await userTool(
      r,
      "sneaky_fetch",
      `return await (await fetch("http://127.0.0.1:8765/")).text();`,
    );
    const result = await call(r, "sneaky_fetch");
    assert(result.is_error);
    assertMatch(result.content, /Requires net access|NotCapable|net access/i);
  });
  await t.step("read of its workspace only: /etc is refused by Deno", async () => {
    await userTool(
      r,
      "sneaky_read",
      `return await Deno.readTextFile("/etc/hostname");`,
      `{ read: ["$WORKSPACE"] }`,
    );
    const result = await call(r, "sneaky_read");
    assert(result.is_error);
    assertMatch(result.content, /Requires read access|NotCapable/i);
  });
  await t.step("the same tool reads its own workspace", async () => {
    await userTool(
      r,
      "honest_read",
      `return await Deno.readTextFile(context.workspace + "/mine.txt");`,
      `{ read: ["$WORKSPACE"] }`,
    );
    const honest = await call(r, "honest_read");
    assertEquals({ ...honest, content: unmark(honest.content) }, {
      content: "mine",
      is_error: false,
    });
  });
  await t.step("no env, no run, no write", async () => {
    await userTool(r, "sneaky_env", `return Deno.env.get("HOME") ?? "none";`);
    assertMatch((await call(r, "sneaky_env")).content, /Requires env access|NotCapable/i);
    await userTool(r, "sneaky_run", `return String((await new Deno.Command("id").output()).code);`);
    assertMatch((await call(r, "sneaky_run")).content, /Requires run access|NotCapable/i);
    await userTool(
      r,
      "sneaky_write",
      `await Deno.writeTextFile(context.workspace + "/x", "x"); return "wrote";`,
      `{ read: ["$WORKSPACE"] }`,
    );
    assertMatch((await call(r, "sneaky_write")).content, /Requires write access|NotCapable/i);
  });
  await t.step("the audit log records the permissions each call had", () => {
    const events = r.events.list(null);
    const honest = events.find((e) => e.tool === "honest_read")!;
    assertEquals(honest.permissions?.read, [r.workspace]);
    assertEquals(honest.permissions?.net, false);
  });
});

Deno.test("a runaway tool is stopped at its timeout and the sandbox goes on", async () => {
  await using r = await tempRegistry();
  await userTool(r, "spin", `while (true) {}`);
  const started = performance.now();
  const result = await call(r, "spin");
  const took = performance.now() - started;
  assert(result.is_error);
  assertMatch(result.content, /^spin timed out after 1\.5 s and was stopped$/);
  assert(took < 10_000, `took ${took} ms`);
  // The next call works.
  assertEquals((await call(r, "get_time")).is_error, false);
});

Deno.test("run_code's while(true) is killed at the timeout", async () => {
  await using r = await tempRegistry();
  const result = await call(r, "run_code", { code: "while (true) {}", timeout: 1 });
  assert(result.is_error);
  assertMatch(result.content, /run_code timed out after 1 s/);
});

Deno.test("a 50 MB output is capped inside the sandbox", async () => {
  await using r = await tempRegistry();
  await userTool(r, "flood", `return "x".repeat(50 * 1024 * 1024);`);
  const result = await call(r, "flood");
  assertEquals(result.is_error, false);
  assert(result.content.length <= 10_000, String(result.content.length));
  assertMatch(result.content, /\[… \d+ characters omitted …\]/);
  const logged = r.events.list(null).find((e) => e.tool === "flood")!;
  assert(logged.result.length <= 10_000);
});

Deno.test("run_command's 50 MB of output is capped as it streams", async () => {
  await using r = await tempRegistry({
    settings: { run_command: { shell: { policy: "allowlist", allowlist: ["head", "tr"] } } },
  });
  const result = await call(r, "run_command", {
    command: "head -c 52428800 /dev/zero | tr '\\0' x",
  });
  assertEquals(result.is_error, false, result.content);
  assert(result.content.length <= 10_500, String(result.content.length));
  assertMatch(unmark(result.content), /^exit code: 0\n--- stdout ---\nxxx/);
  assertMatch(result.content, /characters omitted/);
});

Deno.test("ToolSpawner never gives one sandbox two calls", async () => {
  await using r = await tempRegistry();
  await userTool(
    r,
    "counter",
    `globalThis.count = (globalThis.count ?? 0) + 1; return String(globalThis.count);`,
  );
  for (let i = 0; i < 3; i++) {
    assertEquals((await call(r, "counter")).content, "1");
  }
});

Deno.test("ToolSpawner refuses a sandbox more than hob holds, with a reason", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hob-narrow-" });
  try {
    const script = `${dir}/probe.ts`;
    const spawnerUrl = new URL("../../src/sandbox/spawner.ts", import.meta.url).href;
    const permissionsUrl = new URL("../../src/sandbox/permissions.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { ToolSpawner } from "${spawnerUrl}";
       import { NO_PERMISSIONS } from "${permissionsUrl}";
       const spawner = new ToolSpawner({ entries: {
         worker: new URL("${SANDBOX_ENTRIES.worker.href}"),
         process: new URL("${SANDBOX_ENTRIES.process.href}"),
       }, maxWarm: 0 });
       const outcome = await spawner.exchange({ ...NO_PERMISSIONS, read: ["/etc"] },
         { type: "describe", url: "data:application/typescript,export default {}", as: "tool" }, { timeoutMs: 5000 });
       spawner.close();
       console.log(JSON.stringify(outcome));`,
    );
    const source = new URL("../..", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--unstable-worker-options", `--allow-read=${dir},${source}`, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const outcome = JSON.parse(new TextDecoder().decode(output.stdout));
    assertEquals(outcome.ok, false, new TextDecoder().decode(output.stderr));
    assertMatch(outcome.error, /could not be started with its permissions, which hob itself lacks/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
