/**
 * What the shell policy decides: the user's policy, and the verdict on a
 * line — whether judged to its end (policy.ts) or not (unjudged.ts).
 */

/** What the user's shell policy is: nothing runs, only the allowlist runs, or anything else asks. */
export type ShellPolicy = "deny" | "allowlist" | "ask";

/** The verdict on one command line. */
export interface ShellVerdict {
  decision: "allow" | "ask" | "deny";
  /** Why, for the approval prompt and for the model when it is denied. */
  reason: string;
  /**
   * What an "always" answer is remembered for: each program with the risk
   * classes of its arguments (`curl[net,uploads]`), plus a digest of the
   * exact line when a class is too broad to generalise (`#1a2b…`).
   */
  shape: string;
}
