/** Asking the user at the terminal whether a tool call may run. */

import type { AgentEvent } from "../core/types.ts";
import type { ApprovalActions } from "../app/approvals.ts";
import { err } from "./output.ts";

/**
 * Makes an `onApproval` handler that reads the answer from `lines`:
 * y(es), n(o), always (yes, and remember), never (no, and remember).
 * An empty line or end of input means no.
 */
export function promptApprovals(
  approvals: ApprovalActions,
  lines: AsyncIterator<string>,
): (event: Extract<AgentEvent, { type: "approval_required" }>) => Promise<void> {
  return async (event) => {
    while (true) {
      err("  allow it? [y]es / [n]o / always / never: ");
      const next = await lines.next();
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
      return;
    }
  };
}
