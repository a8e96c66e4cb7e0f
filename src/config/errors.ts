/**
 * The configuration's error: one problem, naming the key and where its value
 * came from (a file and line, or a variable). Loading (load.ts) and the first
 * reading of hob.yaml (parse.ts) raise it.
 */

/** A configuration problem a user can fix; the message is one line. */
export class ConfigError extends Error {
  override name = "ConfigError";
  /** The key at fault, dotted (`server.port`), or "" for the whole file. */
  readonly key: string;
  /** Where the bad value came from: a file path (with line) or an environment variable. */
  readonly source: string;
  constructor(source: string, key: string, problem: string) {
    super(`${source}: ${key ? `${key}: ` : ""}${problem}`);
    this.source = source;
    this.key = key;
  }
}

/**
 * Builds the error for a problem with `key` (dotted; `nodePath` its parts in
 * hob.yaml), naming where the bad value came from.
 */
export type Blame = (key: string, nodePath: string[], problem: string) => ConfigError;
