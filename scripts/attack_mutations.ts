/**
 * `deno task attack:mutations`: proof that each attack class's test guards its
 * defence. For every class it copies the source tree into a temporary
 * directory, turns that class's defence off (one textual change, which must
 * apply exactly — a mutation that no longer finds its target fails loudly, so
 * this list cannot rot silently), runs the class's test there and expects it
 * to FAIL. A mutation whose test still passes means the defence is untested.
 * Prints a table; exits 1 when any mutation survives or does not apply.
 *
 * `deno task attack:mutations error` runs only the classes whose name contains "error".
 */

import { dirname, join } from "node:path";

/** One textual change, or (`from`) the whole file as it was at a commit. */
type Edit =
  | { file: string; find: string | RegExp; replace: string }
  | { file: string; from: string; append?: string };

/** The last commit before issue 14's defences: what "the defence off" means for a rewrite. */
const BEFORE = "7f4067e";

/** One defence switched off. */
interface Mutation {
  /** The attack class (a row of the attack table). */
  name: string;
  /** What the change does, in words. */
  defence: string;
  edits: Edit[];
  /** The test file and the test's name (a --filter) that must fail. */
  test: string;
  filter: string;
}

const ATTACKS = "tests/e2e/attack_classes_test.ts";
const CHANNEL_ATTACKS = "tests/e2e/attack_channels_test.ts";
const MCP_ATTACKS = "tests/e2e/attack_mcp_test.ts";
const SKILL_ATTACKS = "tests/e2e/attack_skills_test.ts";

const MUTATIONS: Mutation[] = [
  {
    name: "hostile skill instructions",
    defence: "a skill's instructions are its author's words: labelled, they taint the turn",
    edits: [{
      file: "src/app/skills.ts",
      find: "untrusted(`skill:${name} instructions`, `${opened.body}${files}`)",
      replace: "hobWrote(`${opened.body}${files}`)",
    }, {
      file: "src/builtins/use_skill.ts",
      find: "  untrusted_output: true,",
      replace: "  untrusted_output: false,",
    }],
    test: SKILL_ATTACKS,
    filter: "may only read",
  },
  {
    name: "skill changed after install",
    defence: "a skill is used only while its files hash to what the owner accepted",
    edits: [{
      file: "src/skills/shelf.ts",
      find: '      : install.accepted_hash === folder.hash\n      ? "active"\n      : "changed";',
      replace: '      : "active";',
    }],
    test: SKILL_ATTACKS,
    filter: "changes after install",
  },
  {
    name: "skill script reads HOME/token",
    defence: "a skill's script reads only its own folder and the workspace",
    edits: [{
      file: "src/runtime/skill_scripts.ts",
      find: "    read: [folder, workspace],",
      replace: '    read: [folder, workspace, workspace.replace(/[/]workspace$/, "")],',
    }],
    test: SKILL_ATTACKS,
    filter: "HOME/token",
  },
  {
    name: "error text",
    defence: "a tool's error is labelled like its output",
    edits: [{
      file: "src/tools/call_dispatch.ts",
      find: "return { content: message.error, is_error: true, own: false, carried };",
      replace: "return { content: message.error, is_error: true, own: true, carried };",
    }],
    test: ATTACKS,
    filter: "error message",
  },
  {
    name: "file names",
    defence: "list_directory and search_files are untrusted (names are outside text)",
    edits: ["list_directory", "search_files"].map((tool) => ({
      file: `src/builtins/${tool}.ts`,
      find: `\n  name: "${tool}",\n`,
      replace: `\n  name: "${tool}",\n  untrusted_output: false,\n`,
    })),
    test: ATTACKS,
    filter: "file names",
  },
  {
    name: "task summary",
    defence: "a tainted task run's summary keeps the label",
    edits: [{
      file: "src/tasks/worker.ts",
      find: "const text: string = derivedText(declared.text, run.taint, `task ${task.id}`);",
      replace: "const text: string = declared.text;",
    }],
    test: ATTACKS,
    filter: "background task",
  },
  {
    name: "client tool result",
    defence: "an OpenAI client's tool results are labelled",
    edits: [{
      file: "src/http/openai_api.ts",
      find: "content: untrusted(`${name} (a tool of the API client)`, text),",
      replace: "content: text as never,",
    }],
    test: ATTACKS,
    filter: "OpenAI client",
  },
  {
    name: "flush laundering",
    defence: "a tainted stretch gets no silent save turn, and its summary keeps the label",
    edits: [{
      file: "src/core/flush.ts",
      find: "const taint = transcriptTaint(older, mark.summary);",
      replace: "const taint = null as string | null;",
    }],
    test: ATTACKS,
    filter: "auto-flush",
  },
  {
    name: "code crash",
    defence: "run_code runs in a process of its own, not a Worker inside hob",
    edits: [{
      file: "src/sandbox/routing.ts",
      find: 'new Set(["run_code"])',
      replace: "new Set<string>([])",
    }],
    test: ATTACKS,
    filter: "take hob down",
  },
  {
    name: "declared side effect",
    defence: "a user tool's side effect follows its permissions, not its label",
    edits: [{
      file: "src/tools/user_tools.ts",
      find: "side_effect: effectiveSideEffect(tool.side_effect, permissions),",
      replace: "side_effect: tool.side_effect,",
    }],
    test: ATTACKS,
    filter: "no side effects but may write",
  },
  {
    name: "shell expansion",
    defence: "the shell policy judges the expanded argv (here: the raw words instead)",
    edits: [{
      file: "src/shell/policy.ts",
      from: BEFORE,
      // What today's run_python imports from the new policy, so only the judging changes.
      append: `
export async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 12);
}
`,
    }],
    test: ATTACKS,
    filter: "hide what will run",
  },
  {
    name: "reading carried out",
    defence: "a tainted turn's reading tools reach only addresses it was pointed at",
    edits: [{
      file: "src/tools/call_policy.ts",
      find: "const away = tainted ? null : awayFrom(input);",
      replace: "const away = null as string | null;",
    }],
    test: ATTACKS,
    filter: "no quiet way out",
  },
  {
    name: "memory context: labelled entries",
    defence: "the memory context leaves out labelled entries of MEMORY.md and the daily logs",
    edits: [{
      file: "src/memory/context.ts",
      find: "const lines = trustedLines(await sources.read(path), leftOut).map(inert);",
      replace:
        'const lines = (await sources.read(path)).split("\\n").map((text, i) => ({ text, first: i + 1, last: i + 1 }));',
    }],
    test: "tests/e2e/day_of_use_test.ts",
    filter: "a day of use",
  },
  {
    name: "memory context: source hits",
    defence: "the memory context counts search hits that hold text from outside, never shows them",
    edits: [{
      file: "src/memory/context.ts",
      find: "const trusted = fresh.filter((hit) => untrustedSource(hit.snippet) === null);",
      replace: "const trusted = fresh;",
    }],
    test: "tests/e2e/day_of_use_test.ts",
    filter: "a day of use",
  },
  {
    name: "always scope",
    defence: "an approval is remembered for a program and the risk class of its arguments",
    edits: [{
      file: "src/shell/policy.ts",
      find: "const shape = await shapeOf(command, analysis);",
      replace: 'const shape = analysis.programs.join(" ");',
    }],
    test: ATTACKS,
    filter: "'always'",
  },
  {
    name: "DNS rebinding",
    defence: "fetch_url connects to the address it checked (here: it resolves the name again)",
    edits: [{
      file: "src/tools/web/get.ts",
      find: "await pinnedGet(target, addresses, {",
      replace:
        "await pinnedGet(target, await resolveFetchable(target, { ...policy, allow_private: true }), {",
    }],
    test: ATTACKS,
    filter: "DNS rebinding",
  },
  {
    name: "telegram forward",
    defence: "a forwarded Telegram message (or an inline bot's) is its author's, not the owner's",
    edits: [{
      file: "src/channels/telegram_carried.ts",
      find: "const passedOn = forwardedFrom(message) ?? inlineBot(message, selfId);",
      replace: "const passedOn = null as CarriedFrom | null;",
    }],
    test: CHANNEL_ATTACKS,
    filter: "Telegram message the owner forwarded",
  },
  {
    name: "telegram reply, quote",
    defence: "what the owner replies to or quotes reaches the model labelled as its author's",
    edits: [{
      file: "src/channels/turn_text.ts",
      find: "    parts.push(untrusted(source, item.text));\n    tainted ??= source;",
      replace: "    parts.push(words.owner ? item.text : untrusted(source, item.text));",
    }],
    test: CHANNEL_ATTACKS,
    filter: "Telegram reply to, or quote of",
  },
  {
    name: "matrix reply fallback",
    defence: "a Matrix reply's fallback and quotes are sorted out of the owner's words",
    edits: [{
      file: "src/channels/matrix.ts",
      find: "  return matrixWords(event.content);",
      replace:
        '  return { text: event.content.body ?? "", carried: [], replyTo: null, fallback: "" };',
    }],
    test: CHANNEL_ATTACKS,
    filter: "Matrix reply whose fallback",
  },
  {
    name: "matrix edit",
    defence: "a Matrix edit (m.replace) is not answered as a new message",
    edits: [{
      file: "src/channels/matrix.ts",
      find: "  if (isEdit(event.content)) return null;\n",
      replace: "",
    }],
    test: CHANNEL_ATTACKS,
    filter: "Matrix edit",
  },
  {
    name: "email forward",
    defence: "a forwarded mail (and a forwarded mail's subject) is its author's",
    edits: [{
      file: "src/channels/email_carried.ts",
      find: "const forward = forwardIn(clean, subject);",
      replace: "const forward = null as Forward | null;",
    }],
    test: CHANNEL_ATTACKS,
    filter: "mail the owner forwarded",
  },
  {
    name: "email quoted",
    defence: "text quoted anywhere in a mail is its author's",
    edits: [{
      file: "src/channels/email_carried.ts",
      find: "const quotes = quotesIn(own, answersHob);",
      replace: "const quotes = { own, carried: [] as CarriedText[] };",
    }],
    test: CHANNEL_ATTACKS,
    filter: "quotes in a mail",
  },
  {
    name: "email message/rfc822",
    defence: "a mail inside a mail stays an attachment, read as its author's (even marked inline)",
    edits: [{
      file: "src/channels/email.ts",
      find: "    ignoreEmbedded: true,\n",
      replace: "",
    }],
    test: CHANNEL_ATTACKS,
    filter: "mail attached to the owner's mail",
  },
  {
    name: "MCP pinning",
    defence: "an MCP tool is offered only while its definition has the hash the owner approved",
    edits: [{
      file: "src/mcp/client.ts",
      find: 'const approval = pin?.hash === hash ? "approved" : pin ? "changed" : "new";',
      replace: 'const approval = "approved";',
    }],
    test: MCP_ATTACKS,
    filter: "MCP server",
  },
  {
    name: "MCP labels",
    defence: "what models read of an MCP tool (description, schema texts) is labelled as its words",
    edits: [{
      file: "src/tools/registry.ts",
      find: 'return origin.kind === "mcp"\n        ? labelledSpec(',
      replace: 'return origin.kind === "none"\n        ? labelledSpec(',
    }],
    test: MCP_ATTACKS,
    filter: "find_tools quotes",
  },
  {
    name: "policy budget",
    defence: "judging a command line stops when it expands to too much, looks at too many files, " +
      "or takes too long (here: a budget with no limits)",
    edits: [{
      file: "src/shell/budget.ts",
      find: "this.limits = { ...JUDGE_LIMITS, ...limits };",
      replace:
        "this.limits = { words: Infinity, chars: Infinity, entries: Infinity, ms: Infinity };",
    }],
    test: "tests/e2e/attack_policy_budget_test.ts",
    filter: "work for ever",
  },
  {
    name: "file race",
    defence: "file tools check that what they opened is what the containment check resolved",
    edits: [{
      file: "src/sandbox/paths.ts",
      find:
        "  const realRoots = roots.map(canonicalRootSync);\n  if (!realRoots.some((root) => isInside(real, root))) throw new PathChangedError(shown);",
      replace: "  return;",
    }],
    test: "tests/builtins/file_race_test.ts",
    filter: "swapped for a link",
  },
  {
    name: "lockout",
    defence: "only a wrong token whose sender can read the answer counts, and the right one passes",
    edits: [{
      file: "src/http/auth.ts",
      find:
        "    if (timingSafeEqual(digest(candidate), expected)) return { ok: true };\n    if (!couldReadAnswer(c)) return { ok: false, retryAfter: 0 };",
      // The old rule: every wrong token counts, and a locked-out address waits even with the right one.
      replace:
        "    const held = retryAfter(c);\n    if (held > 0) return { ok: false, retryAfter: held };\n    if (timingSafeEqual(digest(candidate), expected)) return { ok: true };\n    strike(c);\n    return { ok: false, retryAfter: 0 };",
    }],
    test: "tests/http/guard_test.ts",
    filter: "cross-site navigations",
  },
  {
    name: "secrets shown",
    defence: "secrets are marked in the config schema and hidden wherever config is shown",
    edits: [{
      file: "src/config/schema.ts",
      find:
        '    user: z.string().optional().describe("The user to log in as."),\n    password: secret(z.string()).optional()',
      replace:
        '    user: z.string().optional().describe("The user to log in as."),\n    password: z.string().optional()',
    }, {
      // What redaction reads: the marks generated from the schema (deno task gen:config).
      file: "src/config/marks.gen.ts",
      find: '  "email": {\n    "smtp": {\n      "password": "secret",\n    },\n  },',
      replace: '  "email": {\n    "smtp": {},\n  },',
    }],
    test: "tests/config/redact_test.ts",
    filter: "config show",
  },
];

const ROOT = new URL("../", import.meta.url).pathname;

/** The files of the working tree git knows of (tracked or new), not ignored ones. */
async function sourceFiles(): Promise<string[]> {
  const output = await new Deno.Command("git", {
    args: ["ls-files", "-co", "--exclude-standard", "-z"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  if (!output.success) throw new Error("git ls-files failed");
  return new TextDecoder().decode(output.stdout).split("\0").filter(Boolean);
}

async function copyTree(files: string[], to: string): Promise<void> {
  for (const file of files) {
    await Deno.mkdir(join(to, dirname(file)), { recursive: true });
    await Deno.copyFile(join(ROOT, file), join(to, file)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error; // deleted but not staged
    });
  }
}

/** Applies one mutation in the copy; throws when a target is not there exactly once. */
async function mutate(copy: string, mutation: Mutation): Promise<void> {
  for (const edit of mutation.edits) {
    const path = join(copy, edit.file);
    if ("from" in edit) {
      await Deno.writeTextFile(path, (await gitShow(edit.from, edit.file)) + (edit.append ?? ""));
      continue;
    }
    const text = await Deno.readTextFile(path);
    const count = typeof edit.find === "string"
      ? text.split(edit.find).length - 1
      : [...text.matchAll(new RegExp(edit.find, "g"))].length;
    if (count !== 1) {
      throw new Error(
        `the mutation for '${mutation.name}' finds its target ${count} times in ${edit.file}`,
      );
    }
    await Deno.writeTextFile(path, text.replace(edit.find, edit.replace));
  }
}

async function gitShow(commit: string, file: string): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["show", `${commit}:${file}`],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  if (!output.success) throw new Error(`git show ${commit}:${file} failed`);
  return new TextDecoder().decode(output.stdout);
}

async function runTest(
  copy: string,
  mutation: Mutation,
): Promise<{ failed: boolean; log: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      // A mutant may not type-check (an older file under today's callers); it must fail by behaviour.
      "--no-check",
      "--allow-all",
      "--unstable-worker-options",
      "--unstable-cron",
      mutation.test,
      "--filter",
      mutation.filter,
    ],
    cwd: copy,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (/ 0 passed.* 0 failed/.test(log) || /0 passed \| 0 failed/.test(log)) {
    throw new Error(`the filter '${mutation.filter}' matches no test in ${mutation.test}`);
  }
  return { failed: !output.success, log };
}

if (import.meta.main) {
  const only = Deno.args[0];
  const chosen = MUTATIONS.filter((m) => !only || m.name.includes(only));
  const files = await sourceFiles();
  const rows: string[] = ["| class | defence switched off | its test |", "|---|---|---|"];
  let survived = 0;
  for (const mutation of chosen) {
    const copy = await Deno.makeTempDir({ prefix: "hob-mutation-" });
    let verdict: string;
    try {
      await copyTree(files, copy);
      await mutate(copy, mutation);
      const { failed, log } = await runTest(copy, mutation);
      verdict = failed ? "fails (the defence is tested)" : "PASSES: the defence is untested";
      if (!failed) {
        survived++;
        console.error(log.slice(-3_000));
      }
    } catch (error) {
      survived++;
      verdict = `ERROR: ${(error as Error).message}`;
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
    rows.push(`| ${mutation.name} | ${mutation.defence} | ${verdict} |`);
    console.error(`${mutation.name}: ${verdict}`);
  }
  console.log(`\n${rows.join("\n")}\n`);
  if (survived > 0) Deno.exit(1);
}
