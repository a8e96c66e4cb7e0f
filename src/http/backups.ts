/**
 * `/api/backup`: the backups' schedule and outcomes, and a backup made now
 * into `backup.dir`. Mounted under /api, behind the token; translators over
 * the app's backup actions (src/app/backups.ts).
 */

import { Hono } from "hono";
import { backupBody } from "../app/backups.ts";
import type { Hob } from "../app/hob.ts";
import { actAsync } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { readJson } from "./validate.ts";

/** The routes below as the OpenAPI document lists them. */
export const backupRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/backup",
    tag: "backup",
    summary: "The backups: schedule, the next one, the last one tried and the last one made",
    response: { description: "`{every, keep, dir, next, running, last, last_ok}`" },
  },
  {
    method: "post",
    path: "/api/backup",
    tag: "backup",
    summary: "Back up the home now, into `backup.dir` (secrets only with `with_secrets`)",
    body: backupBody,
    bodyOptional: true,
    response: { status: 201, description: "The backup: `{file, bytes, files, ms, …}`" },
    errors: { 409: "A backup is being made" },
  },
];

/**
 * The backup routes.
 *
 * @example
 * ```ts
 * api.route("/api", backupRoutes(hob));
 * ```
 */
export function backupRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get("/backup", (c) => c.json(hob.app.backups.status()));
  routes.post("/backup", async (c) => {
    const body = c.req.header("content-type") ? await readJson(c, backupBody) : {};
    return c.json(await actAsync(() => hob.app.backups.make(body)), 201);
  });
  return routes;
}
