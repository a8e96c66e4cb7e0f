/**
 * A built-in tool as data: what listing it and offering it to a model need,
 * without its module. src/builtins/manifest.gen.ts holds this for every built-in
 * (`deno task gen:tools` writes it from the catalog; tests/builtins/manifest_test.ts
 * fails when it is stale), so a turn or `hob tool list` loads a tool's module
 * only when the tool is called.
 */

import { z } from "zod";
import type { JsonSchema } from "../core/types.ts";
import type {
  ReviewRange,
  ServiceName,
  SideEffect,
  ToolDefinition,
  ToolPermissions,
  ToolPolicy,
} from "../sandbox/definition.ts";

/** What the manifest keeps of a built-in tool. */
export interface BuiltinMeta {
  name: string;
  description: string;
  category: string;
  /** The parameters as JSON Schema, as the model is given them. */
  parameters: JsonSchema;
  /** Absent when they depend on settings (src/builtins/settings_dependent.ts has the function). */
  permissions?: ToolPermissions;
  side_effect: SideEffect;
  default_policy?: ToolPolicy;
  untrusted_output: boolean;
  /** Its output's links are ones a tainted turn may follow; absent when not. */
  output_links?: true;
  services: ServiceName[];
  max_output_chars?: number;
}

/** A manifest entry: the data, and the tool's module to load at its first call. */
export interface ListedBuiltin extends BuiltinMeta {
  // deno-lint-ignore no-explicit-any
  load(): Promise<{ default: ToolDefinition<any> }>;
}

/**
 * What a built-in's listing needs from hob.yaml's settings (its permissions,
 * the range of its review), for a tool whose data alone cannot say: the
 * built-ins hand these in (src/builtins/settings_dependent.ts).
 */
export interface SettingsDependent {
  permissions?: (settings: Record<string, unknown>) => ToolPermissions;
  review_range?: (settings: Record<string, unknown>) => ReviewRange;
}

/** The data of a built-in tool's definition (what the manifest holds for it). */
// deno-lint-ignore no-explicit-any
export function builtinMeta(tool: ToolDefinition<any>): BuiltinMeta {
  const meta: BuiltinMeta = {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    parameters: isZodSchema(tool.parameters)
      ? toJsonSchema(tool.parameters as z.ZodType)
      : tool.parameters as JsonSchema,
    side_effect: tool.side_effect,
    // Untrusted unless the tool says, and its review shows, that hob writes all of it.
    untrusted_output: tool.untrusted_output ?? true,
    services: tool.services ?? [],
  };
  if (typeof tool.permissions !== "function") meta.permissions = tool.permissions ?? {};
  if (tool.default_policy) meta.default_policy = tool.default_policy;
  if (tool.max_output_chars !== undefined) meta.max_output_chars = tool.max_output_chars;
  if (tool.output_links) meta.output_links = true;
  return meta;
}

/** The zod validator of a tool's parameters (a JSON Schema is turned into one). */
// deno-lint-ignore no-explicit-any
export function validatorOf(tool: ToolDefinition<any>): z.ZodType {
  return isZodSchema(tool.parameters)
    ? tool.parameters as z.ZodType
    : z.fromJSONSchema(tool.parameters as never);
}

function isZodSchema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

function toJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  delete json.$schema;
  return json;
}
