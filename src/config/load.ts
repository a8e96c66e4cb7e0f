/**
 * Loading the configuration in layers: defaults < HOME/hob.yaml < environment.
 * Every problem becomes one ConfigError naming the key, where it came from (the
 * file and line, or the environment variable) and what was expected.
 */

import { join } from "node:path";
import YAML from "yaml";
import type { z } from "zod";
import {
  BUILTIN_PROVIDERS,
  configSchema,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type HobConfig,
  PROVIDER_TYPES,
  type ProviderConfig,
} from "./schema.ts";

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
const ENV_OVERRIDES = [
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
  const { doc, lines, data } = parseYaml(text, path);
  const fromEnv = applyEnvOverrides(data, env);
  const origin: Origin = { path, doc, lines, fromEnv };
  const result = configSchema.safeParse(data);
  if (!result.success) throw describeIssue(result.error.issues[0], origin);
  const parsed = result.data;
  const providers = completeProviders(parsed.providers, env, origin);
  checkEmbedder(parsed.memory.embedder, providers, origin);
  return {
    config: { ...parsed, providers },
    path,
    fileExists,
  };
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

/** The YAML document (kept to find lines for errors) and its top-level mapping. */
function parseYaml(
  text: string,
  path: string,
): { doc: YAML.Document; lines: YAML.LineCounter; data: Record<string, unknown> } {
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
  });
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const { line, col } = lines.linePos(error.pos[0]);
    throw new ConfigError(
      `${path}:${line}:${col}`,
      "",
      `invalid YAML: ${error.message.split("\n")[0]}`,
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(
      path,
      "",
      "expected a mapping of keys at the top level",
    );
  }
  return { doc, lines, data: raw as Record<string, unknown> };
}

/**
 * The environment layer: sets the keys its variables name in `data`, and
 * returns which keys it set (by dotted key, the variable's name), to blame it
 * for them.
 */
function applyEnvOverrides(
  data: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Map<string, string> {
  const fromEnv = new Map<string, string>();
  for (const override of ENV_OVERRIDES) {
    const value = env[override.name];
    if (value === undefined || value === "") continue;
    let parsed: string | number = value;
    if (override.kind === "port") {
      parsed = Number(value);
      if (!/^\d+$/.test(value) || parsed > 65_535) {
        throw new ConfigError(
          `environment variable ${override.name}`,
          override.key.join("."),
          `expected a port number 0-65535, got '${value}'`,
        );
      }
    }
    setIn(data, override.key, parsed);
    fromEnv.set(override.key.join("."), override.name);
  }
  return fromEnv;
}

/** The built-in providers and hob.yaml's, each with every field filled in. */
function completeProviders(
  own: z.output<typeof configSchema>["providers"],
  env: Record<string, string | undefined>,
  origin: Origin,
): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  const names = new Set([
    ...Object.keys(BUILTIN_PROVIDERS),
    ...Object.keys(own),
  ]);
  for (const name of names) {
    providers[name] = completeProvider(name, own[name] ?? {}, env, origin);
  }
  return providers;
}

/** One provider: hob.yaml's fields over the built-in's, then the defaults. */
function completeProvider(
  name: string,
  own: z.output<typeof configSchema>["providers"][string],
  env: Record<string, string | undefined>,
  origin: Origin,
): ProviderConfig {
  const builtin = BUILTIN_PROVIDERS[name];
  const type = own.type ?? builtin?.type;
  if (!type) {
    throw locate(
      `providers.${name}.type`,
      ["providers", name],
      `required for a provider that is not built in: one of ${PROVIDER_TYPES.join(", ")}`,
      origin,
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
    max_retries: own.max_retries ?? DEFAULT_MAX_RETRIES,
    builtin: builtin !== undefined,
  };
  if (type !== "claude-cli" && !provider.base_url) {
    throw locate(
      `providers.${name}.base_url`,
      ["providers", name],
      "required for an openai or anthropic provider, e.g. 'http://127.0.0.1:9000/v1'",
      origin,
    );
  }
  return provider;
}

/** An embedder served by a provider must name an OpenAI-compatible one. */
function checkEmbedder(
  embedder: string,
  providers: Record<string, ProviderConfig>,
  origin: Origin,
): void {
  if (!/^[^:]+\/./.test(embedder) || embedder.startsWith("transformers:")) return;
  const provider = embedder.slice(0, embedder.indexOf("/"));
  if (!providers[provider] || providers[provider].type !== "openai") {
    throw locate(
      "memory.embedder",
      ["memory", "embedder"],
      `'${provider}' is not an OpenAI-compatible provider in providers:`,
      origin,
    );
  }
}

interface Origin {
  path: string;
  doc: YAML.Document;
  lines: YAML.LineCounter;
  fromEnv: Map<string, string>;
}

function describeIssue(issue: z.core.$ZodIssue, origin: Origin): ConfigError {
  const keyPath = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const unknown = issue.keys[0];
    return locate(
      [...keyPath, unknown].join("."),
      [...keyPath, unknown],
      "unknown key — check its spelling against docs/configuration.md",
      origin,
    );
  }
  return locate(keyPath.join("."), keyPath, issue.message, origin);
}

/** Builds the error, blaming the environment variable or the file line that set the key. */
function locate(
  key: string,
  nodePath: string[],
  problem: string,
  origin: Origin,
): ConfigError {
  for (const [envKey, envName] of origin.fromEnv) {
    if (key === envKey || key.startsWith(`${envKey}.`)) {
      return new ConfigError(`environment variable ${envName}`, key, problem);
    }
  }
  // The deepest part of the path the file has: a missing key is blamed on its parent.
  for (let n = nodePath.length; n > 0; n--) {
    const offset = keyOffset(origin.doc, nodePath.slice(0, n));
    if (offset !== undefined) {
      const { line } = origin.lines.linePos(offset);
      return new ConfigError(`${origin.path}:${line}`, key, problem);
    }
  }
  return new ConfigError(origin.path, key, problem);
}

/** Where the key (not the value) at `path` starts, so errors point at the key's line. */
function keyOffset(doc: YAML.Document, path: string[]): number | undefined {
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!YAML.isMap(parent)) return undefined;
  for (const item of parent.items) {
    if (YAML.isScalar(item.key) && String(item.key.value) === path.at(-1)) {
      return item.key.range?.[0];
    }
  }
  return undefined;
}

function setIn(
  target: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) {
      node[key] = {};
    }
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}
