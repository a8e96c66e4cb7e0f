/**
 * `GET /api/usage`: what the model calls cost since a date, as `hob usage`
 * reports it. Mounted under /api, behind the token; a translator over the
 * app's usage report (src/app/usage.ts).
 */

import { Hono } from "hono";
import { usageInput } from "../app/usage.ts";
import type { Hob } from "../app/hob.ts";
import type { RouteDoc } from "./openapi.ts";
import { queryAction } from "./validate.ts";

/** The route below as the OpenAPI document lists it. */
export const usageRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/usage",
    tag: "usage",
    summary:
      "What the model calls cost since a date: totals, by model/kind/job/tool, per day, budgets",
    query: usageInput,
    response: {
      description: "`{since, by, totals, groups, days, budgets}`, as `hob usage --json`",
    },
  },
];

/**
 * The usage route.
 *
 * @example
 * ```ts
 * api.route("/api", usageRoutes(hob));
 * ```
 */
export function usageRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get(
    "/usage",
    async (c) => c.json(await queryAction(c, usageInput, (query) => hob.app.usage.report(query))),
  );
  return routes;
}
