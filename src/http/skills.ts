/**
 * The Agent Skills routes: the skills with their states and the TypeScript
 * workflows, one skill with its install review, adding one (pending until
 * accepted), accepting the files reviewed (narrowing its tools and hosts),
 * removing one. Translators over `app.skills` (src/app/skills.ts): its
 * schemas are the only parsing, its refusals answered through `act`.
 * Mounted under /api, behind the token.
 */

import { Hono } from "hono";
import { acceptSkillBody, addSkillInput } from "../app/skills.ts";
import type { Hob } from "../app/hob.ts";
import { actAsync } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { readInput, readJson } from "./validate.ts";

/** The routes below as the OpenAPI document lists them. */
export const skillRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/skills",
    tag: "skills",
    summary:
      "The Agent Skills with their state (active, pending, changed, invalid), and the TypeScript workflows",
    response: { description: "`{skills, workflows}`" },
  },
  {
    method: "get",
    path: "/api/skills/{name}",
    tag: "skills",
    summary: "One skill whole: its state, install review, instructions and format warnings",
    response: { description: "`{name, state, review, instructions, format_warnings, …}`" },
  },
  {
    method: "post",
    path: "/api/skills",
    tag: "skills",
    summary:
      "Add a skill from a folder (or an archive, or a URL): copied into HOME/skills, pending until accepted",
    body: addSkillInput,
    response: {
      status: 201,
      description: 'The skill as `GET /api/skills/{name}` shows it, `state: "pending"`',
    },
    errors: { 409: "A skill of that name is installed already" },
  },
  {
    method: "post",
    path: "/api/skills/{name}/accept",
    tag: "skills",
    summary:
      "Accept the files reviewed (their hash), with the tools it may run unasked and the hosts its scripts may reach",
    body: acceptSkillBody,
    response: { description: 'The skill as accepted, `state: "active"`' },
    errors: { 409: "The files changed since that review (`field: hash`), or the skill is invalid" },
  },
  {
    method: "delete",
    path: "/api/skills/{name}",
    tag: "skills",
    summary: "Remove a skill: its folder and its record",
    response: { description: "`{removed}`" },
  },
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * api.route("/api", skillRoutes(hob));
 * ```
 */
export function skillRoutes(hob: Hob): Hono {
  const { skills } = hob.app;
  const routes = new Hono();

  routes.get("/skills", async (c) => c.json(await skills.list()));

  routes.get("/skills/:name", async (c) => {
    return c.json(await actAsync(() => skills.show({ name: c.req.param("name") })));
  });

  routes.post("/skills", async (c) => {
    const body = await readInput(c, addSkillInput);
    return c.json(await actAsync(() => skills.add(body, { by: "api" })), 201);
  });

  routes.post("/skills/:name/accept", async (c) => {
    const body = await readJson(c, acceptSkillBody);
    return c.json(await actAsync(() => skills.accept({ ...body, name: c.req.param("name") })));
  });

  routes.delete("/skills/:name", async (c) => {
    return c.json(await actAsync(() => skills.remove({ name: c.req.param("name") })));
  });

  return routes;
}
