/**
 * `/mcp`: hob's MCP server over streamable HTTP, stateless (a fresh server
 * and transport per request, so nothing is held between requests). The API's
 * guard (guard.ts) has checked `Host` and `Origin` before this route runs;
 * here the API token must come as a bearer header or, for clients that
 * cannot set headers, a `token` query parameter.
 */

import { Hono } from "hono";
import type { Hob } from "../app/hob.ts";
import type { createAuth } from "./auth.ts";
import { errorResponse } from "./errors.ts";

type Auth = ReturnType<typeof createAuth>;

/**
 * The `/mcp` route.
 *
 * @example
 * ```ts
 * api.route("/", mcpRoutes(hob, auth));
 * ```
 */
export function mcpRoutes(hob: Hob, auth: Auth): Hono {
  const routes = new Hono();

  routes.use("/mcp", async function mcpAuth(c, next) {
    const query = c.req.query("token");
    // A token, never the page's session: an MCP client is not the page.
    const verdict = query !== undefined ? auth.verify(c, query) : auth.verifyBearer(c);
    // The API's 429, in JSON-RPC's shape here (errorResponse picks it by path).
    if (verdict && !verdict.ok && verdict.retryAfter > 0) {
      return auth.tooMany(c, verdict.retryAfter);
    }
    if (!verdict?.ok) {
      c.header("WWW-Authenticate", 'Bearer realm="hob"');
      return errorResponse(
        c,
        401,
        "unauthorized",
        "Send the API token as 'Authorization: Bearer <token>' or '?token=<token>' — it is in HOME/token",
      );
    }
    await next();
  });

  routes.post("/mcp", async (c) => {
    // Loaded on the first request, so hob starts without the MCP SDK.
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import("./mcp_server.ts"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    ]);
    const server = createMcpServer(hob);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // Stateless: the response is complete (JSON mode), so the server's work is done.
      await server.close();
    }
  });

  // Stateless servers keep no stream to GET and no session to DELETE.
  routes.on(["GET", "DELETE"], "/mcp", (c) => {
    c.header("Allow", "POST");
    return errorResponse(
      c,
      405,
      "method_not_allowed",
      "This server is stateless: send JSON-RPC requests with POST",
    );
  });

  return routes;
}
