/**
 * The HTTP API as a Hono app: health, chat (SSE or JSON), conversations and
 * models under /api, every route but health behind the bearer token. Handlers
 * validate input with zod and talk to the Runtime; they know no adapter.
 */

import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { ConversationNotFoundError } from "../core/agent.ts";
import { collectReply } from "../core/reply.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { VERSION } from "../version.ts";
import { type Auth, createAuth } from "./auth.ts";
import { guard } from "./guard.ts";
import {
  ApiError,
  errorBody,
  errorResponse,
  handleError,
  handleNotFound,
  streamErrorEvent,
} from "./errors.ts";
import { memoryRouteDocs, memoryRoutes } from "./memory.ts";
import { backgroundRouteDocs, backgroundRoutes } from "./background.ts";
import { findUploads, uploadRouteDocs, uploadRoutes } from "./uploads.ts";
import { toolRouteDocs, toolRoutes } from "./tools.ts";
import { openApiDocument, type RouteDoc } from "./openapi.ts";
import { mcpRoutes } from "./mcp.ts";
import { openAiRoutes } from "./openai_api.ts";
import { readJson, readQuery } from "./validate.ts";

/** Longest chat message accepted, in characters. */
const MAX_MESSAGE_CHARS = 500_000;
/** Longest conversation title. */
const MAX_TITLE_CHARS = 200;

const modelId = z.string().min(3).max(200);
const chatBody = z.strictObject({
  message: z.string().min(1, "must not be empty").max(MAX_MESSAGE_CHARS),
  conversation_id: z.string().min(1).max(100).optional(),
  model: modelId.optional(),
  /** Paths of files sent to /api/uploads first. */
  attachments: z.array(z.string().min(1).max(300)).max(20).optional(),
});
const newConversationBody = z.strictObject({
  title: z.string().max(MAX_TITLE_CHARS).optional(),
  model: modelId.optional(),
});
const patchConversationBody = z.strictObject({
  title: z.string().trim().min(1, "must not be empty").max(MAX_TITLE_CHARS),
});
const modelBody = z.strictObject({ model: modelId.nullable() });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  q: z.string().max(200).optional(),
  kind: z.enum(["chat", "job", "heartbeat", "task", "subagent", "all"]).default("chat"),
});
const messagesQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(5_000).default(1_000),
});
const modelsQuery = z.object({
  refresh: z.enum(["0", "1", "true", "false"]).optional(),
});

/** The routes of this file as the OpenAPI document lists them. */
const appRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/health",
    tag: "health",
    summary: "Liveness and version",
    open: true,
    response: {
      description: "hob is up",
      schema: z.object({ ok: z.literal(true), version: z.string(), uptime_ms: z.number() }),
    },
  },
  {
    method: "get",
    path: "/api/openapi.json",
    tag: "meta",
    summary: "This document",
    response: { description: "OpenAPI 3.1" },
  },
  {
    method: "post",
    path: "/api/chat",
    tag: "chat",
    summary: "Send a message and get the assistant's reply",
    body: chatBody,
    response: {
      description: "The reply: `{conversation_id, content, tool_calls, status, model, …}`",
      sse:
        "With `Accept: text/event-stream`: the turn's events (`start`, `text`, `tool_call`, `tool_result`, …, `done`)",
    },
    errors: {
      404: "No conversation with that `conversation_id`",
      502: "The model failed before replying; the body also holds `reply`",
    },
  },
  {
    method: "get",
    path: "/api/conversations",
    tag: "conversations",
    summary: "Conversations, most recent first",
    query: listQuery,
    response: { description: "`{conversations}`" },
  },
  {
    method: "post",
    path: "/api/conversations",
    tag: "conversations",
    summary: "Start a conversation",
    body: newConversationBody,
    response: { status: 201, description: "The conversation" },
  },
  {
    method: "get",
    path: "/api/conversations/{id}",
    tag: "conversations",
    summary: "One conversation with its message count",
    response: { description: "The conversation" },
  },
  {
    method: "get",
    path: "/api/conversations/{id}/messages",
    tag: "conversations",
    summary: "A conversation's messages, oldest first",
    query: messagesQuery,
    response: { description: "`{conversation_id, messages}`" },
  },
  {
    method: "patch",
    path: "/api/conversations/{id}",
    tag: "conversations",
    summary: "Rename a conversation",
    body: patchConversationBody,
    response: { description: "The conversation" },
  },
  {
    method: "delete",
    path: "/api/conversations/{id}",
    tag: "conversations",
    summary: "Delete a conversation and its messages",
    response: { status: 204, description: "Deleted" },
  },
  {
    method: "put",
    path: "/api/conversations/{id}/model",
    tag: "conversations",
    summary: "Set a conversation's model (`null` for the default)",
    body: modelBody,
    response: { description: "The conversation" },
  },
  {
    method: "get",
    path: "/api/models",
    tag: "models",
    summary: "Discovered models and each provider's status",
    query: modelsQuery,
    response: { description: "`{default, models, providers}`" },
  },
];

/** Every /api route; a test checks this against the routes the app registers. */
const apiRouteDocs: RouteDoc[] = [
  ...appRouteDocs,
  ...uploadRouteDocs,
  ...toolRouteDocs,
  ...memoryRouteDocs,
  ...backgroundRouteDocs,
];

/** Options for {@linkcode createApp}. */
export interface AppOptions {
  /** The API token; requests without it get 401. */
  token: string;
  /** The address hob listens on, when not `server.host` (`hob serve --host`). */
  host?: string;
  /**
   * The page's routes (src/web's `webRoutes`), mounted at `/` behind the same
   * guard and auth. Handed in by whoever serves, so src/http does not import
   * the page that imports it.
   */
  page: (runtime: Runtime, auth: Auth) => Hono;
}

/**
 * Builds the API over an open runtime.
 *
 * @example
 * ```ts
 * const app = createApp(runtime, { token, page: webRoutes });
 * Deno.serve({ hostname: "127.0.0.1", port: 8484 }, app.fetch);
 * ```
 */
export function createApp(runtime: Runtime, options: AppOptions): Hono {
  const { store, llm } = runtime;
  const startedAt = Date.now();
  const app = new Hono();
  app.onError(handleError);
  app.notFound(handleNotFound);
  // Host (DNS rebinding) and Origin (cross-site) before anything else; security headers on all.
  const { server } = runtime.config;
  app.use("*", guard({ bind: options.host ?? server.host, allowedHosts: server.allowed_hosts }));

  app.get("/api/health", (c) =>
    c.json({
      ok: true,
      version: VERSION,
      uptime_ms: Date.now() - startedAt,
    }));

  const auth = createAuth(options.token, { maxFailures: server.max_auth_failures });
  // The page: the shell, its static files and the fragments htmx swaps in.
  app.route("/", options.page(runtime, auth));
  app.use("/api/*", auth.require());
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) =>
        errorResponse(c, 413, "payload_too_large", `The body is larger than ${maxSize} bytes`),
    });
  const bodyLimitFor = {
    json: limit(runtime.config.server.max_body_bytes),
    upload: limit(runtime.config.server.max_upload_bytes),
  };
  // Files may be larger than requests; everything else keeps the smaller limit.
  app.use(
    "/api/*",
    (c, next) => (c.req.path === "/api/uploads" ? bodyLimitFor.upload : bodyLimitFor.json)(c, next),
  );
  app.route("/api", uploadRoutes(runtime));
  // MCP over streamable HTTP: its own guard (Host, Origin, token), the API's body limit.
  app.use("/mcp", bodyLimitFor.json);
  app.route("/", mcpRoutes(runtime, auth));
  // The OpenAI-compatible API: the same token, the same body limit.
  app.use("/v1/*", auth.require(), bodyLimitFor.json);
  app.route("/v1", openAiRoutes(runtime));

  const conversationOr404 = (id: string) => {
    const conversation = store.getConversation(id);
    if (!conversation) {
      throw new ApiError(
        404,
        "not_found",
        `Conversation '${id}' does not exist`,
      );
    }
    return conversation;
  };
  const checkModel = (model: string | null | undefined) => {
    if (!model) return;
    const problem = llm.checkModel(model);
    if (problem) throw new ApiError(400, "invalid_request", problem, "model");
  };

  app.post("/api/chat", async (c) => {
    const body = await readJson(c, chatBody);
    if (body.conversation_id) conversationOr404(body.conversation_id);
    checkModel(body.model);
    const attachments = await findUploads(runtime.home, body.attachments ?? []);
    const controller = new AbortController();
    const events = runtime.turn({ ...body, attachments, signal: controller.signal });

    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => controller.abort());
        try {
          // Keep consuming after the client leaves: the turn saves what it has.
          for await (const event of events) {
            if (stream.aborted) continue;
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event) })
              .catch(() => controller.abort());
          }
        } catch (error) {
          // The stream has begun, so no status can say it: the last event does (a full disk…).
          if (!stream.aborted) {
            const event = streamErrorEvent(error, "POST /api/chat");
            await stream.writeSSE({ event: "error", data: JSON.stringify(event) }).catch(() => {});
          }
        }
      });
    }

    c.req.raw.signal.addEventListener("abort", () => controller.abort());
    try {
      const reply = await collectReply(events);
      if (reply.error && !reply.content && reply.tool_calls.length === 0) {
        return c.json({
          ...errorBody(reply.error.code, reply.error.message),
          reply,
        }, 502);
      }
      return c.json(reply);
    } catch (error) {
      if (error instanceof ConversationNotFoundError) {
        throw new ApiError(404, "not_found", error.message);
      }
      throw error;
    }
  });

  app.get("/api/conversations", (c) => {
    const query = readQuery(c, listQuery);
    return c.json({
      conversations: store.listConversations({
        limit: query.limit,
        offset: query.offset,
        query: query.q,
        kind: query.kind,
      }),
    });
  });

  app.post("/api/conversations", async (c) => {
    const body = await readJson(c, newConversationBody);
    checkModel(body.model);
    const conversation = store.createConversation({
      title: body.title ?? "",
      model: body.model ?? null,
    });
    return c.json({ ...conversation, message_count: 0 }, 201);
  });

  app.get("/api/conversations/:id", (c) => {
    const conversation = conversationOr404(c.req.param("id"));
    return c.json({
      ...conversation,
      message_count: store.countMessages(conversation.id),
    });
  });

  app.get("/api/conversations/:id/messages", (c) => {
    const conversation = conversationOr404(c.req.param("id"));
    const query = readQuery(c, messagesQuery);
    return c.json({
      conversation_id: conversation.id,
      messages: store.listMessages(conversation.id, query),
    });
  });

  app.patch("/api/conversations/:id", async (c) => {
    const conversation = conversationOr404(c.req.param("id"));
    const body = await readJson(c, patchConversationBody);
    store.setConversationTitle(conversation.id, body.title);
    return c.json({ ...store.getConversation(conversation.id)! });
  });

  app.delete("/api/conversations/:id", (c) => {
    const id = c.req.param("id");
    if (!store.deleteConversation(id)) conversationOr404(id);
    return c.body(null, 204);
  });

  app.put("/api/conversations/:id/model", async (c) => {
    const conversation = conversationOr404(c.req.param("id"));
    const body = await readJson(c, modelBody);
    checkModel(body.model);
    store.setConversationModel(conversation.id, body.model);
    return c.json({ ...store.getConversation(conversation.id)! });
  });

  app.get("/api/models", async (c) => {
    const query = readQuery(c, modelsQuery);
    const refresh = query.refresh === "1" || query.refresh === "true";
    const report = await runtime.discover(refresh);
    return c.json({ default: runtime.config.model, ...report });
  });

  let openapi: ReturnType<typeof openApiDocument> | undefined;
  app.get("/api/openapi.json", (c) =>
    c.json(
      openapi ??= openApiDocument(apiRouteDocs, {
        title: "hob",
        version: VERSION,
        description: "A personal AI assistant's REST API. Errors are `{error: {code, message}}`.",
      }),
    ));

  app.route("/api", toolRoutes(runtime));
  app.route("/api", memoryRoutes(runtime));
  app.route("/api", backgroundRoutes(runtime));

  return app;
}
