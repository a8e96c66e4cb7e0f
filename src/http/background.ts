/**
 * The routes of what hob does without a user turn: scheduled jobs and their
 * run logs, background tasks, and the notifications they leave. Mounted under
 * /api, behind the token.
 */

import { Hono } from "hono";
import { z } from "zod";
import { newScheduleInput, schedulePatchBody, scheduleRunsQuery } from "../app/schedules.ts";
import { listTasksInput, newTaskInput, resumeTaskBody } from "../app/tasks.ts";
import { listNotificationsInput } from "../app/notifications.ts";
import type { Hob } from "../app/hob.ts";
import { act, actAsync, notFound } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { queryAction, readInput, readJson, readQuery } from "./validate.ts";

/** The routes below as the OpenAPI document lists them. */
export const backgroundRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/schedules",
    tag: "schedules",
    summary: "Every scheduled job",
    response: { description: "`{schedules}`" },
  },
  {
    method: "post",
    path: "/api/schedules",
    tag: "schedules",
    summary: "Schedule a prompt (cron expression or `once:<time>`)",
    body: newScheduleInput,
    response: { status: 201, description: "The job" },
    errors: { 409: "A job with that name exists" },
  },
  {
    method: "get",
    path: "/api/schedules/{id}",
    tag: "schedules",
    summary: "One job with its last run, last failure and missed runs",
    response: { description: "The job" },
  },
  {
    method: "patch",
    path: "/api/schedules/{id}",
    tag: "schedules",
    summary: "Change a job",
    body: schedulePatchBody,
    response: { description: "The job" },
    errors: { 409: "A job with that name exists" },
  },
  {
    method: "delete",
    path: "/api/schedules/{id}",
    tag: "schedules",
    summary: "Delete a job",
    response: { status: 204, description: "Deleted" },
  },
  {
    method: "get",
    path: "/api/schedules/{id}/runs",
    tag: "schedules",
    summary: "A job's run log, newest first",
    query: scheduleRunsQuery,
    response: { description: "`{runs}`" },
  },
  {
    method: "post",
    path: "/api/schedules/{id}/run",
    tag: "schedules",
    summary: "Run a job now",
    response: { description: "The run" },
    errors: { 409: "The job is running" },
  },
  {
    method: "get",
    path: "/api/tasks",
    tag: "tasks",
    summary: "Background tasks",
    query: listTasksInput,
    response: { description: "`{tasks, counts}`" },
  },
  {
    method: "post",
    path: "/api/tasks",
    tag: "tasks",
    summary: "Queue a background task",
    body: newTaskInput,
    response: { status: 201, description: "The task" },
  },
  {
    method: "get",
    path: "/api/tasks/{id}",
    tag: "tasks",
    summary: "One task",
    response: { description: "The task" },
  },
  {
    method: "post",
    path: "/api/tasks/{id}/cancel",
    tag: "tasks",
    summary: "Cancel a task",
    response: { description: "The task" },
    errors: { 409: "The task has finished" },
  },
  {
    method: "post",
    path: "/api/tasks/{id}/resume",
    tag: "tasks",
    summary: "Resume a waiting task, with an optional note",
    body: resumeTaskBody,
    bodyOptional: true,
    response: { description: "The task" },
    errors: { 409: "The task is not waiting" },
  },
  {
    method: "get",
    path: "/api/notifications",
    tag: "notifications",
    summary: "Notifications, newest first",
    query: listNotificationsInput,
    response: { description: "`{notifications, unread}`" },
  },
  {
    method: "post",
    path: "/api/notifications/{id}/read",
    tag: "notifications",
    summary: "Mark one notification (or `all`) read",
    response: {
      description: "How many changed and how many are left unread",
      schema: z.object({ marked: z.number().int(), unread: z.number().int() }),
    },
  },
];

/**
 * Builds the routes: translators from HTTP to the app's actions (src/app),
 * and from their refusals to the API's errors.
 *
 * @example
 * ```ts
 * api.route("/api", backgroundRoutes(hob));
 * ```
 */
export function backgroundRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.route("/schedules", scheduleRoutes(hob));
  routes.route("/tasks", taskRoutes(hob));
  routes.route("/notifications", notificationRoutes(hob));
  return routes;
}

function scheduleRoutes(hob: Hob): Hono {
  const { schedules } = hob.app;
  const routes = new Hono();
  /** A path's job id (ids only, not names), or a 404 naming it. */
  const key = (id: string) => {
    if (!/^\d+$/.test(id)) throw notFound("Schedule", id);
    return Number(id);
  };
  const found = (id: string) => act(() => schedules.get({ key: key(id) }), "Schedule", id);

  routes.get("/", (c) => c.json({ schedules: schedules.list() }));

  routes.post("/", async (c) => {
    const body = await readInput(c, newScheduleInput);
    return c.json(act(() => schedules.add(body)), 201);
  });

  routes.get("/:id", (c) => c.json(found(c.req.param("id"))));

  routes.patch("/:id", async (c) => {
    const job = found(c.req.param("id"));
    const body = await readJson(c, schedulePatchBody);
    return c.json(act(() => schedules.update({ ...body, key: job.id }), "Schedule", job.id));
  });

  routes.delete("/:id", (c) => {
    const id = c.req.param("id");
    act(() => schedules.remove({ key: key(id) }), "Schedule", id);
    return c.body(null, 204);
  });

  routes.get("/:id/runs", (c) => {
    const job = found(c.req.param("id"));
    const { limit } = readQuery(c, scheduleRunsQuery);
    return c.json({ runs: act(() => schedules.runs({ key: job.id, limit }), "Schedule", job.id) });
  });

  routes.post("/:id/run", async (c) => {
    const id = c.req.param("id");
    return c.json(await actAsync(() => schedules.run({ key: key(id) }), "Schedule", id));
  });
  return routes;
}

function taskRoutes(hob: Hob): Hono {
  const { tasks } = hob.app;
  const routes = new Hono();
  /** A path's task id, or a 404 naming it. */
  const id = (text: string) => {
    if (!/^\d+$/.test(text)) throw notFound("Task", text);
    return Number(text);
  };

  routes.get("/", async (c) => {
    const listed = await queryAction(c, listTasksInput, (query) => tasks.list(query));
    return c.json({ tasks: listed, counts: tasks.counts() });
  });

  routes.post("/", async (c) => {
    const body = await readInput(c, newTaskInput);
    return c.json(act(() => tasks.add(body)), 201);
  });

  routes.get("/:id", (c) => {
    const text = c.req.param("id");
    return c.json(act(() => tasks.get({ id: id(text) }), "Task", text));
  });

  routes.post("/:id/cancel", (c) => {
    const text = c.req.param("id");
    return c.json(act(() => tasks.cancel({ id: id(text) }), "Task", text));
  });

  routes.post("/:id/resume", async (c) => {
    const text = c.req.param("id");
    const task = act(() => tasks.get({ id: id(text) }), "Task", text);
    const { note } = c.req.header("content-type")
      ? await readJson(c, resumeTaskBody)
      : { note: undefined };
    return c.json(act(() => tasks.resume({ id: task.id, note }), "Task", text));
  });
  return routes;
}

function notificationRoutes(hob: Hob): Hono {
  const { notifications } = hob.app;
  const routes = new Hono();

  routes.get("/", async (c) => {
    const listed = await queryAction(
      c,
      listNotificationsInput,
      (query) => notifications.list(query),
    );
    return c.json({
      notifications: listed,
      unread: notifications.unreadCount(),
    });
  });

  routes.post("/:id/read", (c) => {
    const text = c.req.param("id");
    if (text !== "all" && !/^\d+$/.test(text)) throw notFound("Notification", text);
    const id = text === "all" ? "all" : Number(text);
    return c.json(act(() => notifications.markRead({ id }), "Notification", text));
  });
  return routes;
}
