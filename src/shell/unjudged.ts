/**
 * The verdict on a command line the policy did not judge to its end: it
 * passed a limit of its budget (budget.ts), nested deeper than the policy
 * follows, or took longer than its Worker may (judge_thread.ts). Such a line
 * is the person's to decide, never allowed by the policy itself.
 */

import { digest } from "./digest.ts";
import type { ShellPolicy, ShellVerdict } from "./verdict.ts";

/**
 * Asks (under 'allowlist', where nothing unjudged runs, denies), saying why;
 * an "always" covers only this exact line.
 *
 * @example
 * ```ts
 * await unjudgedVerdict(line, "the line expands to more than 20,000 words", "ask");
 * // { decision: "ask", reason: "the line expands to more than 20,000 words, …", shape: "(shell)[unjudged] #…" }
 * ```
 */
export async function unjudgedVerdict(
  command: string,
  why: string,
  policy: ShellPolicy,
): Promise<ShellVerdict> {
  return {
    decision: policy === "allowlist" ? "deny" : "ask",
    reason: `${why}, more than the policy judges by itself`,
    shape: `(shell)[unjudged] #${await digest(command)}`,
  };
}
