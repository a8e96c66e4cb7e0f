/**
 * `hob approvals`: the tool calls waiting for your decision, and deciding
 * them. A translator over the app's approval actions (src/app/approvals.ts):
 * a decision that cannot be made (no such approval, decided already) exits 1
 * with the action's one line.
 */

import type { ApprovalActions } from "../app/approvals.ts";
import { ActionError } from "../app/errors.ts";
import { type Command, CommandError, EXIT, type ParsedArgs, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, out, outJson } from "./output.ts";

export const approvals: Command = {
  name: "approvals",
  summary: "List pending tool approvals, approve or deny one",
  help: `Usage: hob approvals list [--all] [--json] [--home DIR]
       hob approvals approve ID [--remember] [--home DIR]
       hob approvals deny ID [--remember] [--home DIR]

A tool call whose policy says 'ask' waits until you decide — here, through
the API, or at the prompt of 'hob chat'. No decision in time means no.
ID is an approval's id or its first characters (at least 4), as long as
they fit no other approval.
With --remember, later calls of the same tool with the same kind of
arguments (for commands: the same programs) get the same answer unasked.

Options:
  --all          list decided approvals too
  --remember     remember the decision for this tool and argument shape
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { all: { type: "boolean" }, remember: { type: "boolean" }, json: { type: "boolean" } },
  positionals: [1, 2],
  async run(parsed) {
    const [action, id] = parsed.positionals;
    if (!["list", "approve", "deny"].includes(action)) {
      throw new UsageError(
        `hob approvals: unknown action '${action}' — use list, approve ID or deny ID`,
      );
    }
    if (action !== "list" && !id) {
      throw new UsageError(`hob approvals ${action}: missing the approval's id`);
    }
    const hob = await openHome(parsed);
    try {
      const { approvals } = hob.app;
      if (action === "list") return listApprovals(approvals, parsed.values);
      const decided = approvals.decide({
        id,
        decision: action as "approve" | "deny",
        remember: Boolean(parsed.values.remember),
      });
      const verb = decided.status === "approved" ? "Approved" : "Denied";
      if (parsed.values.json) outJson(decided);
      else out(`${verb} ${decided.tool} (${decided.id}).\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof ActionError) throw new CommandError(error.message);
      throw error;
    } finally {
      await hob.close();
    }
  },
};

/** `list`: the pending approvals (all with --all), one a line, each with its reason. */
function listApprovals(approvals: ApprovalActions, flags: ParsedArgs["values"]): number {
  const list = approvals.list({ status: flags.all ? "all" : "pending" });
  if (flags.json) {
    outJson({ approvals: list });
  } else if (list.length === 0) {
    out(flags.all ? "No approvals yet.\n" : "Nothing is waiting for approval.\n");
  } else {
    for (const a of list) {
      out(`${a.id}  ${a.status.padEnd(8)} ${a.tool} ${a.arguments}\n`);
      if (a.reason) out(dim(`    ${a.reason}\n`));
    }
  }
  return EXIT.ok;
}
