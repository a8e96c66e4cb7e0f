/**
 * The HTTP API, one Hono instance: health, chat (SSE or JSON), conversations and
 * models under /api, every route but health behind the bearer token; the
 * page, /mcp and /v1 mounted beside them. Handlers
 * are translators: they hand the request's body to the app's actions
 * (src/app), which parse it (a path's id and a query with the action's own
 * schema), and answer their refusals through `act` (errors.ts); they know no
 * adapter.
 */

import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import {
  chatInput,
  listConversationsInput,
  messagesQuery,
  modelBody,
  newConversationInput,
  renameBody,
} from "../app/conversations.ts";
import { collectReply } from "../core/reply.ts";
import type { AgentEvent } from "../core/types.ts";
import { eventForPeople, messageForPeople } from "./display.ts";
import type { Hob } from "../app/hob.ts";
import { VERSION } from "../version.ts";
import { type Auth, createAuth } from "./auth.ts";
import { health } from "./gate.ts";
import { waitToWrite } from "./write_wait.ts";
import { guard } from "./guard.ts";
import {
  errorBody,
  errorResponse,
  handleError,
  handleNotFound,
  streamErrorEvent,
} from "./errors.ts";
import { act, actAsync } from "./errors.ts";
import { openApiDocument, type RouteDoc } from "./openapi.ts";
import { queryAction, readInput, readJson, readQuery } from "./validate.ts";
import { modelAdvice } from "../app/models.ts";
import { uploadRouteDocs, uploadRoutes } from "./uploads.ts";
import { toolRouteDocs, toolRoutes } from "./tools.ts";
import { skillRouteDocs, skillRoutes } from "./skills.ts";
import { memoryRouteDocs, memoryRoutes } from "./memory.ts";
import { backgroundRouteDocs, backgroundRoutes } from "./background.ts";
import { usageRouteDocs, usageRoutes } from "./usage.ts";
import { backupRouteDocs, backupRoutes } from "./backups.ts";
import { statusRouteDocs, statusRoutes } from "./status.ts";
import { channelRouteDocs, channelRoutes } from "./channels.ts";
import { audioRoutes, speechRouteDocs, speechRoutes } from "./speech.ts";
import { mcpRoutes } from "./mcp.ts";
import { openAiRoutes } from "./openai_api.ts";

const modelsQuery = z.object({
  refresh: z.enum(["0", "1", "true", "false"]).optional(),
});

/** The routes this file serves itself as the OpenAPI document lists them. */
function eagerRouteDocs(): RouteDoc[] {
  return [
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
      body: chatInput,
      response: {
        description: "The reply: `{conversation_id, content, tool_calls, status, model, …}`",
        sse:
          "With `Accept: text/event-stream`: the turn's events (`start`, `text`, `tool_call`, `tool_result`, …, `done`)",
      },
      errors: {
        404: "No conversation with that `conversation_id`",
        502:
          "The model failed, before or during its reply; the body also holds `reply`, with any text it wrote",
      },
    },
    ...conversationRouteDocs(),
    {
      method: "get",
      path: "/api/models",
      tag: "models",
      summary: "Discovered models and each provider's status",
      query: modelsQuery,
      response: {
        description:
          "`{default, models, providers, advice}`: `advice` says what to do when the default model's provider did not answer, else null",
      },
    },
  ];
}

/** `/api/conversations` as the OpenAPI document lists it. */
function conversationRouteDocs(): RouteDoc[] {
  return [
    {
      method: "get",
      path: "/api/conversations",
      tag: "conversations",
      summary: "Conversations, most recent first",
      query: listConversationsInput,
      response: { description: "`{conversations}`" },
    },
    {
      method: "post",
      path: "/api/conversations",
      tag: "conversations",
      summary: "Start a conversation",
      body: newConversationInput,
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
      body: renameBody,
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
  ];
}

/**
 * Every /api route, from the modules that serve them; a test checks this
 * against the routes the API registers.
 */
function apiRouteDocs(): RouteDoc[] {
  return [
    ...eagerRouteDocs(),
    ...uploadRouteDocs,
    ...toolRouteDocs,
    ...skillRouteDocs,
    ...memoryRouteDocs,
    ...backgroundRouteDocs,
    ...usageRouteDocs,
    ...backupRouteDocs,
    ...statusRouteDocs,
    ...channelRouteDocs,
    ...speechRouteDocs,
  ];
}

/** Options for {@linkcode createApi}. */
export interface ApiOptions {
  /** The API token; requests without it get 401. */
  token: string;
  /** The address hob listens on, when not `server.host` (`hob serve --host`). */
  host?: string;
  /**
   * The page's routes (src/page's `pageRoutes`), mounted at `/` behind the same
   * guard and auth. Handed in by whoever serves, so src/http does not import
   * the page that imports it.
   */
  page: (hob: Hob, auth: Auth) => Hono;
  /** When the server started, for `/api/health`'s uptime (the gate answered it until now). */
  startedAt?: number;
}

/**
 * Builds the API over an open home's handle.
 *
 * @example
 * ```ts
 * const api = createApi(hob, { token, page: pageRoutes });
 * Deno.serve({ hostname: "127.0.0.1", port: 8484 }, api.fetch);
 * ```
 */
export function createApi(hob: Hob, options: ApiOptions): Hono {
  const api = new Hono();
  api.onError(handleError);
  api.notFound(handleNotFound);
  // Host (DNS rebinding) and Origin (cross-site) before anything else; security headers on all.
  const { server } = hob.config;
  api.use("*", guard({ bind: options.host ?? server.host, allowedHosts: server.allowed_hosts }));

  api.get("/api/health", health(options.startedAt ?? Date.now()));
  // A request that changes something waits here while another program holds hob.db.
  api.use("*", waitToWrite((signal) => hob.writable(signal)));

  const auth = createAuth(options.token, { maxFailures: server.max_auth_failures });
  // The page: the shell, its static files and the fragments htmx swaps in.
  api.route("/", options.page(hob, auth));
  mountGuarded(api, hob, auth);

  api.route("/api", chatRoutes(hob));
  api.route("/api/conversations", conversationRoutes(hob));
  api.route("/api", metaRoutes(hob));
  mountRestOfApi(api, hob);
  return api;
}

/**
 * The other /api routes, in the order they have always been mounted: uploads,
 * then the tool routes, whose wait for the toolbox (`toolsReady`) holds every
 * route after them and every /api path nothing serves.
 */
function mountRestOfApi(api: Hono, hob: Hob): void {
  api.route("/api", uploadRoutes(hob));
  api.route("/api", toolRoutes(hob));
  api.route("/api", skillRoutes(hob));
  api.route("/api", memoryRoutes(hob));
  api.route("/api", backgroundRoutes(hob));
  api.route("/api", usageRoutes(hob));
  api.route("/api", backupRoutes(hob));
  api.route("/api", statusRoutes(hob));
  api.route("/api/channels", channelRoutes(hob));
  api.route("/api", speechRoutes(hob));
}

/**
 * The token and the body limits on /api, /mcp and /v1, and the routes that
 * come first: the MCP server and the OpenAI-compatible API.
 */
function mountGuarded(api: Hono, hob: Hob, auth: Auth): void {
  const { server } = hob.config;
  api.use("/api/*", auth.require());
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) =>
        errorResponse(c, 413, "payload_too_large", `The body is larger than ${maxSize} bytes`),
    });
  const bodyLimitFor = {
    json: limit(server.max_body_bytes),
    upload: limit(server.max_upload_bytes),
  };
  // Files may be larger than requests: uploads and audio to transcribe get the file limit.
  const files = new Set(["/api/uploads", "/v1/audio/transcriptions"]);
  const sized: MiddlewareHandler = (c, next) =>
    (files.has(c.req.path) ? bodyLimitFor.upload : bodyLimitFor.json)(c, next);
  api.use("/api/*", sized);
  // MCP over streamable HTTP: its own guard (Host, Origin, token), the API's body limit.
  api.use("/mcp", bodyLimitFor.json);
  api.route("/", mcpRoutes(hob, auth));
  // The OpenAI-compatible API: the same token, the same body limit.
  api.use("/v1/*", auth.require(), sized);
  api.route("/v1", openAiRoutes(hob));
  api.route("/v1/audio", audioRoutes(hob));
}

/** `POST /chat`: a translator to the turn action; the reply as JSON, or the turn's events as SSE. */
function chatRoutes(hob: Hob): Hono {
  const { conversations } = hob.app;
  const routes = new Hono();
  routes.post("/chat", async (c) => {
    const body = await readInput(c, chatInput);
    const controller = new AbortController();
    const events = await actAsync(() => conversations.turn(body, { signal: controller.signal }));
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      return streamTurn(c, events, controller);
    }
    c.req.raw.signal.addEventListener("abort", () => controller.abort());
    const reply = await actAsync(() => collectReply(events));
    // Failed is failed, whatever came before: the body still holds what the model wrote.
    if (reply.error) {
      return c.json({ ...errorBody(reply.error.code, reply.error.message), reply }, 502);
    }
    return c.json(reply);
  });
  return routes;
}

/** A turn's events as server-sent events; a client that leaves stops the turn, which saves what it has. */
function streamTurn(
  c: Context,
  events: AsyncGenerator<AgentEvent>,
  controller: AbortController,
): Response {
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => controller.abort());
    try {
      // Keep consuming after the client leaves: the turn saves what it has.
      for await (const event of events) {
        if (stream.aborted) continue;
        await stream.writeSSE({ event: event.type, data: JSON.stringify(eventForPeople(event)) })
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

/** `/conversations`: translators to the conversation actions; a path's unknown id is a 404. */
function conversationRoutes(hob: Hob): Hono {
  const { conversations } = hob.app;
  const routes = new Hono();
  const found = (id: string) => act(() => conversations.get({ id }));

  routes.get("/", async (c) => {
    const listed = await queryAction(
      c,
      listConversationsInput,
      (query) => conversations.list(query),
    );
    return c.json({ conversations: listed });
  });

  routes.post("/", async (c) => {
    const body = await readInput(c, newConversationInput);
    return c.json(act(() => conversations.create(body)), 201);
  });

  routes.get("/:id", (c) => c.json(found(c.req.param("id"))));

  routes.get("/:id/messages", (c) => {
    const { id } = found(c.req.param("id"));
    const query = readQuery(c, messagesQuery);
    return c.json({
      conversation_id: id,
      messages: act(() => conversations.messages({ ...query, id })).map(messageForPeople),
    });
  });

  routes.patch("/:id", async (c) => {
    const { id } = found(c.req.param("id"));
    const body = await readJson(c, renameBody);
    return c.json(act(() => conversations.rename({ ...body, id })));
  });

  routes.delete("/:id", (c) => {
    act(() => conversations.remove({ id: c.req.param("id") }));
    return c.body(null, 204);
  });

  routes.put("/:id/model", async (c) => {
    const { id } = found(c.req.param("id"));
    const body = await readJson(c, modelBody);
    return c.json(act(() => conversations.setModel({ ...body, id })));
  });
  return routes;
}

/** `/models` (discovery, cached by the hob) and `/openapi.json` (built once). */
function metaRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get("/models", async (c) => {
    const query = readQuery(c, modelsQuery);
    const refresh = query.refresh === "1" || query.refresh === "true";
    const report = await hob.app.models.discover({ refresh });
    const advice = modelAdvice(hob.config.model, report);
    return c.json({ default: hob.config.model, ...report, advice });
  });

  let openapi: OpenApiDocument | undefined;
  routes.get("/openapi.json", (c) => c.json(openapi ??= apiDocument()));
  return routes;
}

type OpenApiDocument = ReturnType<typeof openApiDocument>;

/** The OpenAPI document of every /api route. */
function apiDocument(): OpenApiDocument {
  return openApiDocument(apiRouteDocs(), {
    title: "hob",
    version: VERSION,
    description: "A personal AI assistant's REST API. Errors are `{error: {code, message}}`.",
  });
}
