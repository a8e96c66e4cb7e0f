/**
 * Hostile command lines before the shell policy: how long judging each one
 * takes with its budget (judgeCommand, in this process), what stopped it, and
 * how long this process's event loop is held while the policy's Worker judges
 * the same line (judgeInWorker, as run_command's review does) — the figure
 * that /api/health feels.
 */

import { judgeCommand, type ShellPolicySettings } from "../src/shell/policy.ts";
import { closeJudge, judgeInWorker } from "../src/shell/judge_thread.ts";

/** A hostile line, and what it was measured to cost before the budget (issue 30). */
interface Line {
  name: string;
  command: string;
}

/** The worst lines found; the first is the one that held hob for half a minute. */
export const HOSTILE_LINES: Line[] = [
  { name: "variable doubled 20 times", command: `a=xxxxxxxx; ${"a=$a$a; ".repeat(20)}echo $a` },
  {
    name: "doubled in a here-document",
    command: `a=xxxxxxxxxxxxxxxx; ${"a=$a$a; ".repeat(14)}cat <<EOF\n${"$a$a$a$a\n".repeat(20)}EOF`,
  },
  { name: "sequence padded to 190 digits", command: `echo {${"0".repeat(190)}1..9999}` },
  { name: "sequence padded to 4,990 digits", command: `echo {${"0".repeat(4990)}1..9999}` },
  { name: "braces chained 1,990 times", command: `echo ${"{a,b}".repeat(1990)}` },
  { name: "1,600 globs over /*/*", command: `ls ${"/*/* ".repeat(1600)}` },
  { name: "5,000 commands", command: "a;".repeat(5000) },
  { name: "5,000 words", command: `echo ${"a ".repeat(4997)}` },
  { name: "arithmetic 1,000 operators deep", command: `echo $((${"2**62*".repeat(1000)}1))` },
];

/** One line's figures. */
export interface ShellJudgeResult {
  name: string;
  chars: number;
  /** judgeCommand's time, in this process, ms. */
  judgeMs: number;
  /** Its verdict and why, shortened. */
  verdict: string;
  /** The longest this process's event loop was held while the Worker judged the line, ms. */
  heldMs: number;
}

/** How often the event loop is sampled while the Worker judges. */
const SAMPLE_MS = 5;

/** Judges every hostile line both ways, after one ordinary line loads the parser in each. */
export async function measureShellJudge(lines = HOSTILE_LINES): Promise<ShellJudgeResult[]> {
  const root = await Deno.makeTempDir({ prefix: "hob-bench-judge-" });
  const settings: ShellPolicySettings = {
    policy: "ask",
    allowlist: ["ls", "cat", "echo"],
    roots: [root],
    cwd: root,
    path: "/usr/bin:/bin",
  };
  try {
    // The Worker first: the garbage of judging in this process must not be collected meanwhile.
    await judgeInWorker("ls", settings);
    const held: number[] = [];
    for (const line of lines) {
      held.push(await heldWhile(() => judgeInWorker(line.command, settings)));
    }
    await judgeCommand("ls", settings);
    const results: ShellJudgeResult[] = [];
    for (const [i, line] of lines.entries()) {
      const started = performance.now();
      const verdict = await judgeCommand(line.command, settings);
      results.push({
        name: line.name,
        chars: line.command.length,
        judgeMs: performance.now() - started,
        verdict: `${verdict.decision}: ${verdict.reason.replace(/, more than the policy.*$/, "")}`,
        heldMs: held[i],
      });
    }
    return results;
  } finally {
    closeJudge();
    await Deno.remove(root, { recursive: true });
  }
}

/** The longest gap between event-loop samples beyond their interval while `work` runs, ms. */
async function heldWhile(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let held = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    held = Math.max(held, now - last - SAMPLE_MS);
    last = now;
  }, SAMPLE_MS);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(held, performance.now() - last - SAMPLE_MS, 0);
}

/** The figures as a table. */
export function formatShellJudge(results: ShellJudgeResult[]): string {
  const rows = results.map((r) =>
    `| ${r.name} | ${r.chars.toLocaleString("en-US")} | ${Math.round(r.judgeMs)} ms | ${
      Math.round(r.heldMs)
    } ms | ${r.verdict} |`
  );
  return [
    "shell policy on hostile lines (judged in-process; event loop held while the Worker judges):",
    "| line | characters | judged in | loop held | verdict |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

if (import.meta.main) {
  console.log(formatShellJudge(await measureShellJudge()));
}
