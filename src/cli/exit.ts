/**
 * How a command ends: the exit codes every command shares and the two errors
 * that choose them. Apart from command.ts so that `hob --version` and
 * `hob --help` answer without loading a parser or any command.
 */

/** Exit codes every command shares. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** Bad usage: an unknown flag, a missing argument, a value out of range. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure the user can act on; printed without a stack trace, exit 1. */
export class CommandError extends Error {
  override name = "CommandError";
}
