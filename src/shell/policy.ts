/**
 * The shell policy: the one check every command line a tool hands to bash
 * goes through. The line is parsed by a real shell parser (mvdan/sh), every
 * word is expanded with bash's own rules (quotes, escapes, braces, `$'…'`,
 * tildes, variables, arithmetic), and what is judged is the argv each simple
 * command would really get — never the raw text. Programs are judged by a
 * table of their options; paths in arguments and redirections must stay in
 * the allowed directories; anything that cannot be known without running the
 * line asks. See analyze.ts for the walk, programs.ts and git.ts for the tables.
 *
 * Safety comes from the construction: a command runs unasked only when every
 * program in it is on the allowlist and every finding is benign (a write
 * inside the allowed directories, the network for a listed program, or a
 * listed program without a table). Everything the policy does not model is a
 * finding that is not benign.
 *
 * Judging a line is bounded (budget.ts): a line that expands to too much,
 * ranges over too many files, nests too deep or takes too long to judge is
 * not judged further, and asks. Where judging runs so that nothing a model
 * proposes holds hob's main thread is judge_thread.ts.
 */

import { isAbsolute, resolve } from "node:path";
import { type Analysis, analyze, type AnalyzeOptions } from "./analyze.ts";
import { BudgetExceeded, type JudgeLimits } from "./budget.ts";
import { digest } from "./digest.ts";
import { BENIGN, EXACT_ONLY, type Finding } from "./findings.ts";
import { ShellSyntaxError, ShellTooDeep } from "./parse.ts";
import { unjudgedVerdict } from "./unjudged.ts";
import type { ShellPolicy, ShellVerdict } from "./verdict.ts";

export type { Finding, Risk } from "./findings.ts";
export type { ShellPolicy, ShellVerdict } from "./verdict.ts";
export { digest };

/** What a command line would do, as far as its syntax and expansion show. */
export interface CommandAnalysis {
  /** The argv of every simple command, pipelines and substitutions included. */
  commands: string[][];
  /** Every program started: by name, or by path when run by a path. */
  programs: string[];
  /** What makes it unsafe to run unasked, in words. */
  risks: string[];
  /** The same, with the program and risk class of each. */
  findings: Finding[];
}

/** Settings the verdict depends on. */
export interface ShellPolicySettings {
  policy: ShellPolicy;
  /** Program names (run by name, found in PATH) or absolute paths. */
  allowlist: string[];
  /** Directories paths in arguments may point into: the workspace first. */
  roots: string[];
  /** Where the line runs; the workspace by default. */
  cwd?: string;
  /** HOME for `~`; the process's HOME by default. */
  home?: string;
  /** PATH the line runs with; the process's PATH by default. */
  path?: string;
  /** Limits on the work of judging the line; JUDGE_LIMITS by default. */
  limits?: Partial<JudgeLimits>;
}

/**
 * Parses a command line and lists what it would run and what makes it risky.
 * Throws a readable Error when the line does not parse.
 *
 * @example
 * ```ts
 * const { programs, risks } = await analyzeCommand("echo aGk= | base64 -d | sh", ["/work"]);
 * // programs: ["base64", "echo", "sh"]; risks: ["sh runs shell code it reads from its input", …]
 * ```
 */
export async function analyzeCommand(
  command: string,
  scope: string[] | AnalyzeOptions,
): Promise<CommandAnalysis> {
  const options = Array.isArray(scope) ? { roots: scope } : scope;
  let analysis: Analysis;
  try {
    analysis = await analyze(command, options);
  } catch (error) {
    if (error instanceof ShellSyntaxError) {
      throw new Error(`The command does not parse as shell: ${error.message}`);
    }
    throw error;
  }
  const risks = [
    ...new Set(analysis.findings.filter((f) => !BENIGN.has(f.risk)).map((f) => f.reason)),
  ];
  return { ...analysis, risks };
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
    analysis = await analyzeCommand(command, {
      roots: settings.roots,
      cwd: settings.cwd,
      home: settings.home ?? environment("HOME"),
      path: settings.path ?? environment("PATH"),
      limits: settings.limits,
    });
  } catch (error) {
    const why = unjudged(error);
    if (why) return await unjudgedVerdict(command, why, settings.policy);
    return { decision: "deny", reason: (error as Error).message, shape: "" };
  }
  const shape = await shapeOf(command, analysis);
  if (analysis.commands.length === 0 && analysis.findings.length === 0) {
    return { decision: "deny", reason: "the command runs nothing", shape };
  }
  const unlisted = analysis.programs.filter((program) => !isListed(program, settings.allowlist));
  const problems = [
    ...(unlisted.length > 0 ? [`runs ${unlisted.join(", ")}, not on the allowlist`] : []),
    ...analysis.risks,
  ];
  if (problems.length === 0) {
    const runs = analysis.programs.length > 0
      ? `runs ${analysis.programs.join(" ")}`
      : "runs no program";
    return { decision: "allow", reason: runs, shape };
  }
  return {
    decision: settings.policy === "allowlist" ? "deny" : "ask",
    reason: problems.join("; "),
    shape,
  };
}

/**
 * Why a line was not judged to its end, when that is the reason it failed: it
 * passed a limit of its budget, or it nests deeper than the parser's or the
 * walk's stack (bash itself would read it).
 */
function unjudged(error: unknown): string | undefined {
  if (error instanceof BudgetExceeded || error instanceof ShellTooDeep) return error.message;
  const message = error instanceof Error ? error.message : "";
  if (error instanceof RangeError || /Maximum call stack size exceeded/.test(message)) {
    return "the line nests deeper than the policy can follow";
  }
  return undefined;
}

/**
 * A bare allowlist entry matches a program run by that name (bash finds it in
 * PATH); an absolute entry matches a program run by that path. `./ls` is not `ls`.
 */
function isListed(program: string, allowlist: string[]): boolean {
  if (!program.includes("/")) return allowlist.includes(program);
  if (!isAbsolute(program)) return false;
  return allowlist.some((entry) => isAbsolute(entry) && resolve(entry) === program);
}

/**
 * The shape an approval is remembered for: every program with the sorted risk
 * classes of what it does (`cat`, `curl[net,uploads]`, `sort[writes]`). When a
 * class is too broad to stand for more than one command (reading outside,
 * running code, anything unknown), a digest of the exact line is added, so
 * "always" means "this exact command".
 */
export async function shapeOf(command: string, analysis: Pick<Analysis, "programs" | "findings">) {
  const classes = new Map<string, Set<string>>();
  for (const program of analysis.programs) classes.set(program, new Set());
  for (const finding of analysis.findings) {
    if (!classes.has(finding.program)) classes.set(finding.program, new Set());
    classes.get(finding.program)!.add(finding.risk);
  }
  const parts = [...classes.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([program, risks]) =>
      risks.size === 0 ? program : `${program}[${[...risks].sort().join(",")}]`
    );
  const exact = analysis.findings.some((finding) => EXACT_ONLY.has(finding.risk));
  return exact ? `${parts.join(" ")} #${await digest(command)}` : parts.join(" ");
}

function environment(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
