/** `hob reset`: delete memory, tasks, schedules or conversations — shown first, done only with --yes. */

import { planReset, RESET_PARTS, type ResetPart } from "../runtime/reset.ts";
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
    const part = parsed.positionals[0] as ResetPart;
    if (!RESET_PARTS.includes(part)) {
      throw new UsageError(`hob reset: unknown part '${part}' — use ${RESET_PARTS.join(", ")}`);
    }
    const runtime = await openHome(parsed);
    try {
      const plan = await planReset(runtime, part);
      const yes = Boolean(parsed.values.yes);
      if (yes) await plan.apply();
      if (parsed.values.json) {
        outJson({ part, deleted: yes, items: plan.items });
        return EXIT.ok;
      }
      out(`${yes ? "Deleted" : "Would delete"}:\n`);
      for (const item of plan.items) out(`  ${String(item.count).padStart(6)}  ${item.what}\n`);
      if (!yes) out(red(`Nothing was deleted. Run 'hob reset ${part} --yes' to delete.\n`));
      return EXIT.ok;
    } finally {
      await runtime.close();
    }
  },
};
