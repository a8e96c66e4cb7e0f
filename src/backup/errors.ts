/**
 * Why a backup cannot be made or brought back, said so the owner can act on
 * it. The ways in turn each problem into their own answer (the app layer: an
 * ActionError; the CLI: a line and exit 1). Knows no way in.
 */

/**
 * What went wrong:
 * - `exists`: the archive to write is there already;
 * - `not_found`: the archive to read, or the folder to write into, is not there;
 * - `damaged`: the archive is cut short, corrupt, or not a hob backup;
 * - `newer`: it was made by a newer hob than this one;
 * - `not_empty`: the home to restore into holds something already;
 * - `in_use`: a hob process is using that home.
 */
export type BackupProblem = "exists" | "not_found" | "damaged" | "newer" | "not_empty" | "in_use";

/**
 * A backup or restore that cannot be done, and why.
 *
 * @example
 * ```ts
 * throw new BackupError("exists", `${file} exists — choose another name`, file);
 * ```
 */
export class BackupError extends Error {
  override name = "BackupError";
  readonly problem: BackupProblem;
  /** The file or directory at fault. */
  readonly path: string;
  constructor(problem: BackupProblem, message: string, path: string, options?: ErrorOptions) {
    super(message, options);
    this.problem = problem;
    this.path = path;
  }
}
