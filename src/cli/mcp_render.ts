/**
 * The terminal's view of MCP tools for `hob mcp tools` and `hob mcp approve`:
 * an approved tool on one line; one that waits shown whole — what the model
 * would read of it, beside what was approved when it changed — so the owner
 * approves what they read. A server's words are shown with their control
 * and invisible characters revealed (src/app/mcp.ts), never as the terminal
 * would act on them.
 */

import { revealed } from "../core/revealed.ts";
import type { McpServerStatus, McpToolInfo } from "../mcp/client.ts";
import { dim, green, red } from "./output.ts";

/** How far a waiting tool's definition is indented under its name. */
const INDENT = "    ";

/**
 * Every tool: approved ones on a line each, waiting ones whole.
 *
 * @example
 * ```ts
 * out(describeTools(await mcp.tools({ server: "everything" })));
 * ```
 */
export function describeTools(tools: McpToolInfo[]): string {
  return tools.map((tool) => tool.approval === "approved" ? approvedLine(tool) : waiting(tool))
    .join("");
}

/**
 * The line that tells the owner what to do about tools that wait, or "".
 *
 * @example
 * ```ts
 * approvalHint(hub.status()); // "3 tool(s) wait for your approval: read them with …"
 * ```
 */
export function approvalHint(servers: McpServerStatus[]): string {
  const waiting = servers.filter((server) => server.pending.length > 0);
  if (waiting.length === 0) return "";
  const count = waiting.reduce((sum, server) => sum + server.pending.length, 0);
  const names = waiting.map((server) => server.name);
  return red(
    `${count} tool(s) wait for your approval and are not offered to models: read them with 'hob mcp tools ${
      names[0]
    }', approve them with 'hob mcp approve ${names[0]}'${
      names.length > 1 ? ` (and the same for ${names.slice(1).join(", ")})` : ""
    } or in the page's Tools panel.`,
  );
}

function approvedLine(tool: McpToolInfo): string {
  const first = revealed(tool.description.split("\n")[0]).slice(0, 80);
  return `${tool.name.padEnd(32)} ${green("approved")} ${tool.read_only ? dim("read-only ") : ""}${
    dim(first)
  }\n`;
}

function waiting(tool: McpToolInfo): string {
  const state = tool.approval === "new"
    ? red("waits: new")
    : red(`waits: changed since you approved it ${tool.approved?.approved_at ?? ""}`);
  const lines = [
    `${tool.name} ${state} ${tool.read_only ? "read-only " : ""}${
      dim(`hash ${tool.hash.slice(0, 16)}`)
    }`,
  ];
  const was = tool.approved;
  const now = tool.approval === "changed" ? "now: " : "";
  lines.push(block(`${now}${tool.description || "(no description)"}`));
  if (was && was.description !== tool.description) {
    lines.push(dim(block(`was: ${was.description || "(no description)"}`)));
  }
  const parameters = JSON.stringify(tool.parameters);
  lines.push(block(`${now ? "parameters now" : "parameters"}: ${parameters}`));
  if (was && JSON.stringify(was.parameters) !== parameters) {
    lines.push(dim(block(`parameters were: ${JSON.stringify(was.parameters)}`)));
  }
  if (was && was.read_only !== tool.read_only) {
    lines.push(block(`read-only: was ${was.read_only}, now ${tool.read_only}`));
  }
  if (tool.mentions.length) {
    lines.push(red(block(`names other tools: ${tool.mentions.join(", ")} — is that its job?`)));
  }
  return `${lines.join("\n")}\n`;
}

/** Text indented under a tool's name, its hidden characters shown. */
function block(text: string): string {
  return revealed(text).split("\n").map((line) => `${INDENT}${line}`).join("\n");
}
