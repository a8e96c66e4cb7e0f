/**
 * `hob backup`: one archive of the home, made while `hob serve` may be
 * running on it. A translator: the app's backup action (src/app/backups.ts)
 * in this process — the file is the caller's, written with the caller's own
 * rights — and its record printed as text or JSON.
 */

import { type BackupInput, backupInput, type BackupRecord } from "../app/backups.ts";
import { showSize } from "../app/sizes.ts";
import { ActionError, checkInput } from "../app/errors.ts";
import { absolute } from "../home/where.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, out, outJson, red } from "./output.ts";

export const backup: Command = {
  name: "backup",
  summary: "Back up the home into one .tar.gz, while hob serve runs or not",
  help: `Usage: hob backup [FILE] [--with-secrets] [--json] [--home DIR]

Writes one archive of the home: the database (copied by SQLite's online
backup, consistent at one moment while hob serve keeps writing), hob.yaml,
identity, memory, skills, tools, uploads and the workspace, with a manifest
of every file's size and SHA-256. FILE must not exist; by default it is
hob-backup-<date>Z.tar.gz in backup.dir (the home's backups/ folder).

The API token and hob.yaml's secrets (API keys, passwords, tokens) are left
out unless --with-secrets: hob.yaml then says <redacted> where they were.
Bring a backup back with 'hob restore FILE --home DIR'.

Options:
  --with-secrets   put the API token and hob.yaml's secrets in too
  --json           print machine-readable output
  --home DIR       hob home (default: $HOB_HOME or ~/.hob)
  -h, --help       show this help`,
  options: { "with-secrets": { type: "boolean" }, json: { type: "boolean" } },
  positionals: [0, 1],
  async run(parsed) {
    const input = readInput(parsed.positionals[0], parsed.values["with-secrets"] === true);
    const hob = await openHome(parsed);
    try {
      const record = await hob.app.backups.make(input).catch((error) => {
        if (!(error instanceof ActionError)) throw error;
        throw error.code === "invalid"
          ? new UsageError(`hob backup: ${error.message}`)
          : new CommandError(error.message);
      });
      if (parsed.values.json) outJson(record);
      else out(render(hob.home, record));
      return EXIT.ok;
    } finally {
      await hob.close();
    }
  },
};

/** The file (made absolute) and the secrets flag, checked by the app's schema first. */
function readInput(file: string | undefined, withSecrets: boolean): BackupInput {
  const input: BackupInput = {
    ...(file === undefined ? {} : { file: absolute(file) }),
    ...(withSecrets ? { with_secrets: true } : {}),
  };
  try {
    return checkInput(backupInput, input);
  } catch (error) {
    if (error instanceof ActionError) throw new UsageError(`hob backup: ${error.message}`);
    throw error;
  }
}

function render(home: string, record: BackupRecord): string {
  const seconds = (record.ms / 1_000).toFixed(1);
  const lines = [
    `Backed up ${home} to ${record.file}`,
    `  ${record.files} files, ${showSize(record.bytes ?? 0)}, in ${seconds} s`,
    record.with_secrets
      ? red(
        "  With secrets: the API token and hob.yaml's keys are in it — keep it as safe as the home.",
      )
      : `  Without secrets: left out the API token${
        record.redacted.length ? ` and hob.yaml's ${record.redacted.join(", ")}` : ""
      } (--with-secrets takes them too).`,
  ];
  for (const { path, why } of record.skipped) lines.push(dim(`  left out ${path}: ${why}`));
  const more = record.skipped_count - record.skipped.length;
  if (more > 0) lines.push(dim(`  and ${more} more left out`));
  return `${lines.join("\n")}\n`;
}
