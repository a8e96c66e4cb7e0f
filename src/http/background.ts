/**
 * The routes of hob's own work: scheduled jobs and their run logs, background
 * tasks, notifications, and the status of the whole assistant. Mounted under
 * /api, behind the token.
 */

import { Hono } from "hono";
import { z } from "zod";
import { ScheduleError } from "../scheduler/schedule.ts";
import { JobError } from "../store/jobs.ts";
import { MAX_PRIORITY, TaskError } from "../store/tasks.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { collectStatus } from "../runtime/status.ts";
import { ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { readJson, readQuery } from "./validate.ts";

const jobFields = {
  name: z.string().trim().min(1).max(100),
  prompt: z.string().min(1).max(100_000),
  schedule: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
  missed_policy: z.enum(["run_once", "skip"]).optional(),
  model: z.string().min(3).nullable().optional(),
  enabled: z.boolean().optional(),
};
const newJobBody = z.strictObject(jobFields);
const jobPatchBody = z.strictObject(jobFields).partial();
const runsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1_000).default(50) });

const newTaskBody = z.strictObject({
  title: z.string().trim().min(1).max(200),
  prompt: z.string().min(1).max(100_000).optional(),
  priority: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY).default(0),
  blocked_by: z.array(z.number().int().min(1)).max(100).default([]),
});
const tasksQuery = z.object({
  status: z.enum(["pending", "in_progress", "waiting", "complete", "failed", "cancelled"])
    .optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
});
const resumeBody = z.strictObject({ note: z.string().max(10_000).optional() });
const notificationsQuery = z.object({
  unread: z.enum(["0", "1", "true", "false"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

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
    body: newJobBody,
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
    body: jobPatchBody,
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
    query: runsQuery,
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
    query: tasksQuery,
    response: { description: "`{tasks, counts}`" },
  },
  {
    method: "post",
    path: "/api/tasks",
    tag: "tasks",
    summary: "Queue a background task",
    body: newTaskBody,
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
    body: resumeBody,
    bodyOptional: true,
    response: { description: "The task" },
    errors: { 409: "The task is not waiting" },
  },
  {
    method: "get",
    path: "/api/notifications",
    tag: "notifications",
    summary: "Notifications, newest first",
    query: notificationsQuery,
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
  {
    method: "get",
    path: "/api/status",
    tag: "status",
    summary: "The whole assistant's status, as `hob status --json` prints it",
    response: { description: "The status report" },
  },
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * app.route("/api", backgroundRoutes(runtime));
 * ```
 */
export function backgroundRoutes(runtime: Runtime): Hono {
  const { jobs, scheduler, tasks, notifications } = runtime.background;
  const app = new Hono();

  const jobOr404 = (id: string) => {
    const job = /^\d+$/.test(id) ? jobs.get(Number(id)) : undefined;
    if (!job) throw new ApiError(404, "not_found", `Schedule '${id}' does not exist`);
    return job;
  };
  const taskOr404 = (id: string) => {
    const task = /^\d+$/.test(id) ? tasks.get(Number(id)) : undefined;
    if (!task) throw new ApiError(404, "not_found", `Task '${id}' does not exist`);
    return task;
  };
  const checkModel = (model: string | null | undefined) => {
    const problem = model ? runtime.llm.checkModel(model) : null;
    if (problem) throw new ApiError(400, "invalid_request", problem, "model");
  };

  app.get("/schedules", (c) => c.json({ schedules: jobs.list().map((job) => jobs.view(job)) }));

  app.post("/schedules", async (c) => {
    const body = await readJson(c, newJobBody);
    checkModel(body.model);
    const job = scheduleCall(() => scheduler.add(body));
    return c.json(jobs.view(job), 201);
  });

  app.get("/schedules/:id", (c) => c.json(jobs.view(jobOr404(c.req.param("id")))));

  app.patch("/schedules/:id", async (c) => {
    const job = jobOr404(c.req.param("id"));
    const body = await readJson(c, jobPatchBody);
    checkModel(body.model);
    return c.json(jobs.view(scheduleCall(() => scheduler.update(job.id, body))));
  });

  app.delete("/schedules/:id", (c) => {
    jobs.delete(jobOr404(c.req.param("id")).id);
    return c.body(null, 204);
  });

  app.get("/schedules/:id/runs", (c) => {
    const job = jobOr404(c.req.param("id"));
    return c.json({ runs: jobs.runs(job.id, readQuery(c, runsQuery).limit) });
  });

  app.post("/schedules/:id/run", async (c) => {
    const job = jobOr404(c.req.param("id"));
    try {
      return c.json(await scheduler.runNow(job.id));
    } catch (error) {
      if (error instanceof JobError && error.code === "busy") {
        throw new ApiError(409, "busy", error.message);
      }
      throw error;
    }
  });

  app.get("/tasks", (c) => {
    const query = readQuery(c, tasksQuery);
    return c.json({ tasks: tasks.list(query), counts: tasks.counts() });
  });

  app.post("/tasks", async (c) => {
    const body = await readJson(c, newTaskBody);
    return c.json(taskCall(() => tasks.add({ ...body, prompt: body.prompt ?? body.title })), 201);
  });

  app.get("/tasks/:id", (c) => c.json(taskOr404(c.req.param("id"))));

  app.post("/tasks/:id/cancel", (c) => {
    const task = taskOr404(c.req.param("id"));
    return c.json(taskCall(() => tasks.cancel(task.id)));
  });

  app.post("/tasks/:id/resume", async (c) => {
    const task = taskOr404(c.req.param("id"));
    const { note } = c.req.header("content-type")
      ? await readJson(c, resumeBody)
      : { note: undefined };
    return c.json(taskCall(() => tasks.resume(task.id, note)));
  });

  app.get("/notifications", (c) => {
    const query = readQuery(c, notificationsQuery);
    const unread = query.unread === "1" || query.unread === "true";
    return c.json({
      notifications: notifications.list({ unread, limit: query.limit }),
      unread: notifications.unreadCount(),
    });
  });

  app.post("/notifications/:id/read", (c) => {
    const id = c.req.param("id");
    if (id !== "all" && !(/^\d+$/.test(id) && notifications.get(Number(id)))) {
      throw new ApiError(404, "not_found", `Notification '${id}' does not exist`);
    }
    const changed = notifications.markRead(id === "all" ? "all" : Number(id));
    return c.json({ marked: changed, unread: notifications.unreadCount() });
  });

  app.get("/status", async (c) => c.json(await collectStatus(runtime, { serverRunning: true })));

  return app;
}

/** Runs a scheduler call, turning a bad schedule into a 400 naming the field and a clash into a 409. */
function scheduleCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ScheduleError) {
      const field = /time zone/.test(error.message) ? "timezone" : "schedule";
      throw new ApiError(400, "invalid_request", error.message, field);
    }
    if (error instanceof JobError) {
      throw new ApiError(error.code === "duplicate" ? 409 : 404, error.code, error.message);
    }
    throw error;
  }
}

function taskCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof TaskError) {
      if (error.code === "invalid") {
        throw new ApiError(400, "invalid_request", error.message, "blocked_by");
      }
      throw new ApiError(error.code === "conflict" ? 409 : 404, error.code, error.message);
    }
    throw error;
  }
}
