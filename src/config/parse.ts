/**
 * Reading hob.yaml's text for the first time: the YAML parsed with its line
 * positions, the environment's overrides laid over it, and the schema's
 * validation — each problem one line naming the key and the line (or the
 * variable) it came from, and all of them told at once. load.ts imports this
 * only when hob.yaml (or an override) changed since it was last read, so
 * unchanged configurations cost no YAML parser and no schema.
 */

import YAML from "yaml";
import type { z } from "zod";
import { completionProblems } from "./complete.ts";
import { ENV_OVERRIDES } from "./env_overrides.ts";
import { type Blame, ConfigError } from "./errors.ts";
import { configSchema, type ParsedConfig } from "./schema.ts";

/**
 * Parses and validates hob.yaml's `text` with the environment's overrides;
 * returns what the schema made of it, and how to blame a key on its line.
 * Throws a ConfigError with every problem found: the YAML's, or else the
 * variables', the schema's and the providers' together.
 *
 * @example
 * ```ts
 * const { parsed } = parseConfig("model: ollama/llama3.2\n", "/home/me/.hob/hob.yaml", {});
 * parsed.server.port; // 8484
 * ```
 */
export function parseConfig(
  text: string,
  path: string,
  env: Record<string, string | undefined>,
): { parsed: ParsedConfig; blame: Blame } {
  const { doc, lines, data } = parseYaml(text, path);
  const problems: ConfigError[] = [];
  const fromEnv = applyEnvOverrides(data, env, problems);
  const origin: Origin = { path, doc, lines, fromEnv };
  const blame: Blame = (key, nodePath, problem) => locate(key, nodePath, problem, origin);
  const result = configSchema.safeParse(data);
  if (result.success && problems.length === 0) return { parsed: result.data, blame };
  if (!result.success) {
    problems.push(...result.error.issues.flatMap((issue) => describeIssue(issue, origin)));
  }
  // What completing the providers will find, unless the schema said it of the same key.
  const told = problems.map((problem) => problem.key);
  problems.push(
    ...completionProblems(data, env, blame).filter((problem) =>
      !told.some((key) => problem.key === key || problem.key.startsWith(`${key}.`))
    ),
  );
  throw ConfigError.of(problems);
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
    throw ConfigError.of(doc.errors.map((error) => {
      const { line, col } = lines.linePos(error.pos[0]);
      return new ConfigError(
        `${path}:${line}:${col}`,
        "",
        `invalid YAML: ${error.message.split("\n")[0]}`,
      );
    }));
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
 * for them; a value that cannot be used is added to `problems`.
 */
function applyEnvOverrides(
  data: Record<string, unknown>,
  env: Record<string, string | undefined>,
  problems: ConfigError[],
): Map<string, string> {
  const fromEnv = new Map<string, string>();
  for (const override of ENV_OVERRIDES) {
    const value = env[override.name];
    if (value === undefined || value === "") continue;
    let parsed: string | number = value;
    if (override.kind === "port") {
      parsed = Number(value);
      if (!/^\d+$/.test(value) || parsed > 65_535) {
        problems.push(
          new ConfigError(
            `environment variable ${override.name}`,
            override.key.join("."),
            `expected a port number 0-65535, got '${value}'`,
          ),
        );
        continue;
      }
    }
    setIn(data, override.key, parsed);
    fromEnv.set(override.key.join("."), override.name);
  }
  return fromEnv;
}

interface Origin {
  path: string;
  doc: YAML.Document;
  lines: YAML.LineCounter;
  fromEnv: Map<string, string>;
}

/** The schema's issue as one ConfigError per key: an issue of unknown keys names each. */
function describeIssue(issue: z.core.$ZodIssue, origin: Origin): ConfigError[] {
  const keyPath = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((unknown) =>
      locate(
        [...keyPath, unknown].join("."),
        [...keyPath, unknown],
        "unknown key — check its spelling against docs/configuration.md",
        origin,
      )
    );
  }
  return [locate(keyPath.join("."), keyPath, issue.message, origin)];
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
