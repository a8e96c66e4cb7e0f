/** `hob config show`: the effective configuration, secrets redacted. */

import YAML from "yaml";
import { loadConfig } from "../config/load.ts";
import { redactConfig } from "../config/redact.ts";
import { type Command, EXIT, UsageError } from "./command.ts";
import { existingHome } from "./open.ts";
import { dim, out, outJson } from "./output.ts";

export const config: Command = {
  name: "config",
  summary: "Show the effective configuration (config show)",
  help: `Usage: hob config show [--json] [--home DIR]

Prints the configuration hob uses — defaults, then hob.yaml, then environment
variables — with every secret redacted: API keys, passwords, header and MCP
environment values, and the credentials URLs and MCP arguments may carry.

Options:
  --json         print as JSON instead of YAML
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { json: { type: "boolean" } },
  positionals: [1, 1],
  async run(parsed) {
    const [action] = parsed.positionals;
    if (action !== "show") {
      throw new UsageError(
        `hob config: unknown action '${action}' — use 'hob config show'`,
      );
    }
    const home = await existingHome(parsed);
    const { config, path, fileExists } = await loadConfig({ home });
    const redacted = redactConfig(config);
    // Drop what the key already says, so the output reads like hob.yaml.
    const shown = {
      ...redacted,
      providers: Object.fromEntries(
        Object.entries(redacted.providers).map((
          [name, { name: _, builtin: __, ...rest }],
        ) => [name, rest]),
      ),
    };
    if (parsed.values.json) {
      outJson(shown);
      return EXIT.ok;
    }
    out(
      dim(`# ${fileExists ? path : "defaults (no hob.yaml)"} + environment\n`),
    );
    out(YAML.stringify(shown));
    return EXIT.ok;
  },
};
