/**
 * Pinning an MCP server's tools: the definition the owner approves — every
 * word of a tool the model reads (its name, description and input schema)
 * and the read-only hint its policy follows — and its SHA-256 over a
 * canonical JSON form, so the order of a schema's keys does not matter and
 * any other change does. The store of pins is a port here (hob.db's
 * `mcp_pins` is one); this file knows no server and no database.
 */

import type { JsonSchema } from "../core/types.ts";

/** What the owner approves of one tool: everything of it that reaches the model or its policy. */
export interface McpDefinition {
  /** The server's own name of the tool. */
  name: string;
  /** As the model reads it (capped: the cap is part of what is approved). */
  description: string;
  input_schema: JsonSchema;
  /** The server's `readOnlyHint`: with `allow_read_only` it lets calls run unasked. */
  read_only: boolean;
}

/** An approved definition as kept. */
export interface McpPin {
  server: string;
  tool: string;
  hash: string;
  definition: McpDefinition;
  approved_at: string;
}

/** Where pins are kept (hob.db's `SqliteMcpPins` is one). */
export interface McpPinStore {
  /** The pin of a server's tool, or undefined when the owner approved none. */
  get(server: string, tool: string): McpPin | undefined;
  /** Pins a definition, replacing any earlier one; returns the pin as kept. */
  set(pin: Omit<McpPin, "approved_at">): McpPin;
}

/**
 * The hash a definition is pinned by: SHA-256, as hex, of its canonical JSON.
 *
 * @example
 * ```ts
 * await definitionHash({ name: "read", description: "Reads.", input_schema: {}, read_only: true });
 * // "5c1a…" (64 hex digits)
 * ```
 */
export async function definitionHash(definition: McpDefinition): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(definition));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** JSON with every object's keys sorted: equal values, equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`)}}`;
  }
  return JSON.stringify(value) ?? "null";
}
