/**
 * The configuration's error: a problem naming the key and where its value
 * came from (a file and line, or a variable), or several found at once.
 * Loading (load.ts), completing (complete.ts) and the first reading of
 * hob.yaml (parse.ts) raise it.
 */

/**
 * A configuration problem a user can fix, in one line — or every problem
 * hob.yaml has, found at once, one line each (`problems`; the message is
 * their lines, and `key` and `source` are the first's).
 *
 * @example
 * ```ts
 * try {
 *   await loadConfig({ home }); // load.ts
 * } catch (error) {
 *   if (error instanceof ConfigError) for (const problem of error.problems) console.log(problem.key);
 * }
 * ```
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  /** The key at fault, dotted (`server.port`), or "" for the whole file. */
  readonly key: string;
  /** Where the bad value came from: a file path (with line) or an environment variable. */
  readonly source: string;
  /** Every problem this error stands for, each a one-line ConfigError: itself alone, or several. */
  readonly problems: readonly ConfigError[];
  constructor(source: string, key: string, problem: string, several: ConfigError[] = []) {
    super(
      several.length > 1
        ? several.map((each) => each.message).join("\n")
        : `${source}: ${key ? `${key}: ` : ""}${problem}`,
    );
    this.source = source;
    this.key = key;
    this.problems = several.length > 1 ? several : [this];
  }

  /** One error for all of `errors` (at least one), in order of their lines in hob.yaml. */
  static of(errors: ConfigError[]): ConfigError {
    const each = errors.flatMap((error) => error.problems);
    if (each.length === 1) return each[0];
    // A variable's problem first, then the file's by line; the sort keeps the order of equals.
    const line = (error: ConfigError) =>
      error.source.startsWith("environment variable")
        ? -1
        : Number(/:(\d+)(?::\d+)?$/.exec(error.source)?.[1] ?? 0);
    const sorted = [...each].sort((a, b) => line(a) - line(b));
    return new ConfigError(sorted[0].source, sorted[0].key, "", sorted);
  }
}

/**
 * Builds the error for a problem with `key` (dotted; `nodePath` its parts in
 * hob.yaml), naming where the bad value came from.
 */
export type Blame = (key: string, nodePath: string[], problem: string) => ConfigError;
