/** `hob usage`: what the model calls cost, a translator over the usage action. */

import { ActionError } from "../app/errors.ts";
import { usd } from "../app/budgets.ts";
import type { UsageReport } from "../app/usage.ts";
import { type Command, EXIT, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, out, outJson } from "./output.ts";

export const usage: Command = {
  name: "usage",
  summary: "What the model calls cost: by model, kind, job or tool, and per day",
  help: `Usage: hob usage [--since DATE|Nd] [--by model|kind|job|tool] [--json] [--home DIR]

Every model call hob makes — chats, titles, memory flushes, the heartbeat,
jobs, tasks, sub-agents, skills, /v1 and MCP — is counted with its tokens and
its cost (from usage.prices in hob.yaml). Lists the totals since a date,
grouped, with spend per day and the budgets of usage.budgets.

Options:
  --since WHEN   a date (2026-11-01), an ISO time, or days back (7d); default 30d
  --by GROUP     model, kind, job or tool (default: model)
  --json         print the report as JSON
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { since: { type: "string" }, by: { type: "string" }, json: { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    const hob = await openHome(parsed);
    try {
      let report: UsageReport;
      try {
        report = await hob.app.usage.report({
          since: parsed.values.since as string | undefined,
          by: parsed.values.by as UsageReport["by"] | undefined,
        });
      } catch (error) {
        if (!(error instanceof ActionError)) throw error;
        const what = error.field ? `--${error.field}` : "usage";
        throw new UsageError(`hob usage: ${what}: ${error.issue?.message ?? error.message}`);
      }
      if (parsed.values.json) outJson(report);
      else out(formatReport(report));
      return EXIT.ok;
    } finally {
      await hob.close();
    }
  },
};

/** The report as lines for a terminal. */
export function formatReport(report: UsageReport): string {
  const { totals } = report;
  const lines = [
    `Since ${report.since.slice(0, 10)}: ${totals.calls} call(s), ${
      tokens(totals.input_tokens)
    } in (${tokens(totals.cached_tokens)} cached), ${tokens(totals.output_tokens)} out, ${
      usd(totals.cost_usd)
    }`,
  ];
  if (report.groups.length > 0) {
    lines.push("", dim(`by ${report.by}`));
    const width = Math.max(...report.groups.map((g) => (g.key ?? "—").length));
    for (const group of report.groups) {
      lines.push(
        `  ${(group.key ?? "—").padEnd(width)}  ${String(group.calls).padStart(6)} call(s)  ${
          tokens(group.input_tokens).padStart(8)
        } in  ${tokens(group.output_tokens).padStart(8)} out  ${usd(group.cost_usd).padStart(9)}`,
      );
    }
  }
  if (report.days.length > 0) {
    lines.push("", dim("per day"));
    for (const day of report.days) lines.push(`  ${day.key}  ${usd(day.cost_usd).padStart(9)}`);
  }
  for (const budget of report.budgets) {
    lines.push(
      "",
      `${budget.period} budget: ${usd(budget.spent_usd)} of ${usd(budget.limit_usd)} spent`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function tokens(count: number): string {
  return count.toLocaleString("en-US");
}
