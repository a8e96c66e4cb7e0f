/**
 * Judging off hob's main thread: the Worker gives the policy's own verdicts,
 * a line that outlasts its time limit ends the Worker and asks, and closing
 * fails what still waits.
 */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { judgeCommand, type ShellPolicySettings } from "../../src/shell/policy.ts";
import { closeJudge, judgeInWorker, JudgeThread } from "../../src/shell/judge_thread.ts";

async function workspace(): Promise<
  { root: string; settings: ShellPolicySettings } & AsyncDisposable
> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-judge-thread-" }));
  await Deno.writeTextFile(`${root}/notes.txt`, "x\n");
  return {
    root,
    settings: {
      policy: "ask",
      allowlist: ["ls", "cat", "echo", "grep"],
      roots: [root],
      cwd: root,
      home: "/home/me",
      path: "/usr/bin:/bin",
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("JudgeThread gives the policy's own verdicts, ordinary and hostile", async () => {
  await using w = await workspace();
  const thread = new JudgeThread();
  try {
    const lines = [
      "ls -la",
      "cat notes.txt | grep x > out.txt",
      "cat /etc/passwd",
      "rm -rf /",
      "echo $(id)",
      "ls ~/x",
      `a=xxxxxxxx; ${"a=$a$a; ".repeat(20)}echo $a`,
      `echo $((${"1+".repeat(600)}1))`,
      "echo 'unterminated",
    ];
    for (const line of lines) {
      assertEquals(
        await thread.judge(line, w.settings),
        await judgeCommand(line, w.settings),
        line,
      );
    }
  } finally {
    thread.close();
  }
});

Deno.test("JudgeThread ends a Worker that outlasts its time limit, and asks", async (t) => {
  await using w = await workspace();
  await Deno.mkdir(`${w.root}/d`);
  for (let i = 0; i < 1000; i++) await Deno.writeTextFile(`${w.root}/d/f${i}`, "");
  // With its budget lifted, judging 2,400 globs over a thousand files takes half a minute or
  // more: only the time limit ends it.
  const endless = `cat${" d/*".repeat(2_400)}`;
  const unbounded = { ...w.settings, limits: { entries: 1e12, ms: 1e9 } };
  const thread = new JudgeThread({ timeoutMs: 2_000 });
  try {
    await t.step("the line asks, saying why", async () => {
      const verdict = await thread.judge(endless, unbounded);
      assertEquals(verdict.decision, "ask");
      assertMatch(verdict.reason, /took more than 2 s to judge/);
      assertMatch(verdict.shape, /^\(shell\)\[unjudged\] #[0-9a-f]{12}$/);
    });
    await t.step("under 'allowlist' it is denied", async () => {
      const verdict = await thread.judge(endless, { ...unbounded, policy: "allowlist" });
      assertEquals(verdict.decision, "deny");
    });
    await t.step("the next line is judged, by a new Worker", async () => {
      assertEquals((await thread.judge("ls", w.settings)).decision, "allow");
    });
  } finally {
    thread.close();
  }
});

Deno.test("JudgeThread.close fails the line being judged and those waiting", async () => {
  await using w = await workspace();
  const thread = new JudgeThread();
  const judged = ["ls", "cat notes.txt"].map((line) => thread.judge(line, w.settings));
  const settled = Promise.allSettled(judged);
  thread.close();
  for (const result of await settled) {
    assertEquals(result.status, "rejected");
    if (result.status === "rejected") assertMatch(result.reason.message, /judge was closed/);
  }
});

Deno.test("judgeInWorker judges as judgeCommand does, and needs no Worker under 'deny'", async () => {
  await using w = await workspace();
  try {
    assertEquals(
      await judgeInWorker("ls ~/x", w.settings),
      await judgeCommand("ls ~/x", w.settings),
    );
    const denied = await judgeInWorker("ls", { ...w.settings, policy: "deny" });
    assertEquals(denied.decision, "deny");
  } finally {
    closeJudge();
  }
});
