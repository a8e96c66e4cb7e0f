/**
 * run_skill_script through the registry as the owner, over a real runtime:
 * skills installed and accepted through the app, their scripts run in real
 * tool processes with only what was granted — their own folder and the
 * workspace, the hosts accepted — and refused when the skill is not active
 * or the script is one hob cannot contain.
 */

import { join } from "node:path";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";
import { installProbe, PROBE_FILES, writeSkill } from "../helpers/skill_probe.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

Deno.test("run_skill_script runs an active skill's script with only what the owner granted", async (t) => {
  await using env = await tempRuntime(YAML);
  const { app } = env.runtime;
  const home = env.home.home;
  await installProbe(app, ["127.0.0.1"]);
  const run = (script: string, more: Record<string, unknown> = {}) =>
    app.tools.invoke({
      name: "run_skill_script",
      args: { skill: "probe", script, ...more },
    }, { source: "api" });

  await t.step(
    "a script reads its arguments, stdin and its own references/, and writes the workspace",
    async () => {
      const result = await run("scripts/echo.ts", {
        args: ["one", "two words"],
        stdin: "piped in",
      });
      assertEquals(result.is_error, false, result.content);
      const [, json] = result.content.match(
        /^exit code: 0\n--- stdout ---\n(.*)\n\n--- stderr ---\nto stderr\n$/,
      )!;
      assertEquals(JSON.parse(json), {
        args: ["one", "two words"],
        ref: "the reference text",
        input: "piped in",
        cwd: join(home, "workspace"),
        main: true,
      });
      assertEquals(await Deno.readTextFile(join(home, "workspace", "echoed.txt")), "one two words");
    },
  );

  await t.step("it cannot read HOME/token, hob.yaml or the environment", async () => {
    const token = env.home.token;
    const result = await run("scripts/read.ts", {
      args: [join(home, "token"), "../token", join(home, "hob.yaml")],
    });
    assertEquals(result.is_error, false, result.content);
    assertEquals(result.content.includes(token), false, "the token leaked");
    assertEquals(result.content.match(/^DENIED .* NotCapable /gm)?.length, 3, result.content);
    assertStringIncludes(result.content, "DENIED env NotCapable");
    assertEquals(result.content.includes("READ"), false, result.content);
  });

  await t.step("it reaches a granted host and no other", async () => {
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("hello from the granted host"),
    );
    const port = server.addr.port;
    const granted = await run("scripts/fetch.ts", { args: [`http://127.0.0.1:${port}/`] });
    assertMatch(
      granted.content,
      /^exit code: 0\n--- stdout ---\nstatus 200 hello from the granted host/,
    );
    const other = await run("scripts/fetch.ts", { args: [`http://127.0.0.2:${port}/`] });
    assertMatch(
      other.content,
      /^exit code: 1\n--- stderr ---\nerror: Uncaught NotCapable: Requires net access to "127\.0\.0\.2/,
    );
  });

  await t.step("Deno.exit ends it with its code, what it wrote kept", async () => {
    const result = await run("scripts/exit.ts");
    assertEquals(result.content, "exit code: 4\n--- stdout ---\nbefore\n");
  });

  await t.step("an endless loop is stopped at its timeout", async () => {
    const result = await run("scripts/loop.ts", { timeout: 1 });
    assertEquals(result.is_error, true);
    assertMatch(result.content, /scripts\/loop\.ts timed out after 1 s and was stopped/);
  });

  await t.step("a Python script is refused, saying how it could run", async () => {
    const result = await run("scripts/fill.py");
    assertEquals(result.is_error, true);
    assertMatch(result.content, /is a Python script: hob cannot contain it/);
    assertMatch(result.content, /only through run_python, which asks the user each time/);
  });

  await t.step("a file that is not there is refused, naming the scripts", async () => {
    const result = await run("scripts/nope.ts");
    assertEquals(result.is_error, true);
    assertMatch(
      result.content,
      /has no file 'scripts\/nope\.ts'; its scripts: .*scripts\/echo\.ts/,
    );
  });

  await t.step("a changed skill's scripts are refused until it is accepted again", async () => {
    await Deno.writeTextFile(join(home, "skills", "probe", "references", "x.md"), "changed\n");
    const refused = await run("scripts/echo.ts");
    assertEquals(refused.is_error, true);
    assertMatch(refused.content, /changed after the owner accepted them/);
    const shown = await app.skills.show({ name: "probe" });
    await app.skills.accept({ name: "probe", hash: shown.hash, hosts: ["127.0.0.1"] });
    const again = await run("scripts/echo.ts");
    assertEquals(again.is_error, false, again.content);
    assertStringIncludes(again.content, '"ref":"changed"');
  });

  await t.step("a pending skill's scripts are refused", async () => {
    const source = await Deno.makeTempDir({ prefix: "hob-skill-src-" });
    try {
      const files = {
        ...PROBE_FILES,
        "SKILL.md": PROBE_FILES["SKILL.md"].replace("probe", "waiting"),
      };
      await app.skills.add({ source: await writeSkill(source, "waiting", files) }, { by: "cli" });
    } finally {
      await Deno.remove(source, { recursive: true });
    }
    const result = await app.tools.invoke({
      name: "run_skill_script",
      args: { skill: "waiting", script: "scripts/echo.ts" },
    }, { source: "api" });
    assertEquals(result.is_error, true);
    assertMatch(result.content, /waiting for the owner to review and accept it/);
  });
});
