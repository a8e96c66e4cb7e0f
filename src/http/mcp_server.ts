/**
 * hob as an MCP server: other agents use its memory and its abilities through
 * the Model Context Protocol. Tools are hob's own memory and task tools (run
 * through the app's tool actions exactly as the owner's direct calls are, in
 * their sandboxed Workers) plus `ask_hob`, the turn action with the schema
 * `POST /api/chat` takes (its message and conversation); resources are
 * MEMORY.md, the daily logs and the conversations; prompts are the user's
 * skills. A translator: an action's refusal is a tool result with `isError`.
 * Transport-free: src/http/mcp.ts serves it over streamable HTTP and
 * `hob mcp serve` over stdio.
 */

import { Server, type ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import {
  getLiteralValue,
  getObjectShape,
  safeParse,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type GetPromptRequest,
  GetPromptRequestSchema,
  type Implementation,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type ReadResourceRequest,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { askInput, MAX_MESSAGE_PAGE } from "../app/conversations.ts";
import { ActionError, received } from "../app/errors.ts";
import { StorageError, storageProblem } from "../home/storage.ts";
import { collectReply } from "../core/reply.ts";
import { derivedText } from "../core/untrusted.ts";
import type { Conversation, JsonSchema } from "../core/types.ts";
import type { Hob } from "../app/hob.ts";
import { VERSION } from "../version.ts";

/** hob's tools that other agents may call, as the owner would (no approval; `deny` still holds). */
export const MCP_SERVER_TOOLS = [
  "search_memory",
  "memory_get",
  "remember_this",
  "log_note",
  "create_task",
] as const;
/** Conversations listed as resources, newest first. */
const MAX_CONVERSATION_RESOURCES = 50;

/** What a request handler is given beside the request (the part hob uses). */
type Extra = { signal: AbortSignal };

/** `ask_hob`: the turn action, offered with the part of its schema another agent may send. */
const ASK_HOB = {
  name: "ask_hob",
  description:
    "Ask hob, the user's personal assistant, to do something: one whole agent turn with hob's identity, memory and tools. Pass conversation_id to continue a conversation.",
  inputSchema: objectSchema(z.toJSONSchema(askInput, { io: "input" })),
};

/**
 * The SDK's server, except that a request whose params do not fit its method
 * gets JSON-RPC's Invalid params (-32602) naming the first problem. The SDK
 * parses params before a handler runs and lets zod's error through, which a
 * client sees as Internal error (-32603) carrying the whole issue list.
 */
class StrictServer extends Server {
  // The SDK's declarations do not resolve under Deno (its types are `any` here), hence no
  // `override` and the constructor spelled out.
  constructor(info: Implementation, options: ServerOptions) {
    super(info, options);
  }

  setRequestHandler<Req, X>(
    requestSchema: unknown,
    handler: (request: Req, extra: X) => unknown,
  ): void {
    const method = getLiteralValue(getObjectShape(requestSchema)!.method) as string;
    // Registered under a schema every request of the method fits; the real one is checked here.
    const loose = z.looseObject({ method: z.literal(method) });
    super.setRequestHandler(loose, (request: unknown, extra: X) => {
      const parsed = safeParse(requestSchema, request);
      if (!parsed.success) {
        throw new McpError(ErrorCode.InvalidParams, firstIssue(method, parsed.error));
      }
      return handler(parsed.data as Req, extra);
    });
  }
}

function firstIssue(method: string, error: unknown): string {
  const issue = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
  if (!issue) return `Invalid params for ${method}`;
  const path = issue.path.map(String).join(".");
  return `Invalid params for ${method}: ${path ? `'${path}': ` : ""}${issue.message}`;
}

/**
 * A new MCP server over an open home's handle; connect it to one transport.
 *
 * @example
 * ```ts
 * const server = createMcpServer(hob);
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(hob: Hob): Server {
  const server = new StrictServer(
    { name: "hob", title: "hob — personal assistant", version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
      instructions:
        "hob is the user's personal assistant. search_memory and memory_get read what it knows about the user; remember_this and log_note add to it; ask_hob runs a whole turn of the assistant; create_task queues background work.",
    },
  );
  serveTools(server, hob);
  serveResources(server, hob);
  servePrompts(server, hob);
  return server;
}

/** The tools: {@linkcode MCP_SERVER_TOOLS} through the tool actions, and `ask_hob` through the turn action. */
function serveTools(server: Server, hob: Hob): void {
  const { tools } = hob.app;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const listed = (await tools.list()).tools;
    const offered = MCP_SERVER_TOOLS.flatMap((name) => {
      const tool = listed.find((each) => each.name === name);
      return tool
        ? [{
          name,
          description: tool.description,
          inputSchema: objectSchema(tool.parameters),
          annotations: { readOnlyHint: tool.side_effect === "none" },
        }]
        : [];
    });
    return { tools: [...offered, { ...ASK_HOB, annotations: { readOnlyHint: false } }] };
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request: CallToolRequest, extra: Extra): Promise<CallToolResult> => {
      const { name, arguments: args = {} } = request.params;
      if (name === ASK_HOB.name) return await askHob(hob, args, extra.signal);
      if (!(MCP_SERVER_TOOLS as readonly string[]).includes(name)) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${name}'`);
      }
      return await refusedAsError(async () => {
        const result = await tools.invoke({ name, args }, { source: "mcp", signal: extra.signal });
        return { content: [{ type: "text", text: result.content }], isError: result.is_error };
      });
    },
  );
}

/** The resources: memory files and conversations, listed and read. */
function serveResources(server: Server, hob: Hob): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const files = await hob.app.memory.files();
    const memory = files.map((path) => ({
      uri: memoryUri(path),
      name: path,
      title: path === "MEMORY.md" ? "Long-term memory" : path,
      description: path === "MEMORY.md"
        ? "What hob knows about the user, curated"
        : /^\d{4}-\d{2}-\d{2}\.md$/.test(path)
        ? `The daily log of ${path.slice(0, 10)}`
        : "A memory note",
      mimeType: "text/markdown",
    }));
    const conversations = hob.app.conversations.list({ limit: MAX_CONVERSATION_RESOURCES })
      .map((c) => ({
        uri: `hob://conversations/${c.id}`,
        name: c.title || c.id,
        description: `A conversation, last active ${c.updated_at}`,
        mimeType: "text/markdown",
      }));
    return { resources: [...memory, ...conversations] };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: "hob://memory/{path}",
        name: "memory file",
        description: "A Markdown file of hob's memory: MEMORY.md or a daily log (YYYY-MM-DD.md)",
        mimeType: "text/markdown",
      },
      {
        uriTemplate: "hob://conversations/{id}",
        name: "conversation",
        description: "A conversation with hob, as Markdown",
        mimeType: "text/markdown",
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request: ReadResourceRequest) => {
    const uri = request.params.uri;
    const text = await readResource(hob, uri);
    return { contents: [{ uri, mimeType: "text/markdown", text }] };
  });
}

/** The prompts: the user's skills, each made into a prompt by running it on the input. */
function servePrompts(server: Server, hob: Hob): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await hob.app.tools.list()).skills.map((skill) => ({
      name: skill.name,
      description: skill.description || `The user's skill '${skill.name}'`,
      arguments: [{ name: "input", description: "What to give the skill", required: false }],
    })),
  }));

  server.setRequestHandler(
    GetPromptRequestSchema,
    async (request: GetPromptRequest, extra: Extra) => {
      const { name, arguments: args } = request.params;
      // A workflow is code: the prompt is what it makes of the input.
      const { description, text } = await hob.app.tools.runWorkflow(
        { name, input: args?.input ?? "" },
        { signal: extra.signal },
      ).catch((error) => {
        // No such workflow, or no name at all: the client's mistake.
        if (error instanceof ActionError && ["not_found", "invalid"].includes(error.code)) {
          throw new McpError(ErrorCode.InvalidParams, error.message);
        }
        throw error;
      });
      return {
        description,
        messages: [{ role: "user", content: { type: "text", text } }],
      };
    },
  );
}

/** One agent turn, through the turn action; its answer is the tool's result, its refusal an error result. */
async function askHob(
  hob: Hob,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  return await refusedAsError(async () => {
    const reply = await collectReply(
      await hob.app.conversations.ask(received(askInput, args), { signal, origin: "mcp" }),
    );
    if (reply.error && !reply.content) {
      return toolError(`hob could not answer: ${reply.error.message}`);
    }
    return {
      // The client is another model: what hob made of untrusted content reaches it labelled.
      content: [{ type: "text", text: derivedText(reply.content, reply.taint, "ask_hob") }],
      structuredContent: {
        conversation_id: reply.conversation_id,
        status: reply.status,
        tool_calls: reply.tool_calls.map((call) => call.name),
      },
    };
  });
}

/**
 * Runs a tool call; an action's refusal — or a home that cannot be written
 * now (hob.db busy, a full disk) — is the result the client's model reads,
 * with `isError`.
 */
async function refusedAsError(call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ActionError) return toolError(error.message);
    const problem = storageProblem(error);
    if (problem) return toolError(new StorageError(problem, undefined).message);
    throw error;
  }
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function memoryUri(path: string): string {
  return `hob://memory/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** A resource's text: a memory file, or a conversation rendered as Markdown. */
async function readResource(hob: Hob, uri: string): Promise<string> {
  const memory = /^hob:\/\/memory\/(.+)$/.exec(uri);
  if (memory) {
    let path: string;
    try {
      path = memory[1].split("/").map(decodeURIComponent).join("/");
    } catch {
      throw new McpError(ErrorCode.InvalidParams, `The URI '${uri}' has a malformed %-escape`);
    }
    const files = await hob.app.memory.files();
    // Only files that exist under memory/: the list is the allowlist, so no path escapes it.
    if (!files.includes(path)) {
      throw new McpError(ErrorCode.InvalidParams, `No memory file '${path}'`);
    }
    return await hob.app.memory.content({ path });
  }
  const conversation = /^hob:\/\/conversations\/([\w-]+)$/.exec(uri);
  if (conversation) return conversationMarkdown(hob, conversation[1]);
  throw new McpError(ErrorCode.InvalidParams, `Unknown resource '${uri}'`);
}

/** A conversation as Markdown: its title, then each message (a tool's output cut short). */
function conversationMarkdown(hob: Hob, id: string): string {
  const { conversations } = hob.app;
  let found: Conversation;
  try {
    found = conversations.get({ id });
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    throw new McpError(ErrorCode.InvalidParams, `No conversation '${id}'`);
  }
  const messages = conversations.messages({ id: found.id, limit: MAX_MESSAGE_PAGE });
  const lines = [`# ${found.title || found.id}`, ""];
  for (const message of messages) {
    if (message.role === "tool") {
      lines.push(`> tool ${message.tool_name}: ${message.content.slice(0, 500)}`, "");
    } else if (message.content) {
      lines.push(`**${message.role}:** ${message.content}`, "");
    }
  }
  return lines.join("\n");
}

/** MCP wants an object schema at the top; hob's tools already have one. */
function objectSchema(schema: JsonSchema): { type: "object"; [key: string]: unknown } {
  const { $schema: _drop, ...rest } = schema;
  return { ...rest, type: "object" };
}
