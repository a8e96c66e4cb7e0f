/** Asking the user at the terminal whether a tool call may run. */

import type { AgentEvent } from "../core/types.ts";
import type { ApprovalActions } from "../app/approvals.ts";
import type { LineQueue } from "./stdin_lines.ts";
import { err } from "./output.ts";

/**
 * Makes an `onApproval` handler that reads the answer from `lines`:
 * y(es), n(o), always (yes, and remember), never (no, and remember).
 * An empty line or end of input means no. `signal` aborts when the approval
 * was decided elsewhere (the page, `hob approvals`, the API): the question
 * is dropped and the line it waited for goes to the next reader. Resolves
 * true when the answer was given here.
 */
export function promptApprovals(
  approvals: ApprovalActions,
  lines: LineQueue,
): (
  event: Extract<AgentEvent, { type: "approval_required" }>,
  signal: AbortSignal,
) => Promise<boolean> {
  return async (event, signal) => {
    while (!signal.aborted) {
      err("  allow it? [y]es / [n]o / always / never: ");
      let next: IteratorResult<string>;
      try {
        next = await lines.next(signal);
      } catch (error) {
        if (signal.aborted) return false;
        throw error;
      }
      const answer = next.done ? "n" : next.value.trim().toLowerCase();
      const choice = answer === "y" || answer === "yes"
        ? { decision: "approve" as const, remember: false }
        : answer === "always"
        ? { decision: "approve" as const, remember: true }
        : answer === "never"
        ? { decision: "deny" as const, remember: true }
        : answer === "" || answer === "n" || answer === "no"
        ? { decision: "deny" as const, remember: false }
        : null;
      if (!choice) continue;
      try {
        approvals.decide({ id: event.approval_id, ...choice });
      } catch (error) {
        err(`  ${(error as Error).message}\n`);
      }
      return true;
    }
    return false;
  };
}
