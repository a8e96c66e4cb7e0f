/** `hob init`: create a home from the embedded templates. */

import { ensureHome } from "../home/home.ts";
import { type Command, EXIT } from "./command.ts";
import { homeOf } from "./open.ts";
import { dim, out, outJson } from "./output.ts";

export const init: Command = {
  name: "init",
  summary: "Create the hob home (config, identity, memory, token)",
  help: `Usage: hob init [--home DIR] [--json]

Creates the hob home and anything missing in it: hob.yaml, identity/SOUL.md,
identity/USER.md, identity/HEARTBEAT.md, memory/MEMORY.md, tools/, skills/,
uploads/, workspace/ and a random API token in 'token' (mode 0600). Files
that exist are never overwritten. 'hob serve', 'hob ask' and 'hob chat' do
this on first use too; every other command refuses a directory that is not
a hob home, creating nothing.

Options:
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  --json         print what was created as JSON
  -h, --help     show this help`,
  options: { json: { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    const result = await ensureHome(homeOf(parsed));
    if (parsed.values.json) {
      outJson(result);
      return EXIT.ok;
    }
    if (result.created.length === 0) {
      out(`hob home ${result.home} already exists; nothing to create.\n`);
      return EXIT.ok;
    }
    out(`Created the hob home ${result.home}:\n`);
    for (const path of result.created.filter((p) => p !== ".")) {
      out(`  ${path}\n`);
    }
    out(
      dim(
        `Edit identity/USER.md to introduce yourself; pick a model with 'hob onboard' or in hob.yaml.\n`,
      ),
    );
    return EXIT.ok;
  },
};
