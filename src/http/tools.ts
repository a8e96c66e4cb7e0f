/**
 * The tool routes: the tool list with permissions and policies, direct
 * invocation by the owner, approvals waiting for a decision, the audit log
 * of a conversation's tool calls, and the MCP servers' tools with approving
 * them. Mounted under /api, behind the token.
 */

import { Hono } from "hono";
import { decisionBody, listApprovalsInput } from "../app/approvals.ts";
import { approveToolsBody, mcpToolsInput } from "../app/mcp.ts";
import { invokeBody } from "../app/tools.ts";
import type { Hob } from "../app/hob.ts";
import { act, actAsync } from "./errors.ts";
import { ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { queryAction, readJson } from "./validate.ts";

/** The routes below as the OpenAPI document lists them. */
export const toolRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/tools",
    tag: "tools",
    summary: "Every tool with its permissions and policy; skills; refused user tools",
    response: { description: "`{tools, skills, problems}`" },
  },
  {
    method: "post",
    path: "/api/tools/{name}/invoke",
    tag: "tools",
    summary: "Run a tool as the owner (no approval; `deny` still holds)",
    body: invokeBody,
    response: { description: "The tool's result; `is_error` is true when it failed" },
  },
  {
    method: "get",
    path: "/api/approvals",
    tag: "tools",
    summary: "Approvals, pending ones by default",
    query: listApprovalsInput,
    response: { description: "`{approvals}`" },
  },
  {
    method: "post",
    path: "/api/approvals/{id}",
    tag: "tools",
    summary: "Approve or deny a parked tool call",
    body: decisionBody,
    response: { description: "The approval as decided" },
    errors: { 409: "Already decided or expired" },
  },
  {
    method: "get",
    path: "/api/conversations/{id}/events",
    tag: "tools",
    summary: "Every tool call of a conversation, for audit",
    response: { description: "`{conversation_id, events}`" },
  },
  {
    method: "get",
    path: "/api/mcp/servers",
    tag: "tools",
    summary: "The MCP servers of hob.yaml: state, tools offered, tools waiting for approval",
    response: { description: "`{servers}`" },
  },
  {
    method: "get",
    path: "/api/mcp/tools",
    tag: "tools",
    summary:
      "The MCP servers' tools with their definitions' hashes: approved (offered) or waiting (new, or changed: with what was approved)",
    query: mcpToolsInput,
    response: { description: "`{tools}`" },
  },
  {
    method: "post",
    path: "/api/mcp/servers/{server}/approve",
    tag: "tools",
    summary:
      "Approve a server's tools (the named ones, or all that wait): their definitions are pinned by hash and offered to models",
    body: approveToolsBody,
    response: {
      description:
        "`{server, tools, applied}`: the tools approved (with `apply: false`, that would be)",
    },
    errors: {
      404: "No such server or tool",
      409: "The server is not connected, or a definition changed since you read it",
    },
  },
];

/**
 * Builds the routes: translators from HTTP to the app's tool, approval and
 * conversation actions (src/app), and from their refusals to the API's errors.
 *
 * @example
 * ```ts
 * api.route("/api", toolRoutes(hob));
 * ```
 */
export function toolRoutes(hob: Hob): Hono {
  const { tools, approvals, conversations, mcp } = hob.app;
  const routes = new Hono();
  // User tools load beside start-up; these routes answer once they are in.
  routes.use("*", async function toolsReady(_c, next) {
    await hob.app.tools.ready();
    await next();
  });

  routes.get("/tools", async (c) => c.json(await tools.list()));

  routes.post("/tools/:name/invoke", async (c) => {
    const name = c.req.param("name");
    await actAsync(() => tools.get({ name }));
    const { args } = await readJson(c, invokeBody);
    const signal = c.req.raw.signal;
    return c.json(await actAsync(() => tools.invoke({ name, args }, { source: "api", signal })));
  });

  routes.get("/approvals", async (c) => {
    return c.json({
      approvals: await queryAction(c, listApprovalsInput, (query) => approvals.list(query)),
    });
  });

  routes.post("/approvals/:id", async (c) => {
    const body = await readJson(c, decisionBody);
    try {
      return c.json(act(() => approvals.decide({ ...body, id: c.req.param("id") })));
    } catch (error) {
      // The API named this refusal before the app layer did: it stays `already_decided`.
      if (!(error instanceof ApiError) || error.code !== "conflict") throw error;
      throw new ApiError(409, "already_decided", error.message);
    }
  });

  routes.get("/conversations/:id/events", (c) => {
    const id = c.req.param("id");
    return c.json({ conversation_id: id, events: act(() => conversations.toolEvents({ id })) });
  });

  routes.get("/mcp/servers", async (c) => c.json({ servers: await mcp.servers() }));

  routes.get("/mcp/tools", async (c) => {
    return c.json({ tools: await queryAction(c, mcpToolsInput, (query) => mcp.tools(query)) });
  });

  routes.post("/mcp/servers/:server/approve", async (c) => {
    const body = await readJson(c, approveToolsBody);
    return c.json(await actAsync(() => mcp.approve({ ...body, server: c.req.param("server") })));
  });

  return routes;
}
