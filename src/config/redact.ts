/**
 * The configuration as it may be shown. Which keys hold secrets is said once,
 * in the schema (schema.ts marks them in its `sensitivity` registry);
 * marks.gen.ts holds those marks as a tree of keys (`deno task gen:config`
 * writes it from the schema; a test fails when it is stale), and this file
 * walks it beside a value and hides what the marks say, so a key added with
 * its mark is hidden everywhere without a list to keep in step by hand — and
 * showing the configuration does not load the schema (zod, ~15 ms).
 *
 * Secrets also reach text hob did not write — a provider's error quoting the
 * key, an MCP server's stderr — so {@linkcode secretValues} collects what was
 * hidden and {@linkcode scrubSecrets} takes it out of any JSON-like value.
 */

import type { MarkTree } from "./mark_tree.ts";
import { CONFIG_MARKS } from "./marks.gen.ts";
import { BUILTIN_PROVIDERS } from "./providers.ts";
import type { HobConfig, Sensitivity } from "./schema.ts";

/** What a secret is shown as. */
export const REDACTED = "<redacted>";

/** Names that say a value is a credential: of keys, flags and headers. */
export const SECRET_NAME = /key|token|secret|passw|auth|cookie|credential|session/i;

/** Shorter values are not looked for in free text: they are words, not keys. */
const MIN_SCRUB_LENGTH = 8;

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
  return redactWith(CONFIG_MARKS, config);
}

/**
 * A deep copy of `value` with what `marks` say hidden: redactConfig with the
 * marks of another schema (marks_test.ts checks how they are built).
 *
 * @example
 * ```ts
 * redactWith({ token: "secret" }, { token: "sk-123", name: "x" }); // { token: "<redacted>", name: "x" }
 * ```
 */
export function redactWith<T>(marks: MarkTree, value: T): T {
  return redactByMarks(marks, value, new Set()) as T;
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
  redactByMarks(CONFIG_MARKS, config, found);
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

/** Walks `value` beside the marks' tree, hiding what the marks say; what was hidden goes into `found`. */
function redactByMarks(marks: MarkTree | undefined, value: unknown, found: Set<string>): unknown {
  if (value === undefined || value === null) return value;
  if (typeof marks === "string") return SHOW[marks](value, found);
  if (!marks) return clone(value);
  if (Array.isArray(value)) {
    const each = marks["[]"];
    return each ? value.map((child) => redactByMarks(each, child, found)) : clone(value);
  }
  if (!isPlainObject(value)) return clone(value);
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      redactByMarks(Object.hasOwn(marks, key) ? marks[key] : marks["*"], child, found),
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
