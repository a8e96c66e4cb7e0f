/**
 * hob as an MCP client: the servers in hob.yaml's `mcpServers` (stdio
 * `command` or streamable-HTTP `url`, the shape Claude Desktop uses) are
 * connected through the official SDK, and their tools join the registry as
 * `<server>__<tool>`. Calls go through the registry's policy (default `ask`),
 * time out, are capped, and their results are marked untrusted. A server that
 * fails to start or dies is reported and reconnected with back-off; hob keeps
 * working without it. Knows the registry and the config, nothing of HTTP.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { mcpServerSchema } from "../config/schema.ts";
import type { JsonSchema } from "../core/types.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import { withTimeout } from "../core/timeout.ts";
import { untrusted } from "../core/untrusted.ts";
import { VERSION } from "../version.ts";

/** One configured server, as hob.yaml's schema gives it. */
export type McpServerConfig = z.output<typeof mcpServerSchema>;

/** How long connecting (start, initialize, list tools) may take. */
const CONNECT_TIMEOUT_MS = 20_000;
/** Reconnection waits double from here after each failure… */
const RECONNECT_MIN_MS = 1_000;
/** …up to this. */
const RECONNECT_MAX_MS = 60_000;
/** Longest tool description kept; servers write essays. */
const MAX_DESCRIPTION_CHARS = 1_000;
/** Lines of a stdio server's stderr kept for the status, to say why it died. */
const STDERR_LINES = 20;

/** What `hob status`, `hob doctor` and the API say of a server. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  /** `connected`, still `connecting`, `failed` (will retry) or `disabled`. */
  state: "connecting" | "connected" | "failed" | "disabled";
  error: string | null;
  /** hob's names of its tools. */
  tools: string[];
  /** The server's own name and version, once connected. */
  server: { name: string; version: string } | null;
  connected_at: string | null;
  /** Failed attempts since the last success. */
  failures: number;
}

/** A tool of a connected server, as `hob mcp tools` lists it. */
export interface McpToolInfo {
  name: string;
  server: string;
  tool: string;
  description: string;
  read_only: boolean;
  parameters: JsonSchema;
}

/** Options for {@linkcode McpHub}. */
export interface McpHubOptions {
  /** Where each stdio server starts when its entry names no `cwd`. */
  cwd?: string;
  /**
   * Reconnect servers that fail or die.
   * @default {true}
   */
  reconnect?: boolean;
  /** Where lines about servers starting and failing go. */
  log?: (line: string) => void;
}

interface Connection {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  client: Client | null;
  tools: McpToolInfo[];
  stderr: string[];
  retry: ReturnType<typeof setTimeout> | null;
  /** Bumped on every (re)connect, so a stale close handler does nothing. */
  generation: number;
}

/**
 * The configured MCP servers, their connections and their tools in the registry.
 *
 * @example
 * ```ts
 * const hub = new McpHub(config.mcpServers, registry);
 * await hub.start();
 * console.log(hub.status());
 * ```
 */
export class McpHub {
  readonly #connections = new Map<string, Connection>();
  readonly #registry: ToolRegistry;
  readonly #options: McpHubOptions;
  #started: Promise<void> | null = null;
  #closed = false;

  constructor(
    servers: Record<string, McpServerConfig>,
    registry: ToolRegistry,
    options: McpHubOptions = {},
  ) {
    this.#registry = registry;
    this.#options = options;
    for (const [name, config] of Object.entries(servers)) {
      this.#connections.set(name, {
        name,
        config,
        client: null,
        tools: [],
        stderr: [],
        retry: null,
        generation: 0,
        status: {
          name,
          transport: "command" in config ? "stdio" : "http",
          state: config.enabled ? "connecting" : "disabled",
          error: null,
          tools: [],
          server: null,
          connected_at: null,
          failures: 0,
        },
      });
    }
  }

  /** Connects every enabled server; settles when each has connected or failed once. */
  start(): Promise<void> {
    this.#started ??= Promise.all(
      [...this.#connections.values()].filter((c) => c.config.enabled).map((c) => this.#connect(c)),
    ).then(() => {});
    return this.#started;
  }

  /** Each server's state. */
  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((c) => ({
      ...c.status,
      tools: [...c.status.tools],
    }));
  }

  /** The tools of the connected servers (or of one). */
  tools(server?: string): McpToolInfo[] {
    return [...this.#connections.values()]
      .filter((c) => !server || c.name === server)
      .flatMap((c) => c.tools);
  }

  /** Whether a server by that name is configured. */
  has(name: string): boolean {
    return this.#connections.has(name);
  }

  /**
   * Calls a server's tool by its own name, as the owner (no policy): `hob mcp call`.
   * Throws when the server is not connected.
   */
  async call(
    server: string,
    tool: string,
    args: unknown,
    signal?: AbortSignal,
  ): Promise<{ content: string; is_error: boolean }> {
    const connection = this.#connections.get(server);
    if (!connection) throw new Error(`No MCP server named '${server}' in hob.yaml`);
    if (!connection.client) {
      throw new Error(
        `MCP server '${server}' is not connected${
          connection.status.error ? `: ${connection.status.error}` : ""
        }`,
      );
    }
    return await this.#callTool(connection, tool, args, signal);
  }

  /** Disconnects every server and removes their tools. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#connections.values()].map((c) => this.#disconnect(c)));
  }

  async #connect(connection: Connection): Promise<void> {
    if (this.#closed) return;
    const generation = ++connection.generation;
    connection.status.state = "connecting";
    connection.stderr = [];
    // The SDK loads on first use, so a hob without MCP servers starts without it.
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const client = new Client({ name: "hob", version: VERSION }, { capabilities: {} });
    let transport: Transport;
    try {
      transport = await this.#transport(connection);
      client.onclose = () => {
        if (connection.generation !== generation || this.#closed) return;
        this.#failed(connection, "the server closed the connection");
      };
      client.onerror = () => {}; // transport errors surface as a failed request or a close
      await withDeadline(client.connect(transport), CONNECT_TIMEOUT_MS, "starting");
      const listed = await withDeadline(listAllTools(client), CONNECT_TIMEOUT_MS, "listing tools");
      if (connection.generation !== generation || this.#closed) {
        await client.close().catch(() => {});
        return;
      }
      connection.client = client;
      this.#register(connection, listed);
      const version = client.getServerVersion();
      connection.status = {
        ...connection.status,
        state: "connected",
        error: null,
        server: version ? { name: version.name, version: version.version } : null,
        connected_at: new Date().toISOString(),
        failures: 0,
      };
      this.#options.log?.(
        `mcp: '${connection.name}' connected with ${connection.tools.length} tools`,
      );
    } catch (error) {
      await client.close().catch(() => {});
      if (connection.generation !== generation) return;
      const stderr = connection.stderr.length ? ` — ${connection.stderr.at(-1)}` : "";
      this.#failed(connection, `${(error as Error).message}${stderr}`);
    }
  }

  async #transport(connection: Connection): Promise<Transport> {
    const config = connection.config;
    if ("command" in config) {
      const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...defaultEnv(), ...config.env },
        cwd: config.cwd ?? this.#options.cwd,
        stderr: "pipe",
      });
      const stderr = transport.stderr;
      stderr?.on("data", (chunk: Uint8Array) => {
        for (const line of new TextDecoder().decode(chunk).split("\n")) {
          if (line.trim()) connection.stderr.push(line.trim().slice(0, 300));
        }
        connection.stderr.splice(0, Math.max(0, connection.stderr.length - STDERR_LINES));
      });
      return transport;
    }
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
  }

  #failed(connection: Connection, reason: string): void {
    this.#unregister(connection);
    const client = connection.client;
    connection.client = null;
    client?.close().catch(() => {});
    connection.status.state = "failed";
    connection.status.error = reason;
    connection.status.failures++;
    this.#options.log?.(`mcp: '${connection.name}' failed: ${reason}`);
    if (this.#closed || this.#options.reconnect === false || connection.retry) return;
    const wait = Math.min(
      RECONNECT_MAX_MS,
      RECONNECT_MIN_MS * 2 ** Math.min(10, connection.status.failures - 1),
    );
    connection.retry = setTimeout(() => {
      connection.retry = null;
      this.#connect(connection);
    }, wait);
    Deno.unrefTimer(connection.retry as unknown as number);
  }

  async #disconnect(connection: Connection): Promise<void> {
    connection.generation++;
    if (connection.retry) clearTimeout(connection.retry);
    connection.retry = null;
    this.#unregister(connection);
    const client = connection.client;
    connection.client = null;
    await client?.close().catch(() => {});
  }

  #register(connection: Connection, listed: ListedTool[]): void {
    this.#unregister(connection);
    const config = connection.config;
    const taken = new Set(this.#registry.names());
    for (const tool of listed) {
      const name = uniqueName(`${toolPart(connection.name)}__${toolPart(tool.name)}`, taken);
      taken.add(name);
      const readOnly = tool.annotations?.readOnlyHint === true;
      const parameters = { ...(tool.inputSchema as JsonSchema) };
      delete parameters.$schema;
      const info: McpToolInfo = {
        name,
        server: connection.name,
        tool: tool.name,
        description: (tool.description ?? "").slice(0, MAX_DESCRIPTION_CHARS),
        read_only: readOnly,
        parameters,
      };
      const remote = "url" in config ? new URL(config.url).host : null;
      const registered: RegisteredTool = {
        name,
        description: `${info.description || tool.name} (MCP server '${connection.name}')`,
        category: `mcp:${connection.name}`,
        parameters,
        // The server checks its own arguments; any JSON object passes here.
        validator: z.record(z.string(), z.unknown()),
        declared: {},
        permissions: {
          read: false,
          write: false,
          net: remote ? [remote] : false,
          env: false,
          run: "command" in config ? [config.command] : false,
        },
        side_effect: readOnly ? "none" : "external",
        untrusted_output: true,
        default_policy: readOnly && config.allow_read_only ? "allow" : config.policy,
        services: [],
        timeout: () => config.timeout_s * 1000,
        run: (args, signal) => this.#callTool(connection, tool.name, args, signal),
        origin: { kind: "mcp", server: connection.name, tool: tool.name },
      };
      this.#registry.registerUser(registered);
      connection.tools.push(info);
    }
    connection.status.tools = connection.tools.map((t) => t.name);
  }

  #unregister(connection: Connection): void {
    for (const tool of connection.tools) this.#registry.unregister(tool.name);
    connection.tools = [];
    connection.status.tools = [];
  }

  async #callTool(
    connection: Connection,
    tool: string,
    args: unknown,
    signal?: AbortSignal,
  ): Promise<{ content: string; is_error: boolean }> {
    const client = connection.client;
    if (!client) {
      return {
        content: `The MCP server '${connection.name}' is not connected (${
          connection.status.error ?? "starting"
        }); try again later.`,
        is_error: true,
      };
    }
    const result = await client.callTool(
      { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
      undefined,
      { signal, timeout: connection.config.timeout_s * 1000 },
    );
    const text = resultText(result as CallResult);
    return {
      content: untrusted(`mcp:${connection.name}/${tool}`, text),
      is_error: result.isError === true,
    };
  }
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean };
}

async function listAllTools(client: Client): Promise<ListedTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools as ListedTool[]);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

type CallResult = {
  content?: { type: string; text?: string; mimeType?: string; resource?: { uri?: string } }[];
  structuredContent?: unknown;
  toolResult?: unknown;
};

/** The text of a tool result: text parts as they are, other parts named. */
function resultText(result: CallResult): string {
  const parts = (result.content ?? []).map((part) => {
    if (part.type === "text") return part.text ?? "";
    if (part.type === "resource") return `[resource ${part.resource?.uri ?? ""}]`;
    if (part.type === "resource_link") return `[resource link]`;
    return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ""}]`;
  });
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  if (parts.length === 0 && result.toolResult !== undefined) {
    return JSON.stringify(result.toolResult);
  }
  return parts.join("\n");
}

/** A name part every provider accepts: lower case letters, digits and `_`. */
function toolPart(name: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[a-z]/.test(cleaned) ? cleaned : `t_${cleaned}`;
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name.slice(0, 64);
  for (let i = 2; taken.has(candidate); i++) {
    const suffix = `_${i}`;
    candidate = name.slice(0, 64 - suffix.length) + suffix;
  }
  return candidate;
}

/**
 * What a stdio server inherits: enough to find its interpreter and reach its
 * package registry through the machine's proxy and certificates, nothing secret.
 */
const INHERITED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "TMPDIR",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "DENO_CERT",
];

function defaultEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const done = await withTimeout(promise.then((value) => ({ value })), ms);
  if (!done) throw new Error(`timed out ${what} after ${ms / 1000} s`);
  return done.value;
}
