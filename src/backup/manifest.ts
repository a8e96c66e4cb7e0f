/**
 * What a hob backup says about itself: `manifest.json`, the archive's last
 * entry — the hob and schema versions that made it, when, whether secrets are
 * in it, and every file with its size and SHA-256, so a restore can tell a
 * whole archive from a damaged one. Also the rule for the paths an archive
 * may hold. Knows nothing of tar or of the home's files.
 */

import { z } from "zod";
import { BackupError } from "./errors.ts";

/** The manifest's name in the archive. */
export const MANIFEST_NAME = "manifest.json";
/** Where the home's files are in the archive: `home/memory/MEMORY.md`. */
export const HOME_PREFIX = "home/";
/** The word that says a manifest is a hob backup's. */
export const BACKUP_FORMAT = "hob-backup";
/** The layout of the archive this build writes and reads. */
export const FORMAT_VERSION = 1;

/** One file of the home in the archive. */
export interface ManifestFile {
  /** Relative to the home, with `/`: `memory/MEMORY.md`. */
  path: string;
  bytes: number;
  /** Hex. */
  sha256: string;
}

/** A path the archive may hold: relative, no `.` or `..` parts, no NUL, no backslash. */
const relativePath = z.string().min(1).max(4_096).refine(isSafePath, {
  message: "expected a relative path inside the home",
});

const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  format_version: z.number().int().min(1),
  hob_version: z.string(),
  schema_version: z.number().int().min(0),
  created_at: z.string(),
  home: z.string(),
  secrets: z.boolean(),
  redacted: z.array(z.string()),
  database: z.object({ integrity: z.string() }),
  files: z.array(z.object({
    path: relativePath,
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })),
  dirs: z.array(relativePath),
  skipped: z.array(z.object({ path: z.string(), why: z.string() })),
  /** Files that shrank while they were read: their copies end in zeros. */
  changed: z.array(z.string()),
});

/** The manifest of a backup. */
export type Manifest = z.infer<typeof manifestSchema>;

/**
 * The manifest in `text`, read from the archive `file`; a BackupError
 * (`damaged`, or `newer` for a later layout) naming what is wrong otherwise.
 *
 * @example
 * ```ts
 * const manifest = parseManifest(await new Response(entry.body).text(), file);
 * ```
 */
export function parseManifest(text: string, file: string): Manifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new BackupError(
      "damaged",
      `${file}: its manifest is not JSON — is it a hob backup?`,
      file,
      {
        cause: error,
      },
    );
  }
  const result = manifestSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new BackupError(
      "damaged",
      `${file}: its manifest is not a hob backup's ('${issue.path.join(".")}': ${issue.message})`,
      file,
    );
  }
  if (result.data.format_version > FORMAT_VERSION) {
    throw new BackupError(
      "newer",
      `${file} was made by hob ${result.data.hob_version} in a newer layout (${result.data.format_version}) — restore it with that hob or a later one`,
      file,
    );
  }
  return result.data;
}

/**
 * Whether `path` may name a file of a home in an archive: relative, `/`
 * between parts, none of them empty, `.` or `..`, no NUL or backslash — so
 * nothing in an archive can be written outside the home it is restored to.
 *
 * @example
 * ```ts
 * isSafePath("memory/MEMORY.md"); // true
 * isSafePath("../.bashrc"); // false
 * ```
 */
export function isSafePath(path: string): boolean {
  if (path.includes("\0") || path.includes("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** The permission bits a file keeps in the archive: its own, less set-id and others' write. */
export function keptMode(mode: number | null): number {
  return mode === null ? 0o600 : mode & 0o755;
}
