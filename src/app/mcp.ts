/**
 * The MCP actions — the servers of hob.yaml and how each is doing, their
 * tools (offered, or waiting for the owner), and approving tools — each
 * defined once: one zod schema for its input (the one the OpenAPI document
 * shows) and its refusals as {@linkcode ActionError}s. REST, the page and
 * `hob mcp` are translators over these.
 *
 * Approving is the owner vouching for a server's words: a tool's definition
 * (name, description, schema, read-only hint) is pinned by its hash, and
 * only then offered to models; a definition that changes waits for the
 * owner again (src/mcp/pins.ts). Given the hashes the owner saw, approving
 * refuses when the server has changed a definition since.
 *
 * It knows the MCP client's hub; nothing of any wire format.
 */

import { z } from "zod";
import { withTimeout } from "../core/timeout.ts";
import type { McpHub, McpServerStatus, McpToolInfo } from "../mcp/client.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { ActionError, checkInput } from "./errors.ts";
import type { McpProbeReport } from "./mcp_probe.ts";

// The shapes the ways in show, from the client that makes them.
export type { McpServerStatus, McpToolInfo };

/** How long a listing waits for servers still connecting before it shows them as they are. */
const LISTING_WAIT_MS = 5_000;
/**
 * The shortest hash prefix that may stand for a definition's hash: 64 bits,
 * more than a server could grind a second definition to match.
 */
export const MIN_HASH_PREFIX = 16;

/** The tools of one server, or of all. */
export const mcpToolsInput = z.object({ server: z.string().min(1).optional() });
/** What approving takes beyond the server: which tools, and the hashes the owner read. */
export const approveToolsBody = z.strictObject({
  /**
   * hob's names (`<server>__<tool>`) or the server's own; when left out, those
   * `hashes` names, else all that wait.
   */
  tools: z.array(z.string().min(1).max(200)).max(1_000).optional(),
  /**
   * Tool name to the hash (or a prefix of it) of the definition the owner
   * read: given, exactly these definitions are approved, and every tool
   * approved must have one.
   */
  hashes: z.record(
    z.string().min(1).max(200),
    z.string().regex(/^[0-9a-f]+$/, "must be hexadecimal").min(MIN_HASH_PREFIX).max(64),
  ).optional(),
  /** False: only say what would be approved (`hob mcp approve` without --yes). */
  apply: z.boolean().default(true),
});
/** Approving tools of a server. */
export const approveToolsInput = approveToolsBody.extend({ server: z.string().min(1) });

/** One tool of a server of hob.yaml, called as the owner. */
export const callMcpToolInput = z.object({
  server: z.string().min(1),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
});
/** A server at a URL to probe. */
export const probeMcpInput = z.object({
  url: z.string().refine((url) => URL.canParse(url), "must be a URL"),
});

export type McpToolsInput = z.input<typeof mcpToolsInput>;
export type CallMcpToolInput = z.input<typeof callMcpToolInput>;
export type ApproveToolsInput = z.input<typeof approveToolsInput>;

/** What the MCP actions work on: the runtime's hub, and the registry its tools join. */
export interface McpDeps {
  hub: Pick<McpHub, "start" | "status" | "tools" | "has" | "approve" | "call">;
  registry: ToolRegistry;
  /** Settles when the user's tools have loaded (an MCP tool's name may not take one's). */
  toolsReady(): Promise<void>;
}

/** The MCP actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface McpActions {
  /** Each server's state, with the tools offered and those waiting for approval. */
  servers(): Promise<McpServerStatus[]>;
  /** Every tool of the servers (or of one), offered or waiting; `not_found` for an unknown server. */
  tools(input?: McpToolsInput): Promise<McpToolInfo[]>;
  /**
   * Pins the definitions of a server's tools and offers them to models: the
   * ones named, or every one that waits (with `apply: false`, only says
   * which). `not_found` for an unknown server or tool; `conflict` when the
   * server is not connected (hob approves what it has read) or a
   * definition's hash is not the one the owner saw.
   */
  approve(input: ApproveToolsInput): Promise<Approval>;
  /** Each server's state once every one has connected or failed, however long that takes. */
  connect(): Promise<McpServerStatus[]>;
  /**
   * Calls one tool of a server as the owner; `not_found` naming `server` for
   * a server hob.yaml does not name. The tool's failure is a result with `is_error`.
   */
  call(input: CallMcpToolInput): Promise<{ content: string; is_error: boolean }>;
  /** Connects to the server at `url`, lists its tools and calls each once. */
  probe(input: { url: string }): Promise<McpProbeReport>;
}

/** What approving did: the tools approved, or with `applied` false the ones it would approve. */
export interface Approval {
  server: string;
  tools: McpToolInfo[];
  applied: boolean;
}

/**
 * The MCP actions over the hub.
 *
 * @example
 * ```ts
 * const mcp = createMcpActions({ hub, registry, toolsReady: () => toolbox.ready });
 * await mcp.approve({ server: "everything" }); // every tool that waits
 * ```
 */
export function createMcpActions(deps: McpDeps): McpActions {
  const { hub } = deps;
  const known = (server: string) => {
    if (!hub.has(server)) {
      throw new ActionError(
        "not_found",
        `No MCP server named '${server}' in hob.yaml (mcpServers)`,
        {
          field: "server",
        },
      );
    }
  };
  return {
    async servers() {
      await withTimeout(hub.start(), LISTING_WAIT_MS);
      return hub.status();
    },
    async tools(input = {}) {
      const { server } = checkInput(mcpToolsInput, input);
      if (server) known(server);
      await withTimeout(hub.start(), LISTING_WAIT_MS);
      return hub.tools(server);
    },
    async approve(input) {
      const { server, tools, hashes, apply } = checkInput(approveToolsInput, input);
      known(server);
      await hub.start();
      const listed = hub.tools(server);
      if (listed.length === 0) notListed(hub, server);
      const chosen = tools
        ? tools.map((name, i) => findTool(listed, server, name, `tools.${i}`))
        : hashes
        ? Object.keys(hashes).map((name) => findTool(listed, server, name, `hashes.${name}`))
        : listed.filter((tool) => tool.approval !== "approved");
      if (hashes) boundToHashes(listed, server, chosen, hashes);
      if (!apply) return { server, tools: chosen, applied: false };
      return { server, tools: hub.approve(server, chosen.map((tool) => tool.tool)), applied: true };
    },
    async connect() {
      await hub.start();
      return hub.status();
    },
    async call(input) {
      const { server, tool, args } = checkInput(callMcpToolInput, input);
      known(server);
      await Promise.all([deps.toolsReady(), hub.start()]);
      return await hub.call(server, tool, args);
    },
    async probe(input) {
      const { url } = checkInput(probeMcpInput, input);
      const { probeMcpServer } = await import("./mcp_probe.ts");
      return await probeMcpServer(url, deps.registry);
    },
  };
}

/**
 * Checks that each chosen tool is the definition the owner read: it has a
 * hash among `hashes` (`invalid` naming it when not), and the hash is what
 * the server lists now (`conflict` when it changed since).
 */
function boundToHashes(
  listed: McpToolInfo[],
  server: string,
  chosen: McpToolInfo[],
  hashes: Record<string, string>,
): void {
  const read = new Map<McpToolInfo, { name: string; hash: string }>();
  for (const [name, hash] of Object.entries(hashes)) {
    read.set(findTool(listed, server, name, `hashes.${name}`), { name, hash });
  }
  for (const tool of chosen) {
    const given = read.get(tool);
    if (given === undefined) {
      throw new ActionError(
        "invalid",
        `No hash given for '${tool.name}': say which definition you read`,
        {
          field: `hashes.${tool.name}`,
        },
      );
    }
    if (!tool.hash.startsWith(given.hash)) changedSince(tool, given.name);
  }
}

/** A tool of the server by hob's name or its own. */
function findTool(listed: McpToolInfo[], server: string, name: string, field: string) {
  const tool = listed.find((each) => each.name === name || each.tool === name);
  if (tool) return tool;
  throw new ActionError(
    "not_found",
    `MCP server '${server}' lists no tool '${name}' (its tools: ${
      listed.map((each) => each.tool).join(", ")
    })`,
    { field },
  );
}

/** The refusal of a server with nothing listed: why, and what to do. */
function notListed(hub: McpDeps["hub"], server: string): never {
  const status = hub.status().find((each) => each.name === server);
  if (status?.state === "connected") {
    throw new ActionError("not_found", `MCP server '${server}' lists no tools`, {
      field: "server",
    });
  }
  throw new ActionError(
    "conflict",
    `MCP server '${server}' is ${status?.state ?? "not connected"}${
      status?.error ? ` (${status.error})` : ""
    }: hob approves the tools a server lists, so it must connect first — see 'hob mcp list'`,
    { field: "server" },
  );
}

/** The refusal of a definition that is not the one the owner read. */
function changedSince(tool: McpToolInfo, name: string): never {
  throw new ActionError(
    "conflict",
    `The definition of '${tool.name}' changed since you read it (it is ${
      tool.hash.slice(0, MIN_HASH_PREFIX)
    } now): read it again before you approve it`,
    { field: `hashes.${name}` },
  );
}
