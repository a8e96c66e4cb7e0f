/**
 * The shell policy's budget, attacked: short lines that ask the judge for a
 * great deal of work — expansion bombs, walks over many files, files that
 * would block or fill its memory, nesting, sheer length. Each must stop with
 * "ask" (the person decides) and say which limit it passed, and a line just
 * under each limit must still be judged as before.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { judgeCommand, type ShellPolicySettings } from "../../src/shell/policy.ts";
import { JUDGE_LIMITS } from "../../src/shell/budget.ts";
import { JudgeThread } from "../../src/shell/judge_thread.ts";

const allowlist = ["echo", "cat", "ls", "git"];

async function workspace(): Promise<{ root: string; home: string } & AsyncDisposable> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-budget-" }));
  await Deno.mkdir(`${base}/ws`);
  await Deno.mkdir(`${base}/home`);
  return {
    root: `${base}/ws`,
    home: `${base}/home`,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

function settings(root: string, home: string, more: Partial<ShellPolicySettings> = {}) {
  return {
    policy: "ask",
    allowlist,
    roots: [root],
    cwd: root,
    home,
    path: "/usr/bin:/bin",
    ...more,
  } satisfies ShellPolicySettings;
}

/** `a=xxxxxxxx; a=$a$a; …` doubled `times` times, then echoed. */
function doubling(times: number): string {
  return `a=xxxxxxxx; ${"a=$a$a; ".repeat(times)}echo "$a"`;
}

Deno.test("judgeCommand stops an expansion bomb at its budget and asks", async (t) => {
  await using w = await workspace();
  const judge = (line: string, more: Partial<ShellPolicySettings> = {}) =>
    judgeCommand(line, settings(w.root, w.home, more));

  await t.step("a variable doubled twenty times (a 180-character line)", async () => {
    const verdict = await judge(doubling(20));
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /expands to more than 200,000 characters/);
    assertMatch(verdict.shape, /^\(shell\)\[unjudged\] #[0-9a-f]{12}$/);
    // Ten doublings (8 KiB) are an ordinary line, judged as before.
    assertEquals((await judge(doubling(10))).decision, "allow");
  });

  await t.step("the same bomb in a here-document", async () => {
    const line = `a=xxxxxxxxxxxxxxxx; ${"a=$a$a; ".repeat(13)}cat <<EOF\n${"$a$a\n".repeat(20)}EOF`;
    assertMatch((await judge(line)).reason, /expands to more than 200,000 characters/);
  });

  await t.step("braces chained across a 10,000-character word", async () => {
    const verdict = await judge(`echo ${"{a,b}".repeat(1990)}`);
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /expands to more than 200,000 characters/);
  });

  await t.step("a zero-padded sequence, each number 5,000 digits wide", async () => {
    const verdict = await judge(`echo {${"0".repeat(4990)}1..9999}`);
    assertMatch(verdict.reason, /expands to more than 200,000 characters/);
    assertEquals((await judge("echo {001..999}")).decision, "allow");
  });

  await t.step("sequences that add up to more words than the limit", async () => {
    // No deadline here: on a slow machine it could come before the word limit.
    const unhurried = { limits: { ms: 60_000 } };
    const verdict = await judge("echo {1..9000} {1..9000} {1..9000}", unhurried);
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /expands to more than 20,000 words/);
    assertEquals((await judge("echo {1..9000} {1..9000}", unhurried)).decision, "allow");
  });

  await t.step("each limit is the one configured", async () => {
    const words = await judge("echo {1..200}", { limits: { words: 100 } });
    assertMatch(words.reason, /more than 100 words/);
    const chars = await judge(doubling(4), { limits: { chars: 100 } });
    assertMatch(chars.reason, /more than 100 characters/);
  });

  await t.step("under 'allowlist', a line not judged to its end is denied", async () => {
    const verdict = await judge(doubling(20), { policy: "allowlist" });
    assertEquals(verdict.decision, "deny");
    assertMatch(verdict.reason, /more than the policy judges by itself/);
  });
});

Deno.test("judgeCommand stops a walk over too many files and asks", async (t) => {
  await using w = await workspace();
  await Deno.mkdir(`${w.root}/d`);
  for (let i = 0; i < 1000; i++) await Deno.writeTextFile(`${w.root}/d/f${i}`, "");

  await t.step("sixty globs over a directory of a thousand files", async () => {
    // No deadline here: on a slow machine it could come before the look-up limit.
    const unhurried = settings(w.root, w.home, { limits: { ms: 60_000 } });
    const verdict = await judgeCommand(`cat${" d/*".repeat(60)}`, unhurried);
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /range over more than 50,000 files/);
    assertEquals(
      (await judgeCommand("cat d/*", settings(w.root, w.home))).decision,
      "allow",
    );
  });

  await t.step("the limit is the one configured", async () => {
    const verdict = await judgeCommand(
      "cat d/*",
      settings(w.root, w.home, { limits: { entries: 500 } }),
    );
    assertMatch(verdict.reason, /range over more than 500 files/);
  });
});

Deno.test("judgeCommand never opens a git file that could block it or fill its memory", async (t) => {
  await using w = await workspace();
  const git = `${w.root}/.git`;
  for (const dir of ["objects", "refs"]) await Deno.mkdir(`${git}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${git}/HEAD`, "ref: refs/heads/main\n");
  // Judged in a Worker: were the FIFO opened, the Worker's time limit would end the wait.
  const thread = new JudgeThread({ timeoutMs: 20_000 });
  try {
    await t.step("a FIFO as .git/config", async () => {
      const made = await new Deno.Command("mkfifo", { args: [`${git}/config`] }).output();
      assert(made.success, "mkfifo made the FIFO");
      const verdict = await thread.judge("git status", settings(w.root, w.home));
      assertEquals(verdict.decision, "ask");
      assertMatch(verdict.reason, /\.git\/config has the line '\(unreadable\)'/);
      await Deno.remove(`${git}/config`);
    });

    await t.step("a .git/config of 2 MiB", async () => {
      await Deno.writeTextFile(`${git}/config`, `[core]\n${"\tbare = false\n".repeat(170_000)}`);
      const verdict = await thread.judge("git status", settings(w.root, w.home));
      assertEquals(verdict.decision, "ask");
      assertMatch(verdict.reason, /\.git\/config is larger than the policy reads/);
      await Deno.writeTextFile(`${git}/config`, "[core]\n\tbare = false\n");
      assertEquals((await thread.judge("git status", settings(w.root, w.home))).decision, "allow");
    });
  } finally {
    thread.close();
  }
});

Deno.test("judgeCommand asks for a line nested deeper than it follows", async () => {
  await using w = await workspace();
  const arithmetic = (depth: number) => `echo $((${"1+".repeat(depth)}1))`;
  const deep = await judgeCommand(arithmetic(600), settings(w.root, w.home));
  assertEquals(deep.decision, "ask");
  assertMatch(deep.reason, /nests deeper than 500 levels/);
  assertEquals((await judgeCommand(arithmetic(100), settings(w.root, w.home))).decision, "allow");
});

Deno.test("judgeCommand stops at its deadline and asks", async () => {
  await using w = await workspace();
  // 2,000 commands of an allowlisted program: tens of milliseconds at the very least.
  const line = "echo;".repeat(2_000);
  const verdict = await judgeCommand(line, settings(w.root, w.home, { limits: { ms: 20 } }));
  assertEquals(verdict.decision, "ask");
  assertMatch(verdict.reason, /takes more than 20 ms to judge/);
  assertEquals(JUDGE_LIMITS.ms, 1_000);
});
