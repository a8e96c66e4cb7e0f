/**
 * The product runs as shipped in its tests. Every `deno run` a test or a
 * benchmark writes is given the permissions it needs, never all of them (no
 * `-A`, `--allow-all`, nor `deno eval`, which grants all); and hob's entry,
 * main.ts, runs only with deno.json's `hob` task flags (HOB_FLAGS, through
 * tests/helpers/hob_process.ts), narrowed at most by `--deny-*`. A test run
 * under `deno test --allow-all` that started hob with more would let a code
 * path that needs a permission hob lacks pass here and fail for the user:
 * that is how the email channel never connected under `hob serve`.
 *
 * Command lines are found with Deno's own parser (the lint plugin API): each
 * array literal that starts `"run"` or `"eval"` (after `Deno.execPath()`, if
 * the program is in it), and each YAML list `[run, …]` a test writes into
 * hob.yaml for a server hob starts.
 */

import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { HOB_FLAGS, runHobCode } from "../helpers/hob_process.ts";
import { refused } from "../helpers/permission_audit.ts";

const ROOT = new URL("../../", import.meta.url);
const SCANNED = ["tests/", "bench/"];

/**
 * Spreads that stand for the `hob` task's flags: HOB_FLAGS, and in
 * bench/startup.ts each measured revision's own (`hobFlags(root)`).
 */
const HOB_TASK_FLAGS = ["...HOB_FLAGS", "...launch.flags"];

/** Files whose command lines may grant every permission, each with why. Never hob. */
const EVERY_PERMISSION_BECAUSE: Record<string, string> = {
  "bench/indexing.ts":
    "its child reads /proc/stat for the load beside the run, which Deno grants only to " +
    "--allow-all; it runs the measured checkout's indexing, not hob",
};

/** One command line that breaks the rule, and how. */
export interface Offence {
  file: string;
  line: number;
  /** The command line as written. */
  text: string;
  why: string;
}

/** A command line found in a file: its words as written, its text and line. */
interface CommandLine {
  words: string[];
  text: string;
  line: number;
}

function unquote(word: string): string {
  return word.replace(/^(["'`])(.*)\1$/s, "$2");
}

/** The command lines of `deno` in `source`: array literals and YAML lists. */
export function commandLines(file: string, source: string): CommandLine[] {
  const found: CommandLine[] = [];
  const lineOf = (offset: number) => source.slice(0, offset).split("\n").length;
  const plugin: Deno.lint.Plugin = {
    name: "hob-flags",
    rules: {
      commands: {
        create: (context) => ({
          ArrayExpression(node) {
            let words = node.elements.map((element) =>
              !element ? "" : element.type === "SpreadElement"
                // A spread's own range covers only its dots.
                ? `...${context.sourceCode.getText(element.argument)}`
                : context.sourceCode.getText(element)
            );
            if (words[0] === "Deno.execPath()") words = words.slice(1);
            if (!["run", "eval"].includes(unquote(words[0] ?? ""))) return;
            found.push({
              words: words.map((word) => word.startsWith("...") ? word : unquote(word)),
              text: context.sourceCode.getText(node),
              line: lineOf(node.range[0]),
            });
          },
          TemplateLiteral(node) {
            const text = context.sourceCode.getText(node);
            for (const match of text.matchAll(/\[\s*(run|eval)\s*,([^\]]*)\]/g)) {
              found.push({
                words: [match[1], ...match[2].split(",").map((word) => unquote(word.trim()))],
                text: match[0],
                line: lineOf(node.range[0] + match.index),
              });
            }
          },
        }),
      },
    },
  };
  Deno.lint.runPlugin(plugin, file, source);
  return found;
}

/** Whether `word` names hob's entry: main.ts, or a constant holding its path. */
function namesEntry(word: string): boolean {
  return /\bmain\.ts\b/.test(word) || /^(MAIN|main)$/.test(word);
}

/** Why the flags of a command line that starts hob are not the hob task's, or null. */
function entryFlagsWrong(words: string[]): string | null {
  const entry = words.findIndex(namesEntry);
  const flags = words.slice(1, entry);
  if (!HOB_TASK_FLAGS.includes(flags[0])) {
    return "starts hob's entry without the hob task's flags first (...HOB_FLAGS)";
  }
  for (let i = 1; i < flags.length; i++) {
    const flag = flags[i];
    if (flag === "--config") i++;
    else if (!flag.startsWith("--deny-") && flag !== "--no-config") {
      return `starts hob's entry with ${flag} beside the hob task's flags (only --deny-* narrows)`;
    }
  }
  return null;
}

/** Every command line in `source` that breaks the rule. */
export function offences(file: string, source: string): Offence[] {
  const found: Offence[] = [];
  for (const { words, text, line } of commandLines(file, source)) {
    const offend = (why: string) => found.push({ file, line, text, why });
    if (words.some((word) => word === "-A" || word === "--allow-all")) {
      if (!(file in EVERY_PERMISSION_BECAUSE)) offend("grants every permission");
    }
    if (words[0] === "eval") {
      offend("deno eval grants every permission: run the code with hob's flags (runHobCode)");
    }
    if (words.some(namesEntry)) {
      const wrong = entryFlagsWrong(words);
      if (wrong) offend(wrong);
    }
  }
  return found;
}

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

Deno.test("offences finds each way to start a process with more than it is given", async (t) => {
  const seen = (source: string) => offences("x.ts", source).map((offence) => offence.why);
  await t.step("every permission, in code and in hob.yaml", () => {
    assertEquals(seen(`new Deno.Command(Deno.execPath(), { args: ["run", "-A", script] });`), [
      "grants every permission",
    ]);
    assertEquals(seen("const yaml = `args: [run, --allow-all, ${server}, stdio]`;"), [
      "grants every permission",
    ]);
    assertEquals(seen(`const argv = [Deno.execPath(), "eval", code];`).length, 1);
  });
  await t.step("hob's entry with other flags than the hob task's", () => {
    assertEquals(seen(`const a = ["run", "--allow-read", "--allow-net", MAIN, "serve"];`), [
      "starts hob's entry without the hob task's flags first (...HOB_FLAGS)",
    ]);
    assertEquals(seen("const a = [`run`, ...HOB_FLAGS, '--allow-ffi', `${ROOT}main.ts`];"), [
      "starts hob's entry with --allow-ffi beside the hob task's flags (only --deny-* narrows)",
    ]);
    assertEquals(seen(`const a = ["run", "-A", join(ROOT, "main.ts"), "ask"];`).length, 2);
  });
  await t.step("what is allowed", () => {
    assertEquals(seen(`const a = [Deno.execPath(), "run", ...HOB_FLAGS, MAIN, "serve"];`), []);
    assertEquals(
      seen(`const a = ["run", ...HOB_FLAGS, "--config", config, \`--deny-read=\${x}\`, MAIN];`),
      [],
    );
    assertEquals(seen(`const a = ["run", "--allow-net=127.0.0.1", "script.ts"];`), []);
    assertEquals(seen(`const a = ["-n", "-A", "-v"]; const b = ["test", "--allow-all"];`), []);
  });
});

Deno.test("no test or benchmark starts a process with every permission, nor hob with other flags than its own", async () => {
  const found: Offence[] = [];
  let lines = 0;
  for (const dir of SCANNED) {
    for await (const url of sourceFiles(new URL(dir, ROOT))) {
      const file = url.pathname.slice(ROOT.pathname.length);
      if (file === "tests/code/hob_flags_test.ts") continue; // its examples offend on purpose
      const source = await Deno.readTextFile(url);
      lines += commandLines(file, source).length;
      found.push(...offences(file, source));
    }
  }
  assert(lines > 20, `only ${lines} command lines found: has the way tests write them changed?`);
  assertEquals(
    found.map(({ file, line, text, why }) => `${file}:${line} ${why}: ${text.slice(0, 120)}`),
    [],
  );
});

Deno.test("hob's own flags grant no FFI, no sys access but the host name, and never prompt", () => {
  assert(!HOB_FLAGS.some((flag) => flag === "-A" || flag.startsWith("--allow-all")));
  assert(!HOB_FLAGS.some((flag) => flag.startsWith("--allow-ffi")), "FFI escapes every sandbox");
  // pino (imapflow's logger) reads os.hostname() when it loads: the email channel needs it.
  assertEquals(HOB_FLAGS.filter((flag) => flag.startsWith("--allow-sys")), [
    "--allow-sys=hostname",
  ]);
  // A permission hob lacks is an error its code handles, never a prompt that stops hob at a
  // terminal until someone answers it.
  assert(HOB_FLAGS.includes("--no-prompt"), HOB_FLAGS.join(" "));
  // docs/operations.md says what they are.
  const permissions = HOB_FLAGS.filter((flag) => /^--(allow-|no-prompt)/.test(flag)).join(" ");
  const docs = Deno.readTextFileSync(new URL("docs/operations.md", ROOT));
  assert(docs.includes(`\n${permissions}\n`), `docs/operations.md does not show: ${permissions}`);
});

Deno.test("refused reads what the flags do not grant from Deno's audit of a process", () => {
  const audit = [
    { permission: "sys", value: "hostname" },
    { permission: "sys", value: "cpus" },
    { permission: "sys", value: "cpus" },
    { permission: "read", value: "file:///srv/hob/main.ts" },
    { permission: "read", value: "/etc/passwd" },
    { permission: "env", value: null },
    { permission: "ffi", value: "/lib/x.so" },
    { permission: "sys", value: "networkInterfaces" },
  ].map((access) => JSON.stringify({ v: 1, datetime: "2026-11-29T00:00:00Z", ...access }))
    .join("\n") + '\n{"v":1,"permis'; // the line a killed process left half written
  const flags = ["--allow-read=/srv/hob", "--allow-env", "--allow-sys=hostname", "--no-prompt"];
  assertEquals(refused(audit, flags), [
    'sys "cpus" (2×)',
    'read "/etc/passwd" (1×)',
    'ffi "/lib/x.so" (1×)',
  ]);
  // Without --no-prompt, a refusal the code handles would still stop hob at a prompt.
  assertEquals(
    refused(audit, flags.slice(0, -1)).includes('sys "networkInterfaces" (1×)'),
    true,
  );
});

Deno.test("a hob process that is refused a permission fails its test, even when the code catches it", async () => {
  const error = await assertRejects(() =>
    runHobCode(`import os from "node:os";
      try { os.cpus(); } catch { /* a library that hopes for the best */ }
      console.log("fine");`)
  );
  assert(/asked for permissions its flags .* do not grant: sys "cpus" \(1×\)/.test(error.message));
  // What hob's flags grant passes.
  const { code, stdout } = await runHobCode(
    `import os from "node:os"; console.log(os.hostname());`,
  );
  assertEquals([code, stdout.trim().length > 0], [0, true]);
});
