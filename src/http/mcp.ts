/**
 * `/mcp`: hob's MCP server over streamable HTTP, stateless (a fresh server
 * and transport per request, so nothing is held between requests). Guarded
 * three ways before the protocol sees a byte: the `Host` header must name
 * this machine (DNS rebinding), a browser's `Origin` must be this machine
 * too (cross-site requests), and the API token must come as a bearer header
 * or, for clients that cannot set headers, a `token` query parameter.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import type { Runtime } from "../runtime/runtime.ts";
import type { createAuth } from "./auth.ts";

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

type Auth = ReturnType<typeof createAuth>;

/**
 * The `/mcp` route.
 *
 * @example
 * ```ts
 * app.route("/", mcpRoutes(runtime, auth));
 * ```
 */
export function mcpRoutes(runtime: Runtime, auth: Auth): Hono {
  const app = new Hono();
  const allowed = allowedHostNames(runtime.config.server.host);

  app.use("/mcp", async function mcpGuard(c, next) {
    const host = hostName(c.req.header("host"));
    if (!host || !allowed.has(host)) {
      return rpcError(c, 403, `Host '${c.req.header("host") ?? ""}' is not this hob`);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !allowed.has(hostName(safeHost(origin)) ?? "")) {
      return rpcError(c, 403, `Origin '${origin}' may not call this hob`);
    }
    const query = c.req.query("token");
    const ok = query !== undefined ? auth.matchesToken(query) : auth.check(c) === "token";
    if (!ok) {
      c.header("WWW-Authenticate", 'Bearer realm="hob"');
      return rpcError(
        c,
        401,
        "Send the API token as 'Authorization: Bearer <token>' or '?token=<token>' — it is in HOME/token",
      );
    }
    await next();
  });

  app.post("/mcp", async (c) => {
    // Loaded on the first request, so hob starts without the MCP SDK.
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import("../mcp/server.ts"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    ]);
    const server = createMcpServer(runtime);
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
  app.on(["GET", "DELETE"], "/mcp", (c) => {
    c.header("Allow", "POST");
    return rpcError(c, 405, "This server is stateless: send JSON-RPC requests with POST");
  });

  return app;
}

/** This machine's names, plus the address hob was told to listen on (unless it is a wildcard). */
function allowedHostNames(bind: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (bind !== "0.0.0.0" && bind !== "::" && bind !== "[::]") {
    names.add(bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind.toLowerCase());
  }
  return names;
}

/** The host name of a `Host` header value (`127.0.0.1:8484` → `127.0.0.1`, `[::1]:80` → `[::1]`). */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^(\[[0-9a-f:.]+\]|[^:\[\]]+)(?::\d+)?$/i.exec(header.trim());
  return match ? match[1].toLowerCase() : null;
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function rpcError(c: Context, status: 401 | 403 | 405, message: string): Response {
  return c.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, status);
}
