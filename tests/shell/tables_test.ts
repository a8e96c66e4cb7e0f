/** Option tables read every spelling of an option; git's repository is inspected before it runs. */

import { assert, assertEquals, assertMatch, assertNotEquals } from "../helpers/assert.ts";
import { optionTable, parseArgs } from "../../src/shell/options.ts";
import { unsafeConfig } from "../../src/shell/git.ts";
import { loadShell } from "../../src/shell/parse.ts";
import { judgeCommand, type ShellPolicySettings } from "../../src/shell/policy.ts";
import { DEFAULT_SHELL_ALLOWLIST } from "../../src/config/schema.ts";

const sort = optionTable("n|numeric-sort r|reverse o|output=write compress-program=exec check?= c");
const words = (...texts: string[]) => texts.map((text) => ({ text }));

Deno.test("parseArgs reads an option's value in every spelling getopt_long accepts", () => {
  const spellings = [
    ["--output=x"],
    ["--output", "x"],
    ["--out=x"],
    ["--o", "x"],
    ["-ox"],
    ["-o", "x"],
    ["-nox"],
    ["-no", "x"],
    ["-rno", "x"],
    ["a.txt", "-o", "x"],
  ];
  for (const spelling of spellings) {
    const parsed = parseArgs(words(...spelling), sort);
    const output = parsed.options.find((o) => o.spec.name === "o");
    assertEquals(output?.value?.text, "x", spelling.join(" "));
    assertEquals(parsed.unknown, [], spelling.join(" "));
  }
});

Deno.test("parseArgs reports unknown and ambiguous options and stops at --", () => {
  assertEquals(parseArgs(words("--bogus"), sort).unknown, ["--bogus"]);
  assertEquals(parseArgs(words("-q"), sort).unknown, ["-q"]);
  // --c fits --check and --compress-program: getopt refuses it, and so does the policy.
  assertEquals(parseArgs(words("--c=x"), sort).unknown, ["--c=x (ambiguous)"]);
  assertEquals(parseArgs(words("--co=sh"), sort).options[0].spec.name, "compress-program");
  const ended = parseArgs(words("--", "-o", "x"), sort);
  assertEquals(ended.options, []);
  assertEquals(ended.operands.map((o) => o.text), ["-o", "x"]);
  // An optional value is only taken with "=" (or glued to a short option).
  const check = parseArgs(words("--check", "quiet"), sort);
  assertEquals(check.options[0].value, undefined);
  assertEquals(check.operands.map((o) => o.text), ["quiet"]);
  // With stopAtOperand, options end at the first operand (env, nice, timeout).
  const env = parseArgs(words("ls", "-o", "x"), sort, { stopAtOperand: true });
  assertEquals(env.operands.map((o) => o.text), ["ls", "-o", "x"]);
});

Deno.test("unsafeConfig lets through only keys that run nothing, and what it cannot read", () => {
  const clean = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
[remote "origin"]
\turl = https://example.com/x.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[branch "main"]
\tremote = origin
# a comment
[color]
\tui = auto
`;
  assertEquals(unsafeConfig(clean), []);
  const risky = [
    "[core]\n\tfsmonitor = sh -c id",
    "[core]\n\thooksPath = /tmp",
    "[core]\n\tpager = sh",
    "[core]\n\tsshCommand = sh",
    "[CORE]\n\tPAGER = sh",
    "[alias]\n\tst = !sh -c id",
    '[diff "x"]\n\ttextconv = sh',
    '[filter "x"]\n\tclean = sh',
    "[include]\n\tpath = other",
    '[includeIf "gitdir:/"]\n\tpath = other',
    "[core] fsmonitor = sh",
    "[core]\n\trepositoryformatversion = 0 \\\n\nfsmonitor = sh",
    "[core.x]\n\tpager = sh",
    "[pager]\n\tlog = sh",
  ];
  for (const config of risky) assertNotEquals(unsafeConfig(config), [], config);
});

async function withWorkspace(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-git-policy-" }));
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const status = await new Deno.Command("git", {
    args,
    cwd,
    env: { HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
    stdout: "null",
    stderr: "null",
  }).output();
  assert(status.success, `git ${args.join(" ")} failed`);
}

function settingsFor(root: string): ShellPolicySettings {
  return {
    policy: "ask",
    allowlist: DEFAULT_SHELL_ALLOWLIST,
    roots: [`${root}/ws`],
    home: `${root}/home`,
    path: "/usr/bin:/bin",
  };
}

Deno.test("git runs unasked only in a repository whose writable configuration runs nothing", async () => {
  await withWorkspace(async (root) => {
    await Deno.mkdir(`${root}/ws/repo/sub`, { recursive: true });
    await Deno.mkdir(`${root}/home`);
    await git(`${root}/ws/repo`, "init", "-q");
    const settings = { ...settingsFor(root), cwd: `${root}/ws/repo/sub` };
    assertEquals((await judgeCommand("git status", settings)).decision, "allow");
    assertEquals((await judgeCommand("git log --oneline -5", settings)).decision, "allow");

    // A config key that runs a program, written by anyone who can write the workspace.
    await Deno.writeTextFile(`${root}/ws/repo/.git/config`, "[core]\n\tfsmonitor = sh -c id\n", {
      append: true,
    });
    const verdict = await judgeCommand("git status", settings);
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /sets core.fsmonitor/);
  });
});

Deno.test("git asks when the repository has hooks or submodules, or lies outside the roots", async () => {
  await withWorkspace(async (root) => {
    await Deno.mkdir(`${root}/ws/repo`, { recursive: true });
    await Deno.mkdir(`${root}/home`);
    await git(`${root}/ws/repo`, "init", "-q");
    const settings = { ...settingsFor(root), cwd: `${root}/ws/repo` };
    await Deno.writeTextFile(`${root}/ws/repo/.git/hooks/post-index-change`, "#!/bin/sh\nid\n");
    assertMatch((await judgeCommand("git status", settings)).reason, /hook post-index-change/);
    await Deno.remove(`${root}/ws/repo/.git/hooks/post-index-change`);
    assertEquals((await judgeCommand("git status", settings)).decision, "allow");
    await Deno.writeTextFile(`${root}/ws/repo/.gitmodules`, "");
    assertMatch((await judgeCommand("git status", settings)).reason, /submodules/);
    await Deno.remove(`${root}/ws/repo/.gitmodules`);

    // A .git file may point anywhere: what it points to is judged.
    await Deno.mkdir(`${root}/ws/linked`);
    await Deno.writeTextFile(`${root}/ws/linked/.git`, `gitdir: ${root}/ws/repo/.git\n`);
    const linked = { ...settingsFor(root), cwd: `${root}/ws/linked` };
    assertEquals((await judgeCommand("git status", linked)).decision, "allow");
    await Deno.writeTextFile(`${root}/ws/linked/.git`, `gitdir: ${root}/elsewhere\n`);
    assertMatch(
      (await judgeCommand("git status", linked)).reason,
      /outside the allowed directories/,
    );

    // A repository above the workspace is outside it.
    await git(root, "init", "-q");
    const above = { ...settingsFor(root), cwd: `${root}/ws` };
    assertMatch((await judgeCommand("git log", above)).reason, /outside the allowed directories/);
  });
});

Deno.test("a ~/.gitconfig inside the roots is held to the same rules", async () => {
  await withWorkspace(async (root) => {
    await Deno.mkdir(`${root}/ws/home`, { recursive: true });
    const settings = { ...settingsFor(root), home: `${root}/ws/home`, cwd: `${root}/ws` };
    await git(`${root}/ws`, "init", "-q");
    assertEquals((await judgeCommand("git status", settings)).decision, "allow");
    await Deno.writeTextFile(`${root}/ws/home/.gitconfig`, "[core]\n\tpager = sh\n");
    assertMatch((await judgeCommand("git status", settings)).reason, /sets core.pager/);
  });
});

Deno.test("the parser's tree is copied whole, and a missing part would make the policy ask", async () => {
  const shell = await loadShell();
  const lines = [
    "# c\nls # x\n",
    "a=(1 2 # c\n 3) b[1]=2; declare -i x=1; let a=1+2",
    "f() { ls; # c\n}; coproc c { ls; }; time -p ls",
    "[[ -f x && ( a == b || ! -z c ) ]]; ((1)); for ((i=0;i<3;i++)); do :; done",
    "case x in a) ls ;; # c\n b|c) : ;& *) ;; esac",
    "if a; then b; elif c; then d; else e; fi # c",
    "while a; do b; done; until a; do b; done; select x in a b; do :; done",
    "echo ${a:-b} ${a/x/y} ${a:1:2} ${#a} ${!a} ${a[@]} ${a,,} $'x' $\"y\" `ls` $(ls) <(ls) >(ls) $((1+2)) $[1]",
    "cat <<EOF\n$x $(y)\nEOF\n",
    "x=1 y=2 cmd 2>&1 >/dev/null {fd}>x <<<y; ! ls | wc; ls & ls |& wc",
  ];
  for (const line of lines) assertEquals(shell.parse(line).incomplete, false, line);
  // ${a:off:len} is reached by the copy even where the parser's own walk does not go.
  const verdict = await judgeCommand("echo ${a:$(id):1}", {
    policy: "ask",
    allowlist: ["echo", "id"],
    roots: ["/work"],
    path: "/usr/bin",
  });
  assertMatch(verdict.reason, /command substitution/);
});

Deno.test("the user's own ~/.gitconfig is trusted, except where it points git into the roots", async () => {
  await withWorkspace(async (root) => {
    await Deno.mkdir(`${root}/ws/repo`, { recursive: true });
    await Deno.mkdir(`${root}/home`);
    await git(`${root}/ws/repo`, "init", "-q");
    const settings = { ...settingsFor(root), cwd: `${root}/ws/repo` };
    const gitconfig = `${root}/home/.gitconfig`;
    await Deno.writeTextFile(gitconfig, "[user]\n\tname = Me\n[core]\n\tpager = less\n");
    assertEquals((await judgeCommand("git status", settings)).decision, "allow");
    for (
      const config of [
        "[core]\n\thooksPath = .githooks\n",
        `[core]\n\thooksPath = ${root}/ws/hooks\n`,
        `[include]\n\tpath = ${root}/ws/evil.inc\n`,
        `[includeIf "gitdir:~/"]\n\tpath = ../ws/evil.inc\n`,
      ]
    ) {
      await Deno.writeTextFile(gitconfig, config);
      assertEquals((await judgeCommand("git status", settings)).decision, "ask", config);
    }
  });
});

Deno.test("a program without a table has every path-like part of its arguments checked", async () => {
  const settings: ShellPolicySettings = {
    policy: "allowlist",
    allowlist: ["jq", "tool"],
    roots: ["/work"],
    home: "/home/me",
    path: "/usr/bin:/bin",
  };
  for (const command of ["jq . data.json", "tool https://example.com/x", "tool --out=result.txt"]) {
    assertEquals((await judgeCommand(command, settings)).decision, "allow", command);
  }
  for (
    const command of [
      "jq . /etc/passwd",
      "tool --files=a.txt:/etc/passwd",
      "tool host:/etc/passwd",
      "tool -o/etc/x",
      "tool --in=../secret",
    ]
  ) {
    assertEquals((await judgeCommand(command, settings)).decision, "deny", command);
  }
});
