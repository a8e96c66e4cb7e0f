/**
 * What a model is told about a tool hob did not write — an MCP server's: its
 * description and the free text of its schema (every `description`, `title`,
 * `$comment` and any key hob does not know, at any depth) inside labels, so
 * the model reads them as a third party's words, never as hob's. The labels are approved ones: only
 * tools whose definition the owner approved are registered (the MCP client
 * pins them), so reading them does not taint a turn. Names, property names
 * and the values the model must send back exactly (`enum`, `const`,
 * `default`, `examples`, patterns) stay as they are — a label would change
 * them; the owner saw them when approving. Knows specs, not servers.
 */

import type { JsonSchema, ToolSpec } from "../core/types.ts";
import { approvedText } from "../core/untrusted.ts";

/** Schema keys whose value is data the model sends back as it is: never labelled. */
const VALUE_KEYS = new Set(["enum", "const", "default", "examples"]);
/** Schema keys whose value is structure (a type, a format, names), not words: kept as they are. */
const STRUCTURE_KEYS = new Set([
  "type",
  "format",
  "pattern",
  "required",
  "dependentRequired",
  "$ref",
  "$schema",
  "$id",
  "$anchor",
  "contentEncoding",
  "contentMediaType",
]);
/** Schema keys whose value maps names (which stay) to schemas (which are labelled). */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

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

/**
 * A copy of a JSON schema with every string in it labelled (a `description`,
 * a `title`, a key hob does not know) but the values the model sends back
 * and the structure; the names in a map of schemas (`properties`) stay, and
 * each schema under them is labelled the same way, whatever it is called.
 */
function labelledSchema(value: unknown, source: string): unknown {
  if (typeof value === "string") return approvedText(source, value);
  if (Array.isArray(value)) return value.map((item) => labelledSchema(item, source));
  if (!value || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (VALUE_KEYS.has(key) || STRUCTURE_KEYS.has(key)) copy[key] = inner;
    else if (SCHEMA_MAPS.has(key) && isMap(inner)) {
      copy[key] = Object.fromEntries(
        Object.entries(inner).map(([name, schema]) => [name, labelledSchema(schema, source)]),
      );
    } else copy[key] = labelledSchema(inner, source);
  }
  return copy;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
