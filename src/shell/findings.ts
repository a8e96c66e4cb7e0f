/**
 * What the policy finds in a command line, by risk class. The classes are
 * what an approval is remembered for (see verdict.ts): "always" for
 * `curl[net]` is not "always" for `curl[net,reads-outside,uploads]`.
 */

/** A kind of risk in what a command does. */
export type Risk =
  /** Writes a file inside the allowed directories. */
  | "writes"
  /** Talks to the network. */
  | "net"
  /** Sends a local file over the network. */
  | "uploads"
  /** Reads (or lists, or stats) a path outside the allowed directories. */
  | "reads-outside"
  /** Writes a path outside the allowed directories. */
  | "writes-outside"
  /** Deletes files. */
  | "deletes"
  /** Runs another program or code: a shell, an interpreter, `-exec`, a pager, a compress program. */
  | "exec"
  /** Depends on what only running the line shows: substitutions, unknown variables, globs. */
  | "dynamic"
  /** Sets environment variables a program reads. */
  | "env"
  /** Uses an option the policy's table for the program does not know. */
  | "unknown-option"
  /** Changes the shell itself: builtins such as export, set, trap, functions. */
  | "shell-state"
  /** A program the policy has no table for: its arguments are only checked for paths. */
  | "opaque"
  /** Shell syntax the policy does not model. */
  | "syntax";

/** One thing found, attributed to the program it is about. */
export interface Finding {
  program: string;
  risk: Risk;
  /** In words, for the approval prompt and the model. */
  reason: string;
}

/** Risks that do not stop an allowlisted command from running unasked. */
export const BENIGN: ReadonlySet<Risk> = new Set(["writes", "net", "opaque"]);

/**
 * Risks too broad to be remembered as a class: an "always" for them covers
 * only the exact command it was given for.
 */
export const EXACT_ONLY: ReadonlySet<Risk> = new Set([
  "uploads",
  "reads-outside",
  "writes-outside",
  "deletes",
  "exec",
  "dynamic",
  "env",
  "unknown-option",
  "shell-state",
  "opaque",
  "syntax",
]);
