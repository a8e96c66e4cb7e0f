/**
 * The configuration as it may be shown. Which keys hold secrets is said once,
 * in the schema (schema.ts marks them in its `sensitivity` registry); this file
 * walks the schema beside a value and hides what the marks say, so a key added
 * with its mark is hidden everywhere without a list here to keep in step.
 *
 * Secrets also reach text hob did not write — a provider's error quoting the
 * key, an MCP server's stderr — so {@linkcode secretValues} collects what was
 * hidden and {@linkcode scrubSecrets} takes it out of any JSON-like value.
 */

import type { z } from "zod";
import { BUILTIN_PROVIDERS, configSchema, type HobConfig, sensitivity } from "./schema.ts";
import type { Sensitivity } from "./schema.ts";

/** What a secret is shown as. */
export const REDACTED = "<redacted>";

/** Names that say a value is a credential: of keys, flags and headers. */
export const SECRET_NAME = /key|token|secret|passw|auth|cookie|credential|session/i;

/** Shorter values are not looked for in free text: they are words, not keys. */
const MIN_SCRUB_LENGTH = 8;

type Schema = z.core.$ZodType;
/** The definition fields the walk reads; which ones are set depends on `type`. */
interface Def {
  type: string;
  innerType?: Schema;
  getter?: () => Schema;
  shape?: Record<string, Schema>;
  valueType?: Schema;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  options?: Schema[];
  left?: Schema;
  right?: Schema;
  in?: Schema;
  out?: Schema;
}

/** Wrappers whose value is the wrapped schema's (or nothing). */
const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "nonoptional",
  "readonly",
  "catch",
]);

function defOf(schema: Schema): Def {
  return schema._zod.def as unknown as Def;
}

/** The schema a wrapper (optional, default, lazy…) stands for, or undefined for any other. */
function innerOf(schema: Schema): Schema | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return def.innerType;
  if (def.type === "lazy") return def.getter?.();
  return undefined;
}

/**
 * The mark on a schema: its own, or that of the first marked schema it wraps,
 * so `secret(z.string()).optional()` is as secret as `secret(z.string())`.
 *
 * @example
 * ```ts
 * sensitivityOf(providerSchema.shape.api_key); // "secret"
 * ```
 */
export function sensitivityOf(schema: Schema): Sensitivity | undefined {
  for (let layer: Schema | undefined = schema; layer; layer = innerOf(layer)) {
    const mark = sensitivity.get(layer);
    if (mark) return mark.sensitivity;
  }
  return undefined;
}

/** The schema under every wrapper. */
export function unwrapSchema(schema: Schema): Schema {
  let layer = schema;
  for (let inner = innerOf(layer); inner; inner = innerOf(layer)) layer = inner;
  return layer;
}

/** One key of an object schema, wherever it sits in the tree. */
export interface SchemaKey {
  /** Dotted, with `*` for a record's entries and `[]` for an array's: `providers.*.api_key`. */
  path: string;
  /** The key's own name. */
  name: string;
  schema: Schema;
}

/**
 * Every key of every object a schema can hold — through records, arrays,
 * unions and wrappers — for tests that check each secret-looking key is marked.
 *
 * @example
 * ```ts
 * [...schemaKeys(configSchema)].some((key) => key.path === "email.smtp.password"); // true
 * ```
 */
export function* schemaKeys(schema: Schema, path = ""): Generator<SchemaKey> {
  const def = defOf(unwrapSchema(schema));
  const at = (part: string) => (path ? `${path}.${part}` : part);
  switch (def.type) {
    case "object":
      for (const [name, child] of Object.entries(def.shape ?? {})) {
        yield { path: at(name), name, schema: child };
        yield* schemaKeys(child, at(name));
      }
      return;
    case "record":
      yield* schemaKeys(def.valueType!, at("*"));
      return;
    case "array":
      yield* schemaKeys(def.element!, `${path}[]`);
      return;
    default:
      for (const child of childrenOf(def)) yield* schemaKeys(child, path);
  }
}

/** The schemas a union, intersection, tuple or pipe is made of. */
function childrenOf(def: Def): Schema[] {
  switch (def.type) {
    case "union":
      return def.options ?? [];
    case "intersection":
      return [def.left!, def.right!];
    case "tuple":
      return [...(def.items ?? []), ...(def.rest ? [def.rest] : [])];
    case "pipe":
      return [def.in!, def.out!];
    default:
      return [];
  }
}

/**
 * A deep copy of `config` with every secret replaced by {@linkcode REDACTED}.
 * Keys of local servers that need none (Ollama's "ollama") are secrets too: a
 * rule with no exceptions is the one that never leaks.
 *
 * @example
 * ```ts
 * console.log(YAML.stringify(redactConfig(config)));
 * ```
 */
export function redactConfig(config: HobConfig): HobConfig {
  return redactBySchema(configSchema, config, new Set()) as HobConfig;
}

/**
 * The secret strings of `config` worth looking for in free text (errors, logs):
 * everything {@linkcode redactConfig} hides, except values too short to be
 * told from words and the built-in providers' published placeholder keys.
 *
 * @example
 * ```ts
 * const shown = scrubSecrets(status, secretValues(config));
 * ```
 */
export function secretValues(config: HobConfig): string[] {
  const found = new Set<string>();
  redactBySchema(configSchema, config, found);
  const placeholders = new Set(Object.values(BUILTIN_PROVIDERS).map((p) => p.api_key));
  return [...found].filter((value) => value.length >= MIN_SCRUB_LENGTH && !placeholders.has(value));
}

/**
 * A deep copy of a JSON-like value with every occurrence of the secrets (and
 * their URL-encoded forms) in its strings replaced by {@linkcode REDACTED}.
 *
 * @example
 * ```ts
 * scrubSecrets({ error: "bad key sk-123456789" }, ["sk-123456789"]); // { error: "bad key <redacted>" }
 * ```
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const needles = [...new Set(secrets.flatMap((s) => [s, encodeURIComponent(s)]))]
    .filter((s) => s.length > 0)
    // The longest first, so a secret that contains another goes whole.
    .sort((a, b) => b.length - a.length);
  if (needles.length === 0) return structuredClone(value);
  const scrub = (node: unknown): unknown => {
    if (typeof node === "string") {
      return needles.reduce((text, needle) => text.split(needle).join(REDACTED), node);
    }
    if (Array.isArray(node)) return node.map(scrub);
    if (node && typeof node === "object" && !(node instanceof Date)) {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, scrub(child)]));
    }
    return structuredClone(node);
  };
  return scrub(value) as T;
}

/** Walks `value` beside `schema`, hiding what the marks say; what was hidden goes into `found`. */
function redactBySchema(schema: Schema, value: unknown, found: Set<string>): unknown {
  if (value === undefined || value === null) return value;
  const mark = sensitivityOf(schema);
  if (mark && mark !== "public") return SHOW[mark](value, found);
  const def = defOf(unwrapSchema(schema));
  switch (def.type) {
    case "object":
      return isPlainObject(value) ? redactObject(def.shape ?? {}, value, found) : clone(value);
    case "record":
      return isPlainObject(value)
        ? mapValues(value, (child) => redactBySchema(def.valueType!, child, found))
        : clone(value);
    case "array":
      return Array.isArray(value)
        ? value.map((child) => redactBySchema(def.element!, child, found))
        : clone(value);
    case "tuple":
      return Array.isArray(value)
        ? value.map((child, i) => redactBySchema(def.items?.[i] ?? def.rest!, child, found))
        : clone(value);
    case "union":
    case "intersection":
    case "pipe":
      // Each part hides what it marks; hiding is idempotent, so the order does not matter.
      return childrenOf(def).reduce<unknown>(
        (shown, part) => redactBySchema(part, shown, found),
        value,
      );
    default:
      return clone(value);
  }
}

/** An object's keys walked with their schemas; keys the schema does not know are copied. */
function redactObject(
  shape: Record<string, Schema>,
  value: Record<string, unknown>,
  found: Set<string>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key in shape ? redactBySchema(shape[key], child, found) : clone(child),
    ]),
  );
}

/** How a marked value is shown; each records the parts it hid. */
const SHOW: Record<
  Exclude<Sensitivity, "public">,
  (value: unknown, found: Set<string>) => unknown
> = {
  secret: hideWhole,
  url: (value, found) =>
    typeof value === "string" ? redactUrl(value, found) : hideWhole(value, found),
  argv: (value, found) =>
    Array.isArray(value) && value.every((arg) => typeof arg === "string")
      ? redactArgs(value, found)
      : hideWhole(value, found),
};

/** The whole value hidden; an empty string stays, as it says only that nothing is set. */
function hideWhole(value: unknown, found: Set<string>): unknown {
  if (value === "") return value;
  for (const text of stringsIn(value)) {
    // "Bearer <key>" may be quoted without its scheme, so each word is looked for too.
    for (const part of [text, ...text.split(/\s+/)]) if (part) found.add(part);
  }
  return REDACTED;
}

/**
 * A URL without what may be credentials: the user and password, the query, the
 * fragment, and path segments that look like tokens (webhook and MCP URLs carry
 * their secret in the path).
 */
function redactUrl(text: string, found: Set<string>): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return hideWhole(text, found) as string;
  }
  const hidden = [url.username, url.password, url.search.slice(1), url.hash.slice(1)];
  for (const [name, value] of url.searchParams) hidden.push(name, value);
  const path = url.pathname.split("/").map((segment) => {
    if (!looksLikeToken(decoded(segment))) return segment;
    hidden.push(segment);
    return REDACTED;
  }).join("/");
  if (!hidden.some(Boolean)) return text;
  for (const part of hidden) {
    // Both forms: an error message may quote the URL as sent or as decoded.
    for (const form of [part, decoded(part)]) if (form) found.add(form);
  }
  const auth = url.username || url.password ? `${REDACTED}@` : "";
  const search = url.search ? `?${REDACTED}` : "";
  const hash = url.hash ? `#${REDACTED}` : "";
  return `${url.protocol}//${auth}${url.host}${path}${search}${hash}`;
}

/**
 * A command line without the values of secret-looking flags (`--api-key X`,
 * `--token=X`), credential headers (`Authorization: Bearer X`), URLs'
 * credentials and arguments that look like tokens.
 */
function redactArgs(args: string[], found: Set<string>): string[] {
  const shown: string[] = [];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext) {
      hideNext = false;
      shown.push(hideWhole(arg, found) as string);
      continue;
    }
    const flag = /^(--?[\w.-]+)(=)([\s\S]*)$/.exec(arg) ?? /^([\w-]+)(\s*:\s*)([\s\S]+)$/.exec(arg);
    if (flag && SECRET_NAME.test(flag[1])) {
      shown.push(`${flag[1]}${flag[2]}${hideWhole(flag[3], found)}`);
    } else if (/^--?[\w.-]+$/.test(arg) && SECRET_NAME.test(arg)) {
      hideNext = true;
      shown.push(arg);
    } else if (/^https?:\/\//i.test(arg)) {
      shown.push(redactUrl(arg, found));
    } else if (looksLikeToken(arg)) {
      shown.push(hideWhole(arg, found) as string);
    } else {
      shown.push(arg);
    }
  }
  return shown;
}

/** A long run of letters and digits, both present: what generated keys look like. */
function looksLikeToken(text: string): boolean {
  return /^[A-Za-z0-9_\-.+=~]{20,}$/.test(text) && /[A-Za-z]/.test(text) && /\d/.test(text);
}

/** Percent-decoded, or as it is when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isPlainObject(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

function mapValues(
  value: Record<string, unknown>,
  fn: (child: unknown) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, fn(child)]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
