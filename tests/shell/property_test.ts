/**
 * The shell policy against real bash. Thousands of random lines (seeded; set
 * SHELL_PROPERTY_SEED to replay one run) are judged; for every line the
 * policy allows, bash itself expands each simple command's words with
 * `printf '%s\0'` — in a scratch workspace, with a clean environment, running
 * no program and opening no redirection — and the result must hold: every
 * program is on the allowlist by name, every path-like argument and every
 * redirection target resolves inside the roots, and no dangerous option survives.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { judgeCommand } from "../../src/shell/policy.ts";
import { DEFAULT_SHELL_ALLOWLIST } from "../../src/config/schema.ts";
import { makeGenerator } from "./shell_lines.ts";

const CASES = 4_000;
const BATCH = 150;

interface Scratch {
  base: string;
  /** Two workspaces: a clean one, and one with files named like options. */
  roots: string[];
  home: string;
}

async function makeScratch(): Promise<Scratch> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-shell-property-" }));
  const home = `${base}/home`;
  await Deno.mkdir(`${base}/other`, { recursive: true });
  await Deno.writeTextFile(`${base}/other/secret`, "secret");
  await Deno.mkdir(home);
  const roots = [`${base}/ws`, `${base}/wsd`];
  for (const root of roots) {
    await Deno.mkdir(`${root}/sub`, { recursive: true });
    for (const file of ["a.txt", "notes.txt", "b.md", "sub/c.txt", "sub/d.md"]) {
      await Deno.writeTextFile(`${root}/${file}`, "x\n");
    }
    await Deno.symlink("../other", `${root}/link`);
    await Deno.symlink("sub", `${root}/inlink`);
  }
  for (const name of ["-delete", "--compress-program=sh", "-o"]) {
    await Deno.writeTextFile(`${base}/wsd/${name}`, "");
  }
  return { base, roots, home };
}

/** What bash says one line would run: each command's argv and each redirection target. */
interface Expanded {
  commands: string[][];
  targets: string[][];
}

/**
 * Runs the oracle renderings in one bash per directory. The renderings only
 * print and assign the line's own variables, which are unset between cases.
 */
async function expandWithBash(
  cases: { dir: string; oracle: string }[],
  home: string,
): Promise<Expanded[]> {
  const results: Expanded[] = new Array(cases.length);
  for (const dir of new Set(cases.map((c) => c.dir))) {
    const indexes = cases.flatMap((c, i) => (c.dir === dir ? [i] : []));
    const script = `for __case in "$@"; do unset -v v1 v2 vv w; eval "$__case" 2>/dev/null; ` +
      `printf '\\001E\\0'; done`;
    const output = await new Deno.Command("bash", {
      args: ["--noprofile", "--norc", "-c", script, "bash", ...indexes.map((i) => cases[i].oracle)],
      cwd: dir,
      env: { HOME: home, PATH: "/usr/bin:/bin", LC_ALL: "C" },
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
    }).output();
    const records = new TextDecoder().decode(output.stdout).split("\x01E\0");
    assertEquals(records.length, indexes.length + 1, "bash printed a record for every case");
    indexes.forEach((caseIndex, k) => results[caseIndex] = parseRecord(records[k]));
  }
  return results;
}

function parseRecord(record: string): Expanded {
  const expanded: Expanded = { commands: [], targets: [] };
  // The oracle marks records with \x01, a byte no generated word contains.
  // deno-lint-ignore no-control-regex
  for (const chunk of record.split(/\x01(?=[CR]\0)/).filter(Boolean)) {
    const fields = chunk.split("\0");
    // fields: "C" or "R", then "S" (the sentinel), the words, and a trailing "".
    const words = fields.slice(2, -1);
    if (fields[0] === "C") expanded.commands.push(words);
    else if (fields[0] === "R") expanded.targets.push(words);
  }
  return expanded;
}

/** Resolves a path the way the kernel would, following links that exist (bash already expanded `~`). */
async function physical(path: string, cwd: string): Promise<string> {
  const full = path.startsWith("/") ? path : `${cwd}/${path}`;
  const parts = full.split("/");
  for (let keep = parts.length; keep > 0; keep--) {
    try {
      const real = await Deno.realPath(parts.slice(0, keep).join("/") || "/");
      const rest = parts.slice(keep).filter((p) => p && p !== ".");
      const out: string[] = real.split("/").filter(Boolean);
      for (const part of rest) part === ".." ? out.pop() : out.push(part);
      return `/${out.join("/")}`;
    } catch {
      // Try a shorter prefix.
    }
  }
  return full;
}

const looksLikePath = (s: string) => s.includes("/") || s === "..";

/**
 * Short options that take a value, from each program's manual: in `-no/x`,
 * sort's `o` takes `/x`. (The oracle's own list, smaller than the policy's tables.)
 */
const VALUE_LETTERS: Record<string, string> = {
  sort: "okStT",
  ls: "IwT",
  head: "nc",
  tail: "ncs",
  grep: "efmABCdD",
  file: "mfFeP",
  du: "BdtX",
  diff: "CUWFIxXSD",
  tree: "LPIoHT",
  date: "dfrsI",
  stat: "c",
  uniq: "fsw",
  df: "Btx",
  git: "CcOSGlUnL",
};

/**
 * The parts of an argument a program may take as a path: itself, what follows
 * `=`, and the value glued to a short option that takes one (`-o/x`, `-no/x`).
 */
function candidates(program: string, arg: string): string[] {
  const out = [arg];
  if (arg.startsWith("-")) {
    if (arg.includes("=")) out.push(arg.slice(arg.indexOf("=") + 1));
    if (!arg.startsWith("--")) {
      const letters = VALUE_LETTERS[program] ?? "";
      const at = [...arg.slice(1)].findIndex((c) => letters.includes(c));
      if (at >= 0 && at + 2 < arg.length) out.push(arg.slice(at + 2));
    }
  }
  return out.filter(looksLikePath);
}

/** Programs whose arguments are text to them, never paths. */
const TEXT_PROGRAMS = new Set(["echo", "which", "df", "true", "false", "uname", "whoami", "pwd"]);
const SAFE_GIT = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "branch"]);
/** find's actions that run or delete things (-fprint only writes: its path is checked). */
const FIND_DANGER = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-files0-from",
  "-L",
  "-follow",
]);

/** A dangerous option bash would really hand to the program, if any. */
function dangerousOption(argv: string[]): string | undefined {
  const [program, ...args] = argv;
  const longPrefix = (arg: string, full: string, min: number) => {
    const name = arg.split("=")[0];
    return name.length >= min && full.startsWith(name);
  };
  const end = args.indexOf("--");
  const options = end < 0 ? args : args.slice(0, end);
  switch (program) {
    case "sort":
      return options.find((a) =>
        longPrefix(a, "--compress-program", 4) || longPrefix(a, "--files0-from", 4)
      );
    case "wc":
    case "du":
      return options.find((a) =>
        longPrefix(a, "--files0-from", 3) || (program === "du" && /^-[a-zA-Z]*L/.test(a))
      );
    case "find":
      return args.find((a) => FIND_DANGER.has(a));
    case "grep":
      return options.find((a) => /^-[a-zA-Z]*R/.test(a) || a === "--dereference-recursive");
    case "file":
      return options.find((a) => /^-[a-zA-Z]*[fCmp]/.test(a));
    case "tree":
      return options.find((a) => /^-[a-zA-Z]*R/.test(a));
    case "date":
      for (let i = 0; i < args.length; i++) {
        if (/^(-d|-f|-r|--date|--file|--reference)$/.test(args[i])) i += 1;
        else if (/^-[a-zA-Z]*s|^--set/.test(args[i])) return args[i];
        else if (!args[i].startsWith("-") && !args[i].startsWith("+")) return args[i];
      }
      return undefined;
    case "git": {
      let i = 0;
      for (; i < args.length && args[i].startsWith("-"); i++) {
        if (/^(-c|-p|--paginate|--config-env.*|--exec-path.*)$/.test(args[i])) return args[i];
        if (args[i] === "-C" || args[i] === "--git-dir") i += 1;
      }
      if (args[i] !== undefined && !SAFE_GIT.has(args[i])) return `git ${args[i]}`;
      const rest = args.slice(i);
      const dashes = rest.indexOf("--");
      return (dashes < 0 ? rest : rest.slice(0, dashes))
        .find((a) => a === "--ext-diff" || a === "--no-index");
    }
  }
  return undefined;
}

/** Everything wrong with what bash expanded for an allowed line. */
async function violations(expanded: Expanded, cwd: string, root: string): Promise<string[]> {
  const found: string[] = [];
  const inside = async (path: string) => {
    const real = await physical(path, cwd);
    return real === root || real.startsWith(`${root}/`);
  };
  for (const argv of expanded.commands) {
    if (argv.length === 0) continue;
    const [program, ...args] = argv;
    if (!DEFAULT_SHELL_ALLOWLIST.includes(program)) found.push(`runs '${program}'`);
    const danger = dangerousOption(argv);
    if (danger) found.push(`${program} gets the dangerous option '${danger}'`);
    if (TEXT_PROGRAMS.has(program)) continue;
    for (const arg of args) {
      for (const candidate of candidates(program, arg)) {
        if (!(await inside(candidate))) {
          found.push(`${program} gets the path '${arg}' outside the roots`);
        }
      }
    }
  }
  for (const target of expanded.targets) {
    if (target.length !== 1) continue; // bash refuses an ambiguous redirection
    if (target[0] === "/dev/null") continue;
    if (!(await inside(target[0]))) found.push(`redirects to '${target[0]}' outside the roots`);
  }
  return found;
}

Deno.test("property: every line the policy allows expands, in real bash, to allowlisted programs and paths inside the roots", async () => {
  const seed = Number(Deno.env.get("SHELL_PROPERTY_SEED") ?? 20_260_514);
  console.log(`shell policy property test: seed ${seed} (SHELL_PROPERTY_SEED=${seed} replays it)`);
  const scratch = await makeScratch();
  try {
    const generator = makeGenerator(seed);
    const started = performance.now();
    const allowed: { line: string; oracle: string; dir: string; substitutes: boolean }[] = [];
    const decisions = { allow: 0, ask: 0, deny: 0 };
    for (let i = 0; i < CASES; i++) {
      const root = scratch.roots[i % 2];
      const generated = generator.line();
      const verdict = await judgeCommand(generated.line, {
        policy: "ask",
        allowlist: DEFAULT_SHELL_ALLOWLIST,
        roots: [root],
        cwd: root,
        home: scratch.home,
        path: "/usr/bin:/bin",
      });
      decisions[verdict.decision] += 1;
      if (verdict.decision === "allow") allowed.push({ ...generated, dir: root });
    }
    const judged = performance.now();
    const failures: string[] = [];
    // A substitution would run a program; the policy must never allow one, and the test never runs one.
    for (const c of allowed.filter((c) => c.substitutes)) {
      failures.push(`allowed a substitution: ${c.line}`);
    }
    const runnable = allowed.filter((c) => !c.substitutes);
    for (let start = 0; start < runnable.length; start += BATCH) {
      const batch = runnable.slice(start, start + BATCH);
      const results = await expandWithBash(batch, scratch.home);
      for (let k = 0; k < batch.length; k++) {
        const problems = await violations(results[k], batch[k].dir, batch[k].dir);
        for (const problem of problems) {
          failures.push(`${JSON.stringify(batch[k].line)}: ${problem}`);
        }
      }
    }
    const seconds = (from: number, to = performance.now()) => ((to - from) / 1000).toFixed(1);
    console.log(
      `${CASES} lines in ${seconds(started)} s (judged in ${seconds(started, judged)} s): ` +
        `${decisions.allow} allowed (checked in bash), ${decisions.ask} ask, ${decisions.deny} deny`,
    );
    assert(
      decisions.allow >= CASES / 10,
      `too few lines allowed to test anything (${decisions.allow})`,
    );
    assertEquals(failures.slice(0, 20), [], `seed ${seed}: ${failures.length} violations`);
  } finally {
    await Deno.remove(scratch.base, { recursive: true });
  }
});

Deno.test("property oracle: it catches what the policy must not allow", async () => {
  const scratch = await makeScratch();
  try {
    const root = scratch.roots[0];
    const lines = [
      ["cat \\/etc/passwd", "printf '\\001C\\0'; printf '%s\\0' S cat \\/etc/passwd"],
      ["sort -o/etc/x a.txt", "printf '\\001C\\0'; printf '%s\\0' S sort -o/etc/x a.txt"],
      ["sort --co=sh a.txt", "printf '\\001C\\0'; printf '%s\\0' S sort --co=sh a.txt"],
      ["./ls", "printf '\\001C\\0'; printf '%s\\0' S ./ls"],
      [
        "echo > link/x",
        "printf '\\001C\\0'; printf '%s\\0' S echo; printf '\\001R\\0'; printf '%s\\0' S link/x",
      ],
      ["cat ~/x", "printf '\\001C\\0'; printf '%s\\0' S cat ~/x"],
      ["git -c a=b status", "printf '\\001C\\0'; printf '%s\\0' S git -c a=b status"],
    ];
    const results = await expandWithBash(
      lines.map(([, oracle]) => ({ dir: root, oracle })),
      scratch.home,
    );
    for (let i = 0; i < lines.length; i++) {
      const problems = await violations(results[i], root, root);
      assert(problems.length > 0, `the oracle missed ${lines[i][0]}`);
    }
    const fine = await expandWithBash([{
      dir: root,
      oracle: "printf '\\001C\\0'; printf '%s\\0' S cat a.txt sub/c.txt",
    }], scratch.home);
    assertEquals(await violations(fine[0], root, root), []);
  } finally {
    await Deno.remove(scratch.base, { recursive: true });
  }
});
