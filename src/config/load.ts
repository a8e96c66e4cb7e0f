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
import { complete } from "./complete.ts";
import { ENV_OVERRIDES } from "./env_overrides.ts";
import { type Blame, ConfigError } from "./errors.ts";
import type { HobConfig, ParsedConfig } from "./schema.ts";

/** What loadConfig throws, for its callers (errors.ts has it, for parse.ts too). */
export { ConfigError };

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

/** Blames no line: only for a kept configuration, whose problems are read afresh. */
const unlocated: Blame = (key, _nodePath, problem) => new ConfigError("hob.yaml", key, problem);

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
  const sources = [
    "./load.ts",
    "./parse.ts",
    "./schema.ts",
    "./providers.ts",
    "./complete.ts",
    "./errors.ts",
    "./env_overrides.ts",
  ]
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
