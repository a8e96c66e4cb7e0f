/**
 * The shell policy: what a command line would run, read from a real shell
 * parser's syntax tree (mvdan/sh, as used by shfmt), never from a regex over
 * the raw string. Pipes, `;`, `&&`, `$()`, backticks, `env bash -c`,
 * `python -c`, base64 piped into `sh` and comment tails are seen for what they
 * are. The one check every subprocess a tool starts goes through.
 */

import { isAbsolute, resolve } from "node:path";
import { isInside } from "../sandbox/paths.ts";

/** What the user's shell policy is: nothing runs, only the allowlist runs, or anything else asks. */
export type ShellPolicy = "deny" | "allowlist" | "ask";

/** The verdict on one command line. */
export interface ShellVerdict {
  decision: "allow" | "ask" | "deny";
  /** Why, for the approval prompt and for the model when it is denied. */
  reason: string;
  /** The programs it runs, sorted, for remembering an approval ("git ls"). */
  shape: string;
}

/** What a command line would do, as far as its syntax shows. */
export interface CommandAnalysis {
  /** The argv of every simple command, pipelines and substitutions included. */
  commands: string[][];
  /** Every program started, by base name, after unwrapping env, nice, timeout, … */
  programs: string[];
  /** What makes it unsafe to run unasked, in words. */
  risks: string[];
}

/** Settings the verdict depends on. */
export interface ShellPolicySettings {
  policy: ShellPolicy;
  allowlist: string[];
  /** Directories paths in arguments may point into: the workspace first. */
  roots: string[];
}

/** Shells: any use of one runs code the policy cannot see. */
const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "busybox",
]);
/** Interpreters that run code given on the command line or read from stdin. */
const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "php",
  "lua",
  "tclsh",
  "osascript",
  "pwsh",
  "powershell",
  "awk",
  "gawk",
  "mawk",
  "nawk",
]);
/** Flags after which an interpreter takes code, not a file. */
const CODE_FLAGS = new Set(["-c", "-e", "-E", "--eval", "-p", "--print", "-r", "--command"]);
/** Programs that run the rest of their arguments as another command. */
const WRAPPERS = new Set([
  "env",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "ionice",
  "time",
  "command",
  "builtin",
  "chrt",
  "taskset",
]);
/** Programs that run other programs in ways the policy cannot follow. */
const ESCALATORS = new Map([
  ["sudo", "runs a command as another user"],
  ["doas", "runs a command as another user"],
  ["su", "runs a command as another user"],
  ["eval", "runs a string as shell code"],
  ["exec", "replaces the shell with another program"],
  ["source", "runs a file as shell code"],
  [".", "runs a file as shell code"],
  ["xargs", "runs commands built from its input"],
  ["parallel", "runs commands built from its input"],
  ["watch", "runs a command repeatedly"],
  ["ssh", "runs commands on another machine"],
  ["chroot", "runs a command in another root"],
]);
/** find's actions that run or delete things. */
const FIND_ACTIONS = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
]);
/** Device files that are harmless to name: read from, or (the first three) write to. */
const WRITABLE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);
const READABLE_DEVICES = new Set([
  ...WRITABLE_DEVICES,
  "/dev/zero",
  "/dev/urandom",
  "/dev/random",
  "/dev/stdin",
]);
/** git options that change what git runs. */
const GIT_RISKY = new Set(["-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack"]);

// mvdan/sh's syntax package, loaded on first use (it is ~1.5 MB of JavaScript).
// deno-lint-ignore no-explicit-any
type Syntax = any;
let syntaxModule: Promise<{ syntax: Syntax; ops: Map<number, string> }> | undefined;

function loadSyntax() {
  return syntaxModule ??= import("mvdan-sh").then((module) => {
    const syntax = module.default.syntax;
    // Learn the redirect operators' token numbers from the parser itself.
    const ops = new Map<number, string>();
    const parser = syntax.NewParser();
    for (const op of [">", ">>", "<", "<>", "<&", ">&", ">|", "<<<", "&>", "&>>"]) {
      syntax.Walk(parser.Parse(`x ${op} a`, ""), (node: Syntax) => {
        if (node && syntax.NodeType(node) === "Redirect") ops.set(node.Op, op);
        return true;
      });
    }
    return { syntax, ops };
  });
}

/**
 * Parses a command line and lists what it would run and what makes it risky.
 * Throws a readable Error when the line does not parse.
 *
 * @example
 * ```ts
 * const { programs, risks } = await analyzeCommand("echo aGk= | base64 -d | sh", ["/work"]);
 * // programs: ["echo", "base64", "sh"]; risks: ["sh runs shell code it reads from its input"]
 * ```
 */
export async function analyzeCommand(command: string, roots: string[]): Promise<CommandAnalysis> {
  const { syntax, ops } = await loadSyntax();
  let file: Syntax;
  try {
    file = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(command, "");
  } catch (error) {
    const message = (error as { message?: string })?.message ?? String(error);
    throw new Error(`The command does not parse as shell: ${message.replace(/^:?\d+:\d+: /, "")}`);
  }
  const analysis: CommandAnalysis = { commands: [], programs: [], risks: [] };
  const risk = (text: string) => {
    if (!analysis.risks.includes(text)) analysis.risks.push(text);
  };
  const cwd = roots[0] ?? "/";

  const checkPath = (text: string, what: string) => {
    const value = text.includes("=") && text.startsWith("-")
      ? text.slice(text.indexOf("=") + 1)
      : text;
    if (value.startsWith("~")) return risk(`${what} '${value}' is in a home directory`);
    if (!isAbsolute(value) && !/(^|\/)\.\.(\/|$)/.test(value)) return;
    if ((what === "writes to" ? WRITABLE_DEVICES : READABLE_DEVICES).has(value)) return;
    const full = resolve(cwd, value);
    if (!roots.some((root) => isInside(full, root))) {
      risk(`${what} '${value}' is outside the allowed directories`);
    }
  };

  syntax.Walk(file, (node: Syntax) => {
    if (!node) return true;
    switch (syntax.NodeType(node)) {
      case "CmdSubst":
        risk("runs a command substitution ($(…) or backticks) whose output becomes arguments");
        break;
      case "ProcSubst":
        risk("uses process substitution <(…)");
        break;
      case "ParamExp":
        risk(
          `expands the variable $${node.Param?.Value ?? "?"}, whose value is not known in advance`,
        );
        break;
      case "FuncDecl":
        risk("defines a shell function");
        break;
      case "Redirect": {
        const op = ops.get(node.Op) ?? "";
        const target = literal(syntax, node.Word);
        if ([">", ">>", ">|", "&>", "&>>", "<>"].includes(op)) {
          if (target === null) risk(`writes to a file named by an expansion`);
          else checkPath(target, "writes to");
        } else if (op === "<" && target !== null) {
          checkPath(target, "reads");
        }
        break;
      }
      case "CallExpr": {
        for (const assign of node.Assigns ?? []) {
          risk(`sets the environment variable ${assign.Name?.Value ?? "?"} for the command`);
        }
        const argv = (node.Args ?? []).map((word: Syntax) => literal(syntax, word));
        if (argv.length === 0) break;
        analysis.commands.push(argv.map((a: string | null) => a ?? "<expansion>"));
        inspectCall(argv, analysis, risk, checkPath);
        break;
      }
    }
    return true;
  });
  analysis.programs = [...new Set(analysis.programs)].sort();
  return analysis;
}

/**
 * The policy's verdict on a command line.
 *
 * @example
 * ```ts
 * await judgeCommand("ls -la", { policy: "allowlist", allowlist: ["ls"], roots: ["/work"] });
 * // { decision: "allow", reason: "runs ls", shape: "ls" }
 * ```
 */
export async function judgeCommand(
  command: string,
  settings: ShellPolicySettings,
): Promise<ShellVerdict> {
  if (settings.policy === "deny") {
    return { decision: "deny", reason: "the shell policy is 'deny': no commands run", shape: "" };
  }
  let analysis: CommandAnalysis;
  try {
    analysis = await analyzeCommand(command, settings.roots);
  } catch (error) {
    return { decision: "deny", reason: (error as Error).message, shape: "" };
  }
  const shape = analysis.programs.join(" ");
  if (analysis.commands.length === 0) {
    return { decision: "deny", reason: "the command runs nothing", shape };
  }
  const allowed = new Set(settings.allowlist);
  const unlisted = analysis.programs.filter((program) => !allowed.has(program));
  const problems = [
    ...(unlisted.length > 0 ? [`runs ${unlisted.join(", ")}, not on the allowlist`] : []),
    ...analysis.risks,
  ];
  if (problems.length === 0) return { decision: "allow", reason: `runs ${shape}`, shape };
  return {
    decision: settings.policy === "allowlist" ? "deny" : "ask",
    reason: problems.join("; "),
    shape,
  };
}

function inspectCall(
  argv: (string | null)[],
  analysis: CommandAnalysis,
  risk: (text: string) => void,
  checkPath: (text: string, what: string) => void,
): void {
  let rest = argv;
  while (rest.length > 0) {
    const first = rest[0];
    if (first === null) {
      risk("runs a program named by an expansion");
      return;
    }
    const program = first.split("/").pop()!;
    analysis.programs.push(program);
    const args = rest.slice(1);
    for (const arg of args) if (arg !== null) checkPath(arg, "names the path");

    if (SHELLS.has(program)) {
      risk(
        args.some((a) => a === "-c" || (a ?? "").match(/^-[a-z]*c[a-z]*$/))
          ? `${program} -c runs a string as shell code`
          : `${program} runs shell code it reads from its input or a script`,
      );
      return;
    }
    if (INTERPRETERS.has(program)) {
      if (args.some((a) => a !== null && CODE_FLAGS.has(a))) {
        risk(`${program} runs code given on the command line`);
      } else if (program.endsWith("awk")) {
        risk(`${program} runs an awk program, which can start other programs`);
      } else if (!args.some((a) => a !== null && !a.startsWith("-"))) {
        risk(`${program} runs code it reads from its input`);
      }
      return;
    }
    const escalation = ESCALATORS.get(program);
    if (escalation) {
      risk(`${program} ${escalation}`);
      return;
    }
    if (program === "find" && args.some((a) => a !== null && FIND_ACTIONS.has(a))) {
      risk("find -exec/-delete runs or deletes things");
    }
    if (
      program === "git" &&
      args.some((a) => a !== null && (GIT_RISKY.has(a) || a.startsWith("--config-env")))
    ) {
      risk("git -c/--exec-path changes what git runs");
    }
    if (WRAPPERS.has(program)) {
      // env VAR=x cmd, nice -n 5 cmd, timeout 5 cmd: check the command they run.
      let i = 0;
      while (i < args.length) {
        const arg = args[i];
        if (arg === null) break;
        if (arg.startsWith("-")) {
          i += 1;
          if (["-n", "-u", "-s", "-k", "--signal", "--kill-after", "-c", "-p"].includes(arg)) {
            i += 1;
          }
          continue;
        }
        if (program === "env" && arg.includes("=")) {
          risk(`sets the environment variable ${arg.split("=")[0]} for the command`);
          i += 1;
          continue;
        }
        if (program === "timeout" && /^\d+(\.\d+)?[smhd]?$/.test(arg)) {
          i += 1;
          continue;
        }
        break;
      }
      rest = args.slice(i);
      continue;
    }
    return;
  }
}

/** A word's literal text, or null when part of it is expanded at run time. */
function literal(syntax: Syntax, word: Syntax): string | null {
  if (!word) return null;
  let text = "";
  for (const part of word.Parts ?? []) {
    const type = syntax.NodeType(part);
    if (type === "Lit" || type === "SglQuoted") {
      text += part.Value;
    } else if (type === "DblQuoted") {
      for (const inner of part.Parts ?? []) {
        if (syntax.NodeType(inner) !== "Lit") return null;
        text += inner.Value;
      }
    } else {
      return null;
    }
  }
  return text;
}
