/**
 * Loading the configuration in layers: defaults < HOME/hob.yaml < environment.
 * Every problem becomes one ConfigError naming the key, where it came from (the
 * file and line, or the environment variable) and what was expected.
 *
 * hob.yaml is parsed and validated (parse.ts: the YAML parser and the schema,
 * ~100 ms to load) only when it changed: what the schema made of it is kept
 * in HOME/.cache/config.json under a key of everything it depends on — the
 * file's text, the overriding variables, and the program that read it — and
 * any command that finds the same key starts from that.
 */

import { Buffer } from "node:buffer";
import { join } from "node:path";
import {
  BUILTIN_PROVIDERS,
  DEFAULT_CLI_IDLE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  PROVIDER_TYPES,
  type ProviderConfig,
} from "./providers.ts";
import type { HobConfig, ParsedConfig } from "./schema.ts";

/**
 * A configuration problem a user can fix, in one line — or every problem
 * hob.yaml has, found at once, one line each (`problems`; the message is
 * their lines, and `key` and `source` are the first's).
 *
 * @example
 * ```ts
 * try {
 *   await loadConfig({ home });
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

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** The hob home directory holding hob.yaml. */
  home: string;
  /** The environment to read; defaults to the process environment. */
  env?: Record<string, string | undefined>;
}

/** The effective configuration and where it came from. */
export interface LoadedConfig {
  config: HobConfig;
  /** The path of hob.yaml, whether or not it exists. */
  path: string;
  fileExists: boolean;
}

/** Environment variables that override single keys, and the key each sets. */
export const ENV_OVERRIDES = [
  { name: "HOB_MODEL", key: ["model"], kind: "string" },
  { name: "HOB_HOST", key: ["server", "host"], kind: "string" },
  { name: "HOB_PORT", key: ["server", "port"], kind: "port" },
] as const;

/**
 * Loads and validates the configuration of a home.
 *
 * @example
 * ```ts
 * const { config } = await loadConfig({ home: "/home/me/.hob" });
 * config.server.port; // 8484 unless hob.yaml or HOB_PORT says otherwise
 * ```
 */
export async function loadConfig(
  options: LoadConfigOptions,
): Promise<LoadedConfig> {
  const env = options.env ?? Deno.env.toObject();
  const path = join(options.home, "hob.yaml");
  const { text, fileExists } = await readConfigFile(path);
  const key = await snapshotKey(text, env);
  const kept = await readSnapshot(options.home, key);
  if (kept) {
    try {
      return { config: complete(kept, env, unlocated), path, fileExists };
    } catch {
      // Read it afresh below, which says where the problem is.
    }
  }
  const { parseConfig } = await import("./parse.ts");
  const { parsed, blame } = parseConfig(text, path, env);
  const config = complete(parsed, env, blame);
  await writeSnapshot(options.home, key, parsed);
  return { config, path, fileExists };
}

/**
 * Builds the error for a problem with `key` (dotted; `nodePath` its parts in
 * hob.yaml), naming where the bad value came from.
 */
export type Blame = (key: string, nodePath: string[], problem: string) => ConfigError;

/** Blames no line: only for a kept configuration, whose problems are read afresh. */
const unlocated: Blame = (key, _nodePath, problem) => new ConfigError("hob.yaml", key, problem);

/**
 * The schema's output with the providers completed from the built-ins and the
 * environment; throws a ConfigError with every problem completing found.
 */
function complete(
  parsed: ParsedConfig,
  env: Record<string, string | undefined>,
  blame: Blame,
): HobConfig {
  const problems: ConfigError[] = [];
  const providers = completeProviders(parsed.providers, env, blame, problems);
  checkEmbedder(parsed.memory.embedder, providers, blame, problems);
  if (problems.length > 0) throw ConfigError.of(problems);
  return { ...parsed, providers };
}

/**
 * What completing would find wrong in hob.yaml's mapping as it was read, for
 * when the schema refused it too: every problem is told at once, not the
 * schema's first and the providers' after they are fixed.
 */
export function completionProblems(
  data: Record<string, unknown>,
  env: Record<string, string | undefined>,
  blame: Blame,
): ConfigError[] {
  const mapping = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const own = Object.fromEntries(
    Object.entries(mapping(data.providers) ? data.providers : {})
      .filter(([, provider]) => mapping(provider)),
  ) as ParsedConfig["providers"];
  const problems: ConfigError[] = [];
  const providers = completeProviders(own, env, blame, problems);
  const embedder = mapping(data.memory) ? data.memory.embedder : undefined;
  if (typeof embedder === "string") checkEmbedder(embedder, providers, blame, problems);
  return problems;
}

/** Where the validated configuration is kept, in the home. */
const SNAPSHOT = ".cache/config.json";

/**
 * The key of a validated configuration: hob.yaml's text, the variables that
 * override its keys, and the program that read it (this Deno, and these
 * modules' files when hob runs from source), so a change to any re-reads it.
 */
async function snapshotKey(text: string, env: Record<string, string | undefined>): Promise<string> {
  const stamp = async (path: string | URL) => {
    try {
      return (await Deno.stat(path)).mtime?.getTime() ?? 0;
    } catch {
      return 0; // a compiled hob's modules are not files; its executable is
    }
  };
  const sources = ["./load.ts", "./parse.ts", "./schema.ts", "./providers.ts"]
    .map((file) => new URL(file, import.meta.url))
    .filter((url) => url.protocol === "file:");
  const material = JSON.stringify({
    text,
    overrides: ENV_OVERRIDES.map((override) => env[override.name] ?? null),
    deno: Deno.version.deno,
    program: await Promise.all([Deno.execPath(), ...sources].map(stamp)),
  });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(material));
  return Buffer.from(digest).toString("hex");
}

/** The configuration kept under `key`, or undefined (none, another key, unreadable). */
async function readSnapshot(home: string, key: string): Promise<ParsedConfig | undefined> {
  try {
    const kept = JSON.parse(await Deno.readTextFile(join(home, SNAPSHOT)));
    return kept?.key === key ? kept.config as ParsedConfig : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `config` under `key` (readable by the owner only, as hob.yaml's secrets); best effort. */
async function writeSnapshot(home: string, key: string, config: ParsedConfig): Promise<void> {
  const file = join(home, SNAPSHOT);
  const temp = `${file}.${crypto.randomUUID()}`;
  try {
    // Not recursive: a home that does not exist is not made here.
    await Deno.mkdir(join(home, ".cache"), { mode: 0o700 }).catch((error) => {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    });
    await Deno.writeTextFile(temp, JSON.stringify({ key, config }), { mode: 0o600 });
    await Deno.rename(temp, file);
  } catch {
    // A home that cannot be written (or is gone) reads hob.yaml afresh next time.
    await Deno.remove(temp).catch(() => {});
  }
}

/** hob.yaml's text, or "" when there is none. */
async function readConfigFile(path: string): Promise<{ text: string; fileExists: boolean }> {
  try {
    return { text: await Deno.readTextFile(path), fileExists: true };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new ConfigError(
        path,
        "",
        `cannot read: ${(error as Error).message}`,
      );
    }
    return { text: "", fileExists: false };
  }
}

/**
 * The built-in providers and hob.yaml's, each with every field filled in; a
 * provider that cannot be completed is left out, its problem added to `problems`.
 */
function completeProviders(
  own: ParsedConfig["providers"],
  env: Record<string, string | undefined>,
  blame: Blame,
  problems: ConfigError[],
): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  const names = new Set([
    ...Object.keys(BUILTIN_PROVIDERS),
    ...Object.keys(own),
  ]);
  for (const name of names) {
    const provider = completeProvider(name, own[name] ?? {}, env, blame);
    if (provider instanceof ConfigError) problems.push(provider);
    else providers[name] = provider;
  }
  return providers;
}

/** One provider: hob.yaml's fields over the built-in's, then the defaults; or what it lacks. */
function completeProvider(
  name: string,
  own: ParsedConfig["providers"][string],
  env: Record<string, string | undefined>,
  blame: Blame,
): ProviderConfig | ConfigError {
  const builtin = BUILTIN_PROVIDERS[name];
  const type = own.type ?? builtin?.type;
  if (!type) {
    return blame(
      `providers.${name}.type`,
      ["providers", name],
      `required for a provider that is not built in: one of ${PROVIDER_TYPES.join(", ")}`,
    );
  }
  const keyEnv = own.api_key_env ?? builtin?.api_key_env;
  const provider: ProviderConfig = {
    name,
    type,
    base_url: own.base_url ?? builtin?.base_url,
    api_key: (keyEnv ? env[keyEnv] : undefined) || own.api_key ||
      builtin?.api_key,
    api_key_env: keyEnv,
    headers: own.headers ?? {},
    models: own.models ?? [],
    command: own.command ?? builtin?.command,
    timeout_ms: own.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    idle_timeout_ms: own.idle_timeout_ms ??
      (type === "claude-cli" ? DEFAULT_CLI_IDLE_TIMEOUT_MS : DEFAULT_IDLE_TIMEOUT_MS),
    max_retries: own.max_retries ?? DEFAULT_MAX_RETRIES,
    builtin: builtin !== undefined,
  };
  if (type !== "claude-cli" && !provider.base_url) {
    return blame(
      `providers.${name}.base_url`,
      ["providers", name],
      "required for an openai or anthropic provider, e.g. 'http://127.0.0.1:9000/v1'",
    );
  }
  return provider;
}

/** An embedder served by a provider must name an OpenAI-compatible one. */
function checkEmbedder(
  embedder: string,
  providers: Record<string, ProviderConfig>,
  blame: Blame,
  problems: ConfigError[],
): void {
  if (!/^[^:]+\/./.test(embedder) || embedder.startsWith("transformers:")) return;
  const provider = embedder.slice(0, embedder.indexOf("/"));
  if (!providers[provider] || providers[provider].type !== "openai") {
    problems.push(blame(
      "memory.embedder",
      ["memory", "embedder"],
      `'${provider}' is not an OpenAI-compatible provider in providers:`,
    ));
  }
}
