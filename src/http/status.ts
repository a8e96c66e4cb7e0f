/**
 * `GET /api/status`: one view of the whole assistant, as `hob status --json`
 * prints it. Mounted under /api, behind the token; a translator over the
 * app's status action (src/app/status.ts).
 */

import { Hono } from "hono";
import type { Hob } from "../app/hob.ts";
import type { RouteDoc } from "./openapi.ts";

/** The route below as the OpenAPI document lists it. */
export const statusRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/status",
    tag: "status",
    summary: "The whole assistant's status, as `hob status --json` prints it",
    response: { description: "The status report" },
  },
];

/**
 * The status route.
 *
 * @example
 * ```ts
 * api.route("/api", statusRoutes(hob));
 * ```
 */
export function statusRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get(
    "/status",
    async (c) => c.json(await hob.app.status.collect({ server_running: true })),
  );
  return routes;
}
