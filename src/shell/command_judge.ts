/**
 * What judging one program's command line may do (the analysis in analyze.ts
 * gives it; the tables in programs.ts and git.ts use it): record risks, judge
 * paths, judge the command a wrapper runs.
 */

import type { Budget } from "./budget.ts";
import type { Field } from "./expand.ts";
import type { Risk } from "./findings.ts";

/** What a program judge may do: record risks, judge paths, judge the command a wrapper runs. */
export interface CommandJudge {
  /** The program as named on the command line. */
  readonly program: string;
  /** The working directory, or null when an earlier `cd` made it unknown. */
  readonly cwd: string | null;
  /** Allowed directories (real paths), the home, and the writable-config check for git. */
  readonly roots: string[];
  readonly home?: string;
  /** What the line's judging may still spend: git's look-ups on disk are charged to it. */
  readonly budget: Budget;
  risk(risk: Risk, reason: string): void;
  /** Judges a path the program reads, writes or uploads; `optionPosition` when a glob match could read as an option. */
  path(field: Field, effect: "read" | "write" | "upload", optionPosition?: boolean): void;
  /** Judges the command a wrapper (env, nice, timeout, …) runs. */
  run(argv: Field[]): void;
  /** git: the files and directories its configuration comes from, which the line must not write. */
  noteGitFiles(paths: string[]): void;
  /** `cd`: sets the working directory for the commands after it (null: unknown). */
  changeDirectory(path: string | null): void;
}
