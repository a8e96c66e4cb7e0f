/**
 * hob as an MCP client: the servers in hob.yaml's `mcpServers` (stdio
 * `command` or streamable-HTTP `url`, the shape Claude Desktop uses) are
 * connected through the official SDK, and their tools join the registry as
 * `<server>__<tool>` — only those the owner approved. A tool's definition
 * (name, description, schema, read-only hint) is the server's words, which
 * the model reads: it is pinned by its hash when the owner approves it
 * (pins.ts), and a tool that is new, or changed since (a "rug pull"), waits
 * unoffered until the owner approves it again. The registry labels what the
 * model reads of them (src/tools/third_party.ts). Calls go through the
 * registry's policy (default `ask`), time out, are capped, and their results
 * are marked untrusted. A server that fails to start or dies is reported and
 * reconnected with back-off; one that says its tools changed is listed again.
 * hob keeps working without them. Knows the registry, the config and a store
 * of pins, nothing of HTTP.
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
import { definitionHash, type McpDefinition, type McpPinStore } from "./pins.ts";

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
/** A burst of "tools changed" notices is listed once, after it settles. */
const LIST_CHANGED_DEBOUNCE_MS = 300;

/** What `hob status`, `hob doctor` and the API say of a server. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  /** `connected`, still `connecting`, `failed` (will retry) or `disabled`. */
  state: "connecting" | "connected" | "failed" | "disabled";
  error: string | null;
  /** hob's names of its tools offered to models: those the owner approved. */
  tools: string[];
  /** hob's names of its tools waiting for the owner's approval (new or changed): not offered. */
  pending: string[];
  /** The server's own name and version, once connected. */
  server: { name: string; version: string } | null;
  connected_at: string | null;
  /** Failed attempts since the last success. */
  failures: number;
}

/** Where a tool stands with the owner: offered, or waiting because it is new or changed. */
export type McpApproval = "approved" | "new" | "changed";

/** A tool of a connected server, as `hob mcp tools` lists it. */
export interface McpToolInfo {
  /** hob's name of it, the one models see: `<server>__<tool>`. */
  name: string;
  server: string;
  /** The server's own name of it. */
  tool: string;
  description: string;
  read_only: boolean;
  parameters: JsonSchema;
  /** SHA-256 of its definition: what approving it pins. */
  hash: string;
  /** `approved`: offered to models; `new` or `changed`: waiting for the owner. */
  approval: McpApproval;
  /**
   * Other tools its description or schema names (hob's `write_file`, another
   * server's tool): a description that tells the model what else to call is
   * worth a second look before approving.
   */
  mentions: string[];
  /** What the owner approved before, when it has changed since. */
  approved?: {
    description: string;
    parameters: JsonSchema;
    read_only: boolean;
    approved_at: string;
  };
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
  /**
   * The definitions the owner approved. Without it (a one-off probe) no
   * tool is approved, so none joins the registry.
   */
  pins?: McpPinStore;
}

/** A tool as its server listed it, with what approving it would pin. */
interface Listed {
  tool: ListedTool;
  definition: McpDefinition;
  hash: string;
}

interface Connection {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  client: Client | null;
  /** Every tool the server listed last, by its own name. */
  listed: Map<string, Listed>;
  /** The same, as listed for people (approved and waiting), in the server's order. */
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
        listed: new Map(),
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
          pending: [],
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
      pending: [...c.status.pending],
    }));
  }

  /** The tools of the connected servers (or of one), approved and waiting. */
  tools(server?: string): McpToolInfo[] {
    const names = new Set(this.#registry.names());
    return [...this.#connections.values()]
      .filter((c) => !server || c.name === server)
      .flatMap((c) => c.tools)
      // The tools known now: built-ins load beside the servers' start.
      .map((info) => ({ ...info, mentions: mentionsIn(info, names) }));
  }

  /** Whether a server by that name is configured. */
  has(name: string): boolean {
    return this.#connections.has(name);
  }

  /**
   * Pins the definitions of a server's tools (by the server's own names) as
   * they were listed last, and offers them to models from now on; returns
   * them as listed now. The app's approve action checks what it is given
   * first: here a name the server did not list throws.
   */
  approve(server: string, tools: string[]): McpToolInfo[] {
    const connection = this.#connections.get(server);
    const pins = this.#options.pins;
    if (!connection || !pins) {
      throw new Error(`No MCP server '${server}' whose tools can be approved`);
    }
    const chosen = tools.map((tool) => {
      const listed = connection.listed.get(tool);
      if (!listed) throw new Error(`MCP server '${server}' lists no tool '${tool}'`);
      return listed;
    });
    for (const { tool, hash, definition } of chosen) {
      pins.set({ server, tool: tool.name, hash, definition });
    }
    this.#register(connection, [...connection.listed.values()]);
    if (tools.length) this.#logTools(connection, `approved ${tools.length} tool(s)`);
    return connection.tools.filter((info) => tools.includes(info.tool));
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
    const client = new Client({ name: "hob", version: VERSION }, {
      capabilities: {},
      // A server that changes its tools says so: they are listed and checked against the pins again.
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: LIST_CHANGED_DEBOUNCE_MS,
          onChanged: () => this.#relist(connection, generation),
        },
      },
    });
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
      const catalog = await catalogOf(listed);
      if (connection.generation !== generation || this.#closed) {
        await client.close().catch(() => {});
        return;
      }
      connection.client = client;
      this.#register(connection, catalog);
      const version = client.getServerVersion();
      connection.status = {
        ...connection.status,
        state: "connected",
        error: null,
        server: version ? { name: version.name, version: version.version } : null,
        connected_at: new Date().toISOString(),
        failures: 0,
      };
      this.#logTools(connection, "connected");
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

  /**
   * Takes the server's tools as listed: each whose definition has the hash
   * the owner pinned joins the registry; the others wait, listed for the
   * owner with what was approved before (when it changed).
   */
  #register(connection: Connection, catalog: Listed[]): void {
    this.#unregister(connection);
    connection.listed = new Map(catalog.map((entry) => [entry.tool.name, entry]));
    const names = hobNames(
      connection.name,
      catalog.map((entry) => entry.tool.name),
      new Set(this.#registry.names()),
    );
    for (const { tool, definition, hash } of catalog) {
      const name = names.get(tool.name)!;
      const pin = this.#options.pins?.get(connection.name, tool.name);
      const approval = pin?.hash === hash ? "approved" : pin ? "changed" : "new";
      const info: McpToolInfo = {
        name,
        server: connection.name,
        tool: tool.name,
        description: definition.description,
        read_only: definition.read_only,
        parameters: definition.input_schema,
        hash,
        approval,
        mentions: [],
      };
      if (pin && approval === "changed") {
        const { description, input_schema: parameters, read_only } = pin.definition;
        info.approved = { description, parameters, read_only, approved_at: pin.approved_at };
      }
      if (approval === "approved") this.#registry.registerUser(this.#entry(connection, info));
      connection.tools.push(info);
    }
    const offered = connection.tools.filter((info) => info.approval === "approved");
    connection.status.tools = offered.map((info) => info.name);
    connection.status.pending = connection.tools.filter((info) => info.approval !== "approved")
      .map((info) => info.name);
  }

  /** An approved tool as the registry holds it: the server's words as it listed them. */
  #entry(connection: Connection, info: McpToolInfo): RegisteredTool {
    const config = connection.config;
    const remote = "url" in config ? new URL(config.url).host : null;
    return {
      name: info.name,
      // The server's words only (the registry labels them for models); the category says whose.
      description: info.description || info.tool,
      category: `mcp:${connection.name}`,
      parameters: info.parameters,
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
      side_effect: info.read_only ? "none" : "external",
      untrusted_output: true,
      default_policy: info.read_only && config.allow_read_only ? "allow" : config.policy,
      services: [],
      timeout: () => config.timeout_s * 1000,
      run: (args, signal) => this.#callTool(connection, info.tool, args, signal),
      origin: { kind: "mcp", server: connection.name, tool: info.tool },
    };
  }

  #unregister(connection: Connection): void {
    // Only what it registered: a waiting tool's name may be another's by now.
    for (const tool of connection.tools) {
      if (tool.approval === "approved") this.#registry.unregister(tool.name);
    }
    connection.listed = new Map();
    connection.tools = [];
    connection.status.tools = [];
    connection.status.pending = [];
  }

  /** Lists a server's tools again after it said they changed, and checks them against the pins. */
  async #relist(connection: Connection, generation: number): Promise<void> {
    const client = connection.client;
    if (!client || connection.generation !== generation || this.#closed) return;
    try {
      const listed = await withDeadline(listAllTools(client), CONNECT_TIMEOUT_MS, "listing tools");
      const catalog = await catalogOf(listed);
      if (connection.generation !== generation || this.#closed) return;
      this.#register(connection, catalog);
      this.#logTools(connection, "changed its tools");
    } catch (error) {
      this.#options.log?.(
        `mcp: '${connection.name}' said its tools changed, and listing them failed: ${
          (error as Error).message
        }`,
      );
    }
  }

  /** The log line of a server's tools: how many are offered, and what waits for the owner. */
  #logTools(connection: Connection, what: string): void {
    const { name, status, tools } = connection;
    const changed = tools.filter((info) => info.approval === "changed").length;
    const waiting = status.pending.length === 0
      ? ""
      : `; ${status.pending.length} wait for your approval (${
        status.pending.length - changed
      } new, ${changed} changed) — read them with 'hob mcp tools ${name}', approve them with 'hob mcp approve ${name}' or in the page's Tools panel`;
    this.#options.log?.(`mcp: '${name}' ${what}: ${status.tools.length} tools offered${waiting}`);
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

/** The names among `names` (but its own) that a tool's words mention. */
function mentionsIn(info: McpToolInfo, names: Set<string>): string[] {
  const words = new Set(
    `${info.description} ${JSON.stringify(info.parameters)}`.match(/[A-Za-z0-9_]+/g),
  );
  return [...names].filter((name) => name !== info.name && words.has(name));
}

/** Each listed tool with its definition (as the model would read it) and that definition's hash. */
async function catalogOf(listed: ListedTool[]): Promise<Listed[]> {
  // A name listed twice is one tool: the first. Which one was approved must never be in doubt.
  const first = listed.filter((tool, i) => listed.findIndex((t) => t.name === tool.name) === i);
  return await Promise.all(first.map(async (tool) => {
    const input_schema = { ...(tool.inputSchema as JsonSchema) };
    delete input_schema.$schema;
    const definition: McpDefinition = {
      name: tool.name,
      description: (tool.description ?? "").slice(0, MAX_DESCRIPTION_CHARS),
      input_schema,
      read_only: tool.annotations?.readOnlyHint === true,
    };
    return { tool, definition, hash: await definitionHash(definition) };
  }));
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

/**
 * hob's name for each of a server's tools (`<server>__<tool>`), the same
 * whatever order the server lists them in: a policy or an "always" kept
 * under a name never passes to another tool. A name two tools would share
 * (`read-file` and `read_file`), or one taken already, goes to neither:
 * each gets a suffix made from its own name instead.
 */
function hobNames(server: string, tools: string[], taken: Set<string>): Map<string, string> {
  const base = (tool: string) => `${toolPart(server)}__${toolPart(tool)}`.slice(0, 64);
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(base(tool), (counts.get(base(tool)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const tool of tools) {
    const plain = base(tool);
    if (counts.get(plain) === 1 && !taken.has(plain)) names.set(tool, plain);
    else names.set(tool, `${plain.slice(0, 55)}_${fnv1a(`${server}/${tool}`)}`);
  }
  return names;
}

/** A short, stable hash of a text (FNV-1a, 32 bits, hex): a name's suffix, not a secret. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
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
