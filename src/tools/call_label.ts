/**
 * Labelling what a tool call produced, by provenance (src/core/untrusted.ts):
 * hob's own words are vouched for, text already labelled whole is kept, and
 * everything else from a tool that reads the outside world — or from a call
 * the hob process handed untrusted data to — is capped and labelled untrusted
 * with where it came from. The one place a tool's output becomes model text.
 */

import {
  hobWrote,
  isMarked,
  type ModelText,
  storedText,
  untrusted,
  untrustedSource,
} from "../core/untrusted.ts";
import { capOutput } from "../sandbox/output_cap.ts";
import type { RegisteredTool } from "./registry_types.ts";

/** What a call produced, before it is labelled. */
export interface RawOutput {
  content: string;
  is_error: boolean;
  /** hob wrote it (a timeout, a stop, "gave no result"), not the tool. */
  own: boolean;
  /**
   * Set when a hob service handed the call data that carries a label: what
   * returned it. The output is then untrusted even from a tool that vouches for itself.
   */
  carried: string | null;
}

/**
 * The output as model text. Rules, in order:
 * 1. hob's own message is vouched for as it is;
 * 2. the rest is capped at `cap` characters;
 * 3. a hob-output tool (`untrusted_output: false`) given no labelled data,
 *    whose output holds no label, is vouched for;
 * 4. output labelled whole already (a tool that labels its own) is kept;
 * 5. anything else is labelled untrusted, from the tool and what it was given
 *    (and from the labelled data it was handed, for a hob-output tool).
 *
 * @example
 * ```ts
 * labelOutput({ content: "<p>hi</p>", is_error: false, own: false, carried: null },
 *   { name: "fetch_url" }, { url: "https://x" }, 10_000);
 * // '<untrusted source="fetch_url: https://x">\n<p>hi</p>\n</untrusted>'
 * ```
 */
export function labelOutput(
  raw: RawOutput,
  tool: Pick<RegisteredTool, "name" | "untrusted_output">,
  args: unknown,
  cap: number,
): ModelText {
  if (raw.own) return hobWrote(raw.content);
  const capped = capOutput(raw.content, cap);
  const outside = tool.untrusted_output !== false;
  if (!outside && !raw.carried && !untrustedSource(capped)) return hobWrote(capped);
  if (isMarked(capped)) return storedText(capped);
  const label = sourceLabel(tool.name, args);
  return untrusted(raw.carried && !outside ? `${label}, with ${raw.carried}` : label, capped);
}

/**
 * Whether a value a hob service returned carries untrusted content: labelled
 * text anywhere in it, or a record (a task, a job) made by a tainted turn.
 *
 * @example
 * ```ts
 * carriedTaint({ title: "x", taint: "fetch_url: https://x" }); // true
 * ```
 */
export function carriedTaint(value: unknown): boolean {
  const json = JSON.stringify(value ?? null);
  return untrustedSource(json) !== null || /"taint":"/.test(json);
}

/** What an untrusted output came from: the tool, and the path, URL or command it was given. */
function sourceLabel(tool: string, args: unknown): string {
  const record = (args ?? {}) as Record<string, unknown>;
  for (const key of ["path", "url", "command", "query", "file"]) {
    const value = record[key];
    if (typeof value === "string" && value) {
      return `${tool}: ${value.length > 120 ? `${value.slice(0, 119)}…` : value}`;
    }
  }
  return tool;
}
