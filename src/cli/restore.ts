/**
 * `hob restore`: a backup brought back as a home. It works on a home no hob
 * runs on, so it opens none: the backup area's restore (src/backup/restore.ts)
 * checks the archive against its manifest, the database by SQLite, migrates
 * it, and only then puts it in place; this prints what it did, or its
 * refusal in one line.
 */

import { showSize } from "../app/sizes.ts";
import { BackupError } from "../backup/errors.ts";
import { restoreBackup, type Restored } from "../backup/restore.ts";
import { absolute } from "../home/where.ts";
import { type Command, CommandError, EXIT } from "./command.ts";
import { homeOf } from "./open.ts";
import { out, outJson, red } from "./output.ts";

export const restore: Command = {
  name: "restore",
  summary: "Bring a backup back as a home (checked, migrated; --force to replace one)",
  help: `Usage: hob restore FILE [--home DIR] [--force] [--json]

Restores the backup FILE (made by 'hob backup') as the home DIR. Every file
is checked against the backup's manifest (size and SHA-256) and the database
by SQLite's integrity check; a database of an older hob is migrated. Nothing
in DIR changes unless all of it passes.

DIR must be empty or not exist, unless --force: then what is in it is moved
aside to DIR.before-restore-<date>Z, not deleted. No hob may run on DIR.
A backup made without secrets gets a new API token, and hob.yaml's secrets
say <redacted>: put them back before 'hob serve'.

Options:
  --force        restore over a home that holds something (moved aside first)
  --json         print machine-readable output
  --home DIR     the home to restore into (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { force: { type: "boolean" }, json: { type: "boolean" } },
  positionals: [1, 1],
  async run(parsed) {
    const home = homeOf(parsed);
    const file = absolute(parsed.positionals[0]);
    let restored: Restored;
    try {
      restored = await restoreBackup({ file, home, force: parsed.values.force === true });
    } catch (error) {
      if (error instanceof BackupError) throw new CommandError(error.message);
      throw error;
    }
    if (parsed.values.json) outJson(restored);
    else out(render(restored));
    return EXIT.ok;
  },
};

function render(r: Restored): string {
  const lines = [
    `Restored ${r.file} (made ${r.created_at} by hob ${r.hob_version}) as ${r.home}`,
    `  ${r.files} files, ${showSize(r.bytes)}, every one as the manifest says`,
    `  database: schema ${r.schema.from}${
      r.schema.from === r.schema.to ? "" : ` migrated to ${r.schema.to}`
    }, integrity ${r.integrity}`,
  ];
  if (r.interrupted) {
    lines.push(`  ${r.interrupted} reply(s) being written at the backup are kept as interrupted`);
  }
  if (r.moved_aside) lines.push(`  what was in ${r.home} is now in ${r.moved_aside}`);
  if (!r.secrets) {
    lines.push(
      `  The backup held no secrets: ${r.new_token ? "hob made a new API token" : "no token"}${
        r.redacted.length
          ? red(`; set these in hob.yaml again (they say <redacted>): ${r.redacted.join(", ")}`)
          : ""
      }.`,
    );
  }
  lines.push(`Start it: hob serve --home ${r.home}`);
  return `${lines.join("\n")}\n`;
}
