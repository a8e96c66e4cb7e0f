/** `hob tool`: list the tools, or call one directly as the owner, through the same sandbox. */

import { type Command, CommandError, EXIT, jsonObjectFlag, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, err, out, outJson, red } from "./output.ts";

export const tool: Command = {
  name: "tool",
  summary: "List tools, or call one directly (tool list, tool call NAME --args JSON)",
  help: `Usage: hob tool list [--json] [--home DIR]
       hob tool call NAME [--args JSON] [--json] [--home DIR]

'list' shows every tool with its permissions and policy, and user tools that
were refused. 'call' runs a tool as you, the owner: in its sandbox with its
permissions, without asking for approval (a 'deny' policy still holds), and
logged like every call.

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

    const runtime = await openHome(parsed);
    try {
      await runtime.toolbox.ready;
      const { registry } = runtime.toolbox;
      if (action === "list") {
        const tools = registry.list();
        const problems = runtime.toolbox.problems();
        if (parsed.values.json) {
          outJson({ tools, problems });
          return EXIT.ok;
        }
        for (const info of tools) {
          const grants = Object.entries(info.permissions).filter(([, v]) => v)
            .map(([k, v]) => (v === true ? k : `${k}: ${(v as string[]).join(",")}`));
          out(
            `${info.name.padEnd(16)} ${info.policy.padEnd(5)} ${
              dim(grants.join("; ") || "no permissions")
            }\n`,
          );
        }
        for (const problem of problems) err(`${red("refused")} ${problem.error}\n`);
        return EXIT.ok;
      }
      if (!registry.get(name)) {
        throw new CommandError(`No tool named '${name}' — 'hob tool list' shows them`);
      }
      const result = await registry.invoke(name, args, "cli");
      if (parsed.values.json) {
        outJson(result);
      } else if (result.is_error) {
        err(`${red("error:")} ${result.content}\n`);
      } else {
        out(result.content.endsWith("\n") ? result.content : `${result.content}\n`);
      }
      return result.is_error ? EXIT.failure : EXIT.ok;
    } finally {
      await runtime.close();
    }
  },
};
