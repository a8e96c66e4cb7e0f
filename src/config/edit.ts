/**
 * Changing keys of hob.yaml in place (for `hob onboard`): the file's other keys,
 * its comments and its order are kept; the result is written whole, then
 * renamed over the old file, readable by the owner alone (it may hold keys).
 */

import { join } from "node:path";
import YAML from "yaml";

/** One key to set: its path (`["providers", "openai", "api_key"]`) and value. */
export interface ConfigChange {
  key: string[];
  value: unknown;
}

/**
 * Sets `changes` in HOME/hob.yaml (created when missing) and returns its path.
 * Throws when the file is not a YAML mapping, naming the problem.
 *
 * @example
 * ```ts
 * await editConfig(home, [{ key: ["model"], value: "ollama/qwen3" }]);
 * ```
 */
export async function editConfig(home: string, changes: ConfigChange[]): Promise<string> {
  const path = join(home, "hob.yaml");
  let text = "";
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new Error(`${path} is not valid YAML (${doc.errors[0].message}); fix it first`);
  }
  if (doc.contents !== null && !YAML.isMap(doc.contents)) {
    throw new Error(`${path} is not a mapping of keys; fix it first`);
  }
  for (const { key, value } of changes) doc.setIn(key, value);
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeTextFile(temporary, doc.toString(), { mode: 0o600 });
  try {
    if (Deno.build.os !== "windows") await Deno.chmod(temporary, 0o600);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return path;
}
