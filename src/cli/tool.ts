/**
 * `hob tool`: list the tools, or call one directly as the owner, through the
 * same sandbox. A translator over the app's tool actions (src/app/tools.ts):
 * a tool that is not there exits 1 with one line.
 */

import { ActionError } from "../app/errors.ts";
import type { ToolActions } from "../app/tools.ts";
import { plainText } from "../core/untrusted.ts";
import { type Command, CommandError, EXIT, jsonObjectFlag, UsageError } from "./command.ts";
import { existingHome, openHome } from "./open.ts";
import { runningServer, seenBy } from "./running.ts";
import { dim, err, out, outJson, red } from "./output.ts";

/** What `tools.list()` (and `GET /api/tools`) answers. */
type ToolListing = Awaited<ReturnType<ToolActions["list"]>>;

export const tool: Command = {
  name: "tool",
  summary: "List tools, or call one directly (tool list, tool call NAME --args JSON)",
  help: `Usage: hob tool list [--json] [--home DIR]
       hob tool call NAME [--args JSON] [--json] [--home DIR]

'list' shows every tool with the policy its calls get ('allowlist, else ask':
commands on the shell allowlist run, others ask) and its permissions, and
user tools that were refused. 'call' runs a tool as you, the owner: in its
sandbox with its permissions, without asking for approval (a 'deny' policy
still holds), and logged like every call.

Options:
  --args JSON    the tool's arguments as a JSON object (default {})
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { args: { type: "string" }, json: { type: "boolean" } },
  positionals: [1, 2],
  async run(parsed) {
    const [action, name] = parsed.positionals;
    if (action !== "list" && action !== "call") {
      throw new UsageError(
        `hob tool: unknown action '${action}' — use 'hob tool list' or 'hob tool call NAME'`,
      );
    }
    if (action === "call" && !name) throw new UsageError("hob tool call: missing the tool's name");
    const args = jsonObjectFlag(parsed.values.args, "hob tool call");

    if (action === "list") {
      // A running server has its tools loaded: asking takes a request, opening the home a load.
      const server = await runningServer(await existingHome(parsed));
      const listed = await server?.get<ToolListing>("/api/tools");
      if (listed) {
        const code = listTools(listed, Boolean(parsed.values.json));
        if (!parsed.values.json) out(dim(seenBy(server!)));
        return code;
      }
    }
    const hob = await openHome(parsed);
    try {
      const { tools } = hob.app;
      if (action === "list") return listTools(await tools.list(), Boolean(parsed.values.json));
      const result = await tools.invoke({ name, args }, { source: "cli" });
      if (parsed.values.json) {
        outJson(result);
      } else if (result.is_error) {
        err(`${red("error:")} ${plainText(result.content)}\n`);
      } else {
        // Outside text in it shows after a marker naming its source, never as the model's label.
        const text = plainText(result.content);
        out(text.endsWith("\n") ? text : `${text}\n`);
      }
      return result.is_error ? EXIT.failure : EXIT.ok;
    } catch (error) {
      if (!(error instanceof ActionError)) throw error;
      throw new CommandError(`${error.message} — 'hob tool list' shows them`);
    } finally {
      await hob.close();
    }
  },
};

/** `list`: each tool with its policy and grants, then the user tools that were refused. */
function listTools(listing: ToolListing, json: boolean): number {
  if (json) {
    outJson({ tools: listing.tools, problems: listing.problems });
    return EXIT.ok;
  }
  // Columns as wide as their longest entry: an MCP server's tool names run long.
  const names = Math.max(16, ...listing.tools.map((info) => info.name.length));
  const width = Math.max(0, ...listing.tools.map((info) => info.effective_policy.length));
  for (const info of listing.tools) {
    const grants = Object.entries(info.permissions).filter(([, v]) => v)
      .map(([k, v]) => (v === true ? k : `${k}: ${(v as string[]).join(",")}`));
    out(
      `${info.name.padEnd(names)} ${info.effective_policy.padEnd(width)} ${
        dim(grants.join("; ") || "no permissions")
      }\n`,
    );
  }
  for (const problem of listing.problems) err(`${red("refused")} ${problem.error}\n`);
  return EXIT.ok;
}
