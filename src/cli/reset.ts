/**
 * `hob reset`: delete memory, tasks, schedules or conversations — shown
 * first, done only with --yes. A translator over the app's reset action
 * (src/app/reset.ts).
 */

import { ActionError, checkInput } from "../app/errors.ts";
import { RESET_PARTS, type ResetInput, resetInput } from "../app/reset.ts";
import { type Command, EXIT, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { out, outJson, red } from "./output.ts";

export const reset: Command = {
  name: "reset",
  summary: "Delete memory, tasks, schedules or conversations (asks for --yes)",
  help: `Usage: hob reset memory|tasks|schedules|conversations|all [--yes] [--json]

Prints what would be deleted. Nothing is deleted without --yes.

  memory         the Markdown memory files (MEMORY.md returns as the template) and their index
  tasks          background tasks, their conversations, the worker registry
  schedules      scheduled jobs, their run logs and conversations, the heartbeat's state
  conversations  your chats and sub-agent conversations
  all            all of the above, notifications and remembered approvals

hob.yaml, identity files, tools and skills are never touched.

Options:
  --yes          really delete
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { yes: { type: "boolean" }, json: { type: "boolean" } },
  positionals: [1, 1],
  async run(parsed) {
    const input = readInput(parsed.positionals[0], Boolean(parsed.values.yes));
    const hob = await openHome(parsed);
    try {
      const report = await hob.app.reset.reset(input);
      if (parsed.values.json) {
        outJson(report);
        return EXIT.ok;
      }
      out(`${report.deleted ? "Deleted" : "Would delete"}:\n`);
      for (const item of report.items) out(`  ${String(item.count).padStart(6)}  ${item.what}\n`);
      if (!report.deleted) {
        out(red(`Nothing was deleted. Run 'hob reset ${report.part} --yes' to delete.\n`));
      }
      return EXIT.ok;
    } finally {
      await hob.close();
    }
  },
};

/** The part and whether to delete, checked by the app's schema before the home is opened. */
function readInput(part: string, apply: boolean): ResetInput {
  try {
    return checkInput(resetInput, { part, apply });
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    throw new UsageError(`hob reset: unknown part '${part}' — use ${RESET_PARTS.join(", ")}`);
  }
}
