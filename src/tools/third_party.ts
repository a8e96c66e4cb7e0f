/**
 * What a model is told about a tool hob did not write — an MCP server's: its
 * description and the free text of its schema (every `description`, `title`
 * and `$comment`, at any depth) inside labels, so the model reads them as a
 * third party's words, never as hob's. The labels are approved ones: only
 * tools whose definition the owner approved are registered (the MCP client
 * pins them), so reading them does not taint a turn. Names, property names
 * and the values the model must send back exactly (`enum`, `const`,
 * `default`, `examples`, patterns) stay as they are — a label would change
 * them; the owner saw them when approving. Knows specs, not servers.
 */

import type { JsonSchema, ToolSpec } from "../core/types.ts";
import { approvedText } from "../core/untrusted.ts";

/** Schema keys whose string value is free text for the model to read. */
const TEXT_KEYS = new Set(["description", "title", "$comment"]);
/** Schema keys whose value is data the model sends back as it is: never labelled. */
const VALUE_KEYS = new Set(["enum", "const", "default", "examples"]);

/**
 * The spec with its description and schema texts labelled as `source`'s
 * (`mcp:<server>/<tool>`).
 *
 * @example
 * ```ts
 * labelledSpec({ name: "fs__read", description: "Reads.", parameters }, "mcp:fs/read");
 * // description: '<untrusted source="mcp:fs/read description" approved>\nReads.\n</untrusted>'
 * ```
 */
export function labelledSpec(spec: ToolSpec, source: string): ToolSpec {
  return {
    ...spec,
    description: approvedText(`${source} description`, spec.description),
    parameters: labelledSchema(spec.parameters, `${source} schema`) as JsonSchema,
  };
}

/** A copy of a JSON schema with its free texts labelled. */
function labelledSchema(value: unknown, source: string): unknown {
  if (Array.isArray(value)) return value.map((item) => labelledSchema(item, source));
  if (!value || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (TEXT_KEYS.has(key) && typeof inner === "string") copy[key] = approvedText(source, inner);
    else if (VALUE_KEYS.has(key)) copy[key] = inner;
    else copy[key] = labelledSchema(inner, source);
  }
  return copy;
}
