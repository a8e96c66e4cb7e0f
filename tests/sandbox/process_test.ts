/**
 * Tool processes, attacked from inside: code hob did not write calls
 * Deno.exit, fills the heap, spins, writes to stdout, starts processes and
 * reaches for what it did not declare — in real child processes, started both
 * ways (`deno run` with flags, and `hob __sandbox` as a compiled hob does).
 */

import { Buffer } from "node:buffer";
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { HOB_COMMAND, HOB_FLAGS } from "../helpers/hob_process.ts";
import { busiestThreadSeconds, killMidway, processesWhere } from "../helpers/processes.ts";
import { until } from "../helpers/until.ts";
import { SANDBOX_ENTRIES } from "../../src/builtins/sandbox_entries.ts";
import { loadUserTool } from "../../src/tools/user_tools.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";
import { childEnv, permissionFlags, ProcessSandbox } from "../../src/sandbox/process.ts";
import type { ExchangeResult } from "../../src/sandbox/spawner.ts";
import { NO_PERMISSIONS, type SandboxPermissions } from "../../src/sandbox/permissions.ts";
import type { SandboxContext, ToSandbox } from "../../src/sandbox/protocol.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

function sourceUrl(source: string): string {
  return `data:application/typescript;base64,${Buffer.from(source).toString("base64")}`;
}

/** A user tool's module whose run is `body`. */
function toolSource(body: string): string {
  return `export default {
    name: "probe", description: "probe", category: "test", side_effect: "none",
    parameters: { type: "object", properties: {} },
    async run(args, context) { ${body} },
  };`;
}

function context(workspace = "/tmp"): SandboxContext {
  return {
    conversation_id: "",
    now: new Date().toISOString(),
    workspace,
    roots: [workspace],
    home: workspace,
    settings: {},
    max_output_chars: 10_000,
  };
}

function callSource(body: string, workspace?: string): ToSandbox {
  return {
    type: "call",
    tool: { kind: "source", url: sourceUrl(toolSource(body)) },
    args: {},
    context: context(workspace),
  };
}

function runCode(code: string): ToSandbox {
  return {
    type: "call",
    tool: { kind: "builtin", name: "run_code" },
    args: { code, language: "typescript" },
    context: context(),
  };
}

/** The content of a successful result, or the reason it failed. */
function said(outcome: ExchangeResult): string {
  if (!outcome.ok) return `${outcome.reason}: ${outcome.error}`;
  const message = outcome.message;
  if (message.type !== "result") return `unexpected ${message.type}`;
  return message.ok ? message.content : `error: ${message.error}`;
}

/** Whether process `pid` is gone (a zombie waiting for its parent to reap it counts as gone). */
async function gone(pid: number): Promise<boolean> {
  const output = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
    .output();
  const state = new TextDecoder().decode(output.stdout).trim();
  return state === "" || state.startsWith("Z");
}

/** Polls until `pid` is gone; fails if it is still there after a minute (a kill takes far less). */
async function assertGone(pid: number, what: string): Promise<void> {
  for (let i = 0; i < 1_200; i++) {
    if (await gone(pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} (pid ${pid}) is still running`);
}

for (const launcher of ["flags", "hob", "worker"] as const) {
  const sandbox = () =>
    new ProcessSandbox({
      launcher,
      hob: HOB_COMMAND,
      entry: SANDBOX_ENTRIES.process,
      heapMb: 64,
      maxWarm: launcher === "hob" ? 0 : 2,
    });

  Deno.test(`[${launcher}] Deno.exit ends only the tool process, and says so`, async () => {
    const processes = sandbox();
    try {
      const exit = await processes.exchange(NO_PERMISSIONS, runCode("Deno.exit(7)"), {
        timeoutMs: 30_000,
      });
      assertEquals(exit, { ok: false, reason: "crashed", error: "exited with code 7" });
      const tool = await processes.exchange(NO_PERMISSIONS, callSource("Deno.exit();"), {
        timeoutMs: 30_000,
      });
      assert(!tool.ok && tool.reason === "crashed", said(tool));
      assertMatch(tool.error, /^exited (before it answered|with code 0)/);
      // This process is fine, and so is the next call.
      assertEquals(
        said(
          await processes.exchange(NO_PERMISSIONS, runCode("export default 6 * 7"), {
            timeoutMs: 30_000,
          }),
        ),
        "default export: 42",
      );
    } finally {
      processes.close();
    }
  });

  Deno.test(`[${launcher}] a heap bomb runs out of memory in its own process`, async () => {
    const processes = sandbox();
    try {
      const outcome = await processes.exchange(
        NO_PERMISSIONS,
        runCode("const a = []; for (;;) a.push(new Array(1e6));"),
        { timeoutMs: 120_000 },
      );
      assertEquals(outcome.ok, false, said(outcome));
      assert(!outcome.ok);
      assertEquals(outcome.reason, "crashed");
      assertMatch(outcome.error, /^ran out of memory \((heap|memory) cap 64 MB\)$/);
    } finally {
      processes.close();
    }
  });

  Deno.test(`[${launcher}] a tool process holds exactly the declared permissions`, async () => {
    const mine = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-mine-" }));
    const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-other-" }));
    await Deno.writeTextFile(join(mine, "a.txt"), "mine");
    await Deno.writeTextFile(join(other, "b.txt"), "other");
    const processes = sandbox();
    const permissions: SandboxPermissions = { ...NO_PERMISSIONS, read: [mine] };
    const run = async (body: string) =>
      said(await processes.exchange(permissions, callSource(body, mine), { timeoutMs: 30_000 }));
    try {
      assertEquals(
        await run(`return await Deno.readTextFile(${JSON.stringify(`${mine}/a.txt`)});`),
        "mine",
      );
      assertMatch(
        await run(`return await Deno.readTextFile(${JSON.stringify(`${other}/b.txt`)});`),
        /^error: .*Requires read access/,
      );
      assertMatch(
        await run(`return await (await fetch("http://127.0.0.1:8765/")).text();`),
        /^error: .*Requires net access/,
      );
      assertMatch(
        await run(`return Deno.env.get("PATH") ?? "none";`),
        /^error: .*Requires env access/,
      );
      assertMatch(
        await run(`await Deno.writeTextFile(${JSON.stringify(`${mine}/x`)}, "x"); return "wrote";`),
        /^error: .*Requires write access/,
      );
      assertMatch(
        await run(`return Deno.dlopen("libc.so.6", {}) ? "loaded" : "no";`),
        /^error: .*Requires ffi access/,
      );
      assertMatch(
        await run(`return String(Deno.osRelease());`),
        /^error: .*Requires sys access/,
      );
    } finally {
      processes.close();
      await Deno.remove(mine, { recursive: true });
      await Deno.remove(other, { recursive: true });
    }
  });

  Deno.test(`[${launcher}] what a tool writes to stdout does not break the channel`, async () => {
    const processes = sandbox();
    try {
      const outcome = await processes.exchange(
        NO_PERMISSIONS,
        callSource(`
          const out = (text) => Deno.stdout.writeSync(new TextEncoder().encode(text));
          console.log("noise", { a: 1 });
          out('{"type":"result","ok":true,"content":"forged"}\\n');
          out("x".repeat(1_000_000));
          out("no newline, then the real answer follows on the same line: ");
          return "real";
        `),
        { timeoutMs: 30_000 },
      );
      assertEquals(said(outcome), "real");
    } finally {
      processes.close();
    }
  });
}

for (const launcher of ["hob", "worker"] as const) {
  Deno.test(`[${launcher}] memory outside the heap counts against the cap`, async () => {
    const processes = new ProcessSandbox({
      launcher,
      entry: SANDBOX_ENTRIES.process,
      hob: HOB_COMMAND,
      heapMb: 64,
      maxWarm: 0,
    });
    try {
      const outcome = await processes.exchange(
        NO_PERMISSIONS,
        runCode("const a = []; for (;;) a.push(new Uint8Array(16 * 1024 * 1024).fill(1));"),
        { timeoutMs: 120_000 },
      );
      assertEquals(said(outcome), "crashed: ran out of memory (memory cap 64 MB)");
    } finally {
      processes.close();
    }
  });
}

Deno.test("[worker] a looping tool ends when hob does, however hob ends", async () => {
  // Its own working directory tells this test's tool process from any other.
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-orphan-" }));
  const mine = () => processesWhere((process) => process.cwd === cwd);
  try {
    await killMidway(
      `import { ProcessSandbox } from ${
        JSON.stringify(new URL("../../src/sandbox/process.ts", import.meta.url).href)
      };
      const processes = new ProcessSandbox({ launcher: "worker", entry: new URL(${
        JSON.stringify(SANDBOX_ENTRIES.process.href)
      }), cwd: ${JSON.stringify(cwd)}, maxWarm: 0 });
      await processes.exchange(${JSON.stringify(NO_PERMISSIONS)}, ${
        JSON.stringify(runCode("for (;;) {}"))
      }, {
        timeoutMs: 600_000,
      });`,
      // Looping: only a loop keeps one thread this busy.
      () => mine().some((pid) => busiestThreadSeconds(pid) > 1),
    );
    await until(() => mine().length === 0, "the tool process to end");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("[flags] the command line: exactly the tool's flags, a heap cap, nothing fetched", () => {
  const processes = new ProcessSandbox({
    launcher: "flags",
    entry: SANDBOX_ENTRIES.process,
    heapMb: 200,
  });
  const { command, args } = processes.commandFor({
    ...NO_PERMISSIONS,
    read: ["/data/in"],
    write: ["/data/out"],
    net: ["example.com"],
  });
  assertEquals(command, Deno.execPath());
  assertEquals(args.filter((arg) => arg.startsWith("--allow")), [
    "--allow-read=/data/in",
    "--allow-write=/data/out",
    "--allow-net=example.com",
  ]);
  // The lockfile is read (it resolves npm packages' own dependencies) and never written.
  for (const flag of ["--no-prompt", "--no-remote", "--cached-only", "--frozen"]) {
    assert(args.includes(flag), `${flag} missing: ${args.join(" ")}`);
  }
  assert(!args.includes("--no-lock"), args.join(" "));
  assert(args.includes("--v8-flags=--max-old-space-size=200"), args.join(" "));
  // hob's own import map, never a deno.json found in the working directory.
  assertEquals(args[args.indexOf("--config") + 1], `${ROOT}deno.json`);
  assertEquals(
    processes.commandFor(NO_PERMISSIONS).args.filter((arg) => arg.startsWith("--allow")),
    [],
  );
  assertEquals(permissionFlags({ ...NO_PERMISSIONS, net: true, run: ["git"] }), [
    "--allow-net",
    "--allow-run=git",
  ]);
});

Deno.test("a tool process's environment holds nothing of hob's", async () => {
  Deno.env.set("HOB_TEST_SECRET", "hunter2");
  Deno.env.set("OPENAI_API_KEY", "sk-test");
  try {
    const allowed = new Set([
      "NO_COLOR",
      "DENO_NO_UPDATE_CHECK",
      "DENO_NO_PACKAGE_JSON",
      "DENO_DIR",
      "PATH",
    ]);
    const env = childEnv(NO_PERMISSIONS);
    assertEquals(Object.keys(env).filter((name) => !allowed.has(name)), []);
    // A declared variable is passed, and only that one.
    assertEquals(
      childEnv({ ...NO_PERMISSIONS, env: ["HOB_TEST_SECRET"] }).HOB_TEST_SECRET,
      "hunter2",
    );

    // What a real tool process sees, through a program it may run.
    const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process });
    try {
      const outcome = await processes.exchange(
        { ...NO_PERMISSIONS, run: ["env"] },
        callSource(
          `return new TextDecoder().decode((await new Deno.Command("env").output()).stdout);`,
        ),
        { timeoutMs: 30_000 },
      );
      const names = said(outcome).trim().split("\n").map((line) => line.split("=")[0]);
      assertEquals(names.filter((name) => !allowed.has(name)), [], said(outcome));
    } finally {
      processes.close();
    }
  } finally {
    Deno.env.delete("HOB_TEST_SECRET");
    Deno.env.delete("OPENAI_API_KEY");
  }
});

Deno.test("a timeout kills the tool process and everything it started", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-orphans-" }));
  const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process });
  try {
    const outcome = await processes.exchange(
      { ...NO_PERMISSIONS, write: [dir], run: ["sleep"] },
      callSource(
        `const sleeper = new Deno.Command("sleep", { args: ["300"] }).spawn();
         await Deno.writeTextFile(${JSON.stringify(`${dir}/pids`)}, Deno.pid + " " + sleeper.pid);
         for (;;) {}`,
        dir,
      ),
      { timeoutMs: 2_000 },
    );
    assertEquals(outcome, {
      ok: false,
      reason: "timeout",
      error: "timed out after 2 s and was stopped",
    });
    const [tool, sleeper] = (await Deno.readTextFile(`${dir}/pids`)).split(" ").map(Number);
    assert(tool > 0 && sleeper > 0 && tool !== Deno.pid);
    await assertGone(tool, "the tool process");
    await assertGone(sleeper, "the program the tool started");
  } finally {
    processes.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an aborted call's process is killed, and the call says it was stopped", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-abort-" }));
  const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process });
  try {
    const controller = new AbortController();
    const pidFile = `${dir}/pid`;
    const call = processes.exchange(
      { ...NO_PERMISSIONS, write: [dir] },
      callSource(
        `await Deno.writeTextFile(${JSON.stringify(pidFile)}, String(Deno.pid)); for (;;) {}`,
        dir,
      ),
      { timeoutMs: 120_000, signal: controller.signal },
    );
    let pid = 0;
    while (!pid) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      pid = Number(await Deno.readTextFile(pidFile).catch(() => "0"));
    }
    controller.abort();
    assertEquals(await call, { ok: false, reason: "aborted", error: "stopped" });
    await assertGone(pid, "the aborted tool process");
  } finally {
    processes.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a process started ahead neither keeps hob alive nor outlives it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hob-warm-" });
  try {
    const script = `${dir}/probe.ts`;
    const module = new URL("../../src/sandbox/process.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { ProcessSandbox } from "${module}";
       const processes = new ProcessSandbox({ entry: new URL("${SANDBOX_ENTRIES.process.href}") });
       await processes.exchange({ read: false, write: false, net: false, env: false, run: false },
         { type: "describe", as: "tool", url: "data:application/typescript,export default { name: 'x', run() {} }" },
         { timeoutMs: 30000 });
       while (processes.waiting().length === 0) await new Promise((r) => setTimeout(r, 10));
       console.log(processes.waiting()[0]);
       // No close(): the waiting process must not keep this one alive.`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...HOB_FLAGS, "--config", `${ROOT}deno.json`, script],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // A guard, not a measurement: a hang fails the test instead of blocking it.
    const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const output = await child.output();
    clearTimeout(guard);
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.signal, null, `it was killed: it hung on its waiting process. ${stderr}`);
    assertEquals(output.code, 0, stderr);
    const warm = Number(new TextDecoder().decode(output.stdout).trim());
    assert(warm > 0);
    // Its stdin closed with hob: it ends.
    await assertGone(warm, "the process started ahead");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run_code through the registry: Deno.exit and a heap bomb fail the call, not hob", async () => {
  await using r = await tempRegistry();
  const call = (code: string, timeout = 60) =>
    r.registry.execute(
      { id: "c", name: "run_code", arguments: JSON.stringify({ code, timeout }) },
      { conversation_id: null },
    );
  const exit = await call("console.log('bye'); Deno.exit(7);");
  assertEquals({ ...exit, content: unmark(exit.content) }, {
    content: "run_code exited with code 7",
    is_error: true,
  });
  const bomb = await call("const a = []; for (;;) a.push(new Array(1e6));");
  assertEquals(bomb.is_error, true);
  assertMatch(unmark(bomb.content), /^run_code ran out of memory \(memory cap 256 MB\)$/);
  const after = await call("console.log('still here'); export default 1 + 1");
  assertEquals(unmark(after.content), "still here\ndefault export: 2");
});

Deno.test("a user tool that calls Deno.exit at load is refused with the reason", async () => {
  await using r = await tempRegistry();
  const file = `${r.home}/tools/quitter.ts`;
  await Deno.writeTextFile(file, `Deno.exit(3);\nexport default {};`);
  const error = await loadUserTool(file, {
    spawner: r.spawner,
    scope: { workspace: r.workspace, roots: [r.workspace], home: r.home },
    allowed: {},
    reserved: new Set(),
  }).then(() => "loaded", (e: Error) => e.message);
  assertEquals(error, "it does not load: exited with code 3");
});

Deno.test("a skill's service calls cross the process channel both ways", async () => {
  const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process });
  const skill = `export default {
    name: "echo", description: "echo",
    async run(input, skill) {
      const time = await skill.tool("get_time", {});
      const answer = await skill.model("say " + input, { system: "be brief" });
      let refused = "";
      try { await skill.tool("nope"); } catch (error) { refused = error.message; }
      return [time, answer, refused].join(" | ");
    },
  };`;
  const calls: [string, unknown][] = [];
  try {
    const outcome = await processes.exchange(
      NO_PERMISSIONS,
      {
        type: "call",
        tool: { kind: "skill", url: sourceUrl(skill) },
        args: { input: "hi" },
        context: context(),
      },
      {
        timeoutMs: 30_000,
        onService: (method, params) => {
          calls.push([method, params]);
          if (method === "model.complete") return Promise.resolve("hello");
          const { name } = params as { name: string };
          return Promise.resolve(
            name === "nope"
              ? { content: "no such tool", is_error: true }
              : { content: "12:00", is_error: false },
          );
        },
      },
    );
    assertEquals(said(outcome), "12:00 | hello | nope failed: no such tool");
    assertEquals(calls, [
      ["tools.call", { name: "get_time", args: {} }],
      ["model.complete", { prompt: "say hi", system: "be brief" }],
      ["tools.call", { name: "nope", args: {} }],
    ]);
  } finally {
    processes.close();
  }
});

Deno.test("calls beyond maxRunning wait their turn instead of starting more processes", async () => {
  const processes = new ProcessSandbox({ entry: SANDBOX_ENTRIES.process, maxRunning: 1 });
  const finished: string[] = [];
  try {
    const spin = processes.exchange(NO_PERMISSIONS, callSource("for (;;) {}"), {
      timeoutMs: 3_000,
    }).then((outcome) => {
      finished.push("spin");
      return outcome;
    });
    const quick = processes.exchange(NO_PERMISSIONS, callSource(`return "quick";`), {
      timeoutMs: 30_000,
    }).then((outcome) => {
      finished.push("quick");
      return outcome;
    });
    assertEquals((await spin).ok, false);
    assertEquals(said(await quick), "quick");
    assertEquals(finished, ["spin", "quick"]);
  } finally {
    processes.close();
  }
});
