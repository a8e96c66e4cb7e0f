/**
 * hob.yaml as a backup without secrets holds it: the same file, comments and
 * order kept, with each value the schema marks secret (keys, passwords,
 * tokens, credential headers; the credentials in URLs and command lines)
 * shown as `hob config show` shows it. Which keys those are is the schema's
 * word (config/redact.ts), not this file's.
 */

import YAML from "yaml";
import { CONFIG_MARKS } from "../config/marks.gen.ts";
import { redactWith } from "../config/redact.ts";

/** hob.yaml without its secrets. */
export interface ConfigWithoutSecrets {
  text: string;
  /** The keys whose values were taken out, as `providers.openai.api_key`. */
  redacted: string[];
}

/**
 * `text` (hob.yaml) without its secrets; undefined when it is not YAML that
 * can be read, so nothing in it can be told from a secret.
 *
 * @example
 * ```ts
 * configWithoutSecrets("providers:\n  openai: { api_key: sk-1 }\n")?.redacted; // ["providers.openai.api_key"]
 * ```
 */
export function configWithoutSecrets(text: string): ConfigWithoutSecrets | undefined {
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) return undefined;
  const data = doc.toJS();
  if (data === null || data === undefined) return { text, redacted: [] };
  const changes: { path: string[]; value: unknown }[] = [];
  differences(data, redactWith(CONFIG_MARKS, data), [], changes);
  for (const { path, value } of changes) doc.setIn(path, value);
  return {
    text: changes.length ? doc.toString() : text,
    redacted: changes.map(({ path }) => path.join(".")),
  };
}

/** Where `shown` differs from `value`: the outermost parts that are not both mappings. */
function differences(
  value: unknown,
  shown: unknown,
  path: string[],
  changes: { path: string[]; value: unknown }[],
): void {
  if (isMapping(value) && isMapping(shown)) {
    for (const key of Object.keys(value)) {
      differences(value[key], shown[key], [...path, key], changes);
    }
    return;
  }
  if (JSON.stringify(value) !== JSON.stringify(shown)) changes.push({ path, value: shown });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
