/**
 * The tool routes: the tool list with permissions and policies, direct
 * invocation by the owner, approvals waiting for a decision, and the audit log
 * of a conversation's tool calls. Mounted under /api, behind the token.
 */

import { Hono } from "hono";
import { z } from "zod";
import { ApprovalError } from "../store/approvals.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { readJson, readQuery } from "./validate.ts";

const invokeBody = z.strictObject({ args: z.record(z.string(), z.unknown()).default({}) });
const decisionBody = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  remember: z.boolean().default(false),
});
const approvalsQuery = z.object({
  status: z.enum(["pending", "approved", "denied", "expired", "all"]).default("pending"),
});

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
    query: approvalsQuery,
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
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * app.route("/api", toolRoutes(runtime));
 * ```
 */
export function toolRoutes(runtime: Runtime): Hono {
  const { registry } = runtime.toolbox;
  const app = new Hono();
  // User tools load beside start-up; these routes answer once they are in.
  app.use("*", async function toolsReady(_c, next) {
    await runtime.toolbox.ready;
    await next();
  });

  app.get("/tools", (c) =>
    c.json({
      tools: registry.list(),
      skills: [...runtime.toolbox.skills.values()].map(({ name, description }) => ({
        name,
        description,
      })),
      problems: runtime.toolbox.problems(),
    }));

  app.post("/tools/:name/invoke", async (c) => {
    const name = c.req.param("name");
    if (!registry.get(name)) throw new ApiError(404, "not_found", `No tool named '${name}'`);
    const { args } = await readJson(c, invokeBody);
    const result = await registry.invoke(name, args, "api", c.req.raw.signal);
    return c.json(result);
  });

  app.get("/approvals", (c) => {
    const { status } = readQuery(c, approvalsQuery);
    return c.json({ approvals: runtime.toolbox.approvals.list(status) });
  });

  app.post("/approvals/:id", async (c) => {
    const body = await readJson(c, decisionBody);
    try {
      return c.json(
        runtime.toolbox.approvals.decide(c.req.param("id"), body.decision, body.remember),
      );
    } catch (error) {
      if (error instanceof ApprovalError) {
        throw new ApiError(error.code === "not_found" ? 404 : 409, error.code, error.message);
      }
      throw error;
    }
  });

  app.get("/conversations/:id/events", (c) => {
    const id = c.req.param("id");
    if (!runtime.store.getConversation(id)) {
      throw new ApiError(404, "not_found", `Conversation '${id}' does not exist`);
    }
    return c.json({ conversation_id: id, events: runtime.toolbox.events.list(id) });
  });

  return app;
}
