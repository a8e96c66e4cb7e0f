/**
 * A one-off client run against an MCP server at a URL that hob.yaml need not
 * name (`hob mcp probe`, which the conformance suite drives): connect, list
 * its tools, call each with arguments made from its schema, disconnect.
 */

import { mcpServerSchema } from "../config/schema.ts";
import type { JsonSchema } from "../core/types.ts";
import { McpHub, type McpServerStatus, type McpToolInfo } from "../mcp/client.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { ActionError } from "./errors.ts";

/** What a probe found: the server, its tools, and how each answered a call. */
export interface McpProbeReport {
  server: McpServerStatus["server"];
  tools: string[];
  calls: { tool: string; content: string; is_error: boolean }[];
}

/**
 * Probes the streamable-HTTP MCP server at `url`; `invalid` naming `url`
 * when it cannot connect. Its tools join `registry` only while it runs.
 *
 * @example
 * ```ts
 * const report = await probeMcpServer("http://127.0.0.1:3001/mcp", registry);
 * report.calls.filter((call) => call.is_error); // the tools that failed
 * ```
 */
export async function probeMcpServer(url: string, registry: ToolRegistry): Promise<McpProbeReport> {
  const config = mcpServerSchema.parse({ url, policy: "allow", timeout_s: 60 });
  const hub = new McpHub({ probe: config }, registry, { reconnect: false });
  try {
    await hub.start();
    const [status] = hub.status();
    if (status.state !== "connected") {
      throw new ActionError("invalid", `could not connect: ${status.error}`, { field: "url" });
    }
    const calls = [];
    for (const tool of hub.tools()) {
      const result = await hub.call("probe", tool.tool, exampleArgs(tool));
      calls.push({ tool: tool.tool, ...result });
    }
    return { server: status.server, tools: hub.tools().map((t) => t.tool), calls };
  } finally {
    await hub.close();
  }
}

/** Arguments that satisfy a tool's schema's required fields, with plain sample values. */
function exampleArgs(tool: McpToolInfo): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = (tool.parameters.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const schema = properties[name] ?? {};
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    args[name] = Array.isArray(schema.enum)
      ? schema.enum[0]
      : type === "number" || type === "integer"
      ? 1
      : type === "boolean"
      ? true
      : type === "array"
      ? []
      : type === "object"
      ? {}
      : "hob";
  }
  return args;
}
