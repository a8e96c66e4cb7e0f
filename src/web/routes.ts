/**
 * The page's routes: the shell (after the `?token=` link has set the session
 * cookie), the embedded static files, and the HTML fragments htmx swaps in.
 * Fragment writes go through the same stores as the API, behind the same
 * authentication (and its cross-site guard).
 */

import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import { z } from "zod";
import { join } from "node:path";
import type { Runtime } from "../runtime/runtime.ts";
import type { createAuth } from "../http/auth.ts";
import { ApiError, errorResponse } from "../http/errors.ts";
import { readForm } from "../http/validate.ts";
import { ScheduleError } from "../scheduler/schedule.ts";
import { JobError } from "../store/jobs.ts";
import { MAX_PRIORITY, TaskError } from "../store/tasks.ts";
import { ApprovalError } from "../store/approvals.ts";
import { writeAtomic } from "../tools/fs_helpers.ts";
import { readOrEmpty } from "../memory/memory.ts";
import { type Asset, getAsset, getClientModule } from "./assets.ts";
import { shell, signIn } from "./layout.ts";
import {
  approvalsPanel,
  badges,
  conversationList,
  EDITABLE_FILES,
  type Flash,
  memoryEditor,
  memoryPanel,
  memoryResults,
  notificationsPanel,
  schedulesPanel,
  tasksPanel,
  toolsPanel,
} from "./panels.ts";

/** The paths that show the shell (the views app.js routes between). */
const VIEWS = [
  "/",
  "/c/:id",
  "/memory",
  "/schedules",
  "/tasks",
  "/approvals",
  "/tools",
  "/notifications",
];

const scheduleForm = z.object({
  name: z.string().trim().min(1, "give the job a name").max(100),
  schedule: z.string().trim().min(1, "give a schedule"),
  prompt: z.string().trim().min(1, "say what the job should do"),
  timezone: z.string().trim().optional(),
  missed_policy: z.enum(["run_once", "skip"]).default("run_once"),
});
const taskForm = z.object({
  title: z.string().trim().min(1, "give the task a title").max(200),
  prompt: z.string().trim().optional(),
  priority: z.string().trim().regex(/^-?\d*$/, "priority is a whole number")
    .refine((text) => Math.abs(Number(text)) <= MAX_PRIORITY, {
      error: `priority is from -${MAX_PRIORITY} to ${MAX_PRIORITY}`,
    }).optional(),
});

type Auth = ReturnType<typeof createAuth>;

/**
 * Builds the page's routes.
 *
 * @example
 * ```ts
 * app.route("/", webRoutes(runtime, auth));
 * ```
 */
export function webRoutes(runtime: Runtime, auth: Auth): Hono {
  const app = new Hono();
  const { jobs, scheduler, tasks, notifications } = runtime.background;
  const approvals = runtime.toolbox.approvals;

  app.get("/static/:name", async (c) => {
    const asset = await getAsset(c.req.param("name"));
    if (!asset) throw new ApiError(404, "not_found", "No such file among the page's assets");
    return sendAsset(c, asset);
  });

  // The client module for user scripts: no token, as a script imports it before it has one.
  app.get("/client.ts", async (c) => sendAsset(c, await getClientModule()));

  for (const path of VIEWS) {
    app.get(path, (c) => {
      const token = c.req.query("token");
      if (token !== undefined) {
        const verdict = auth.verify(c, token);
        if (!verdict.ok && verdict.retryAfter > 0) {
          c.header("Retry-After", String(verdict.retryAfter));
          return c.html(signIn(true), 429);
        }
        if (!verdict.ok) return c.html(signIn(true), 401);
        // The link's token becomes an HttpOnly cookie, and leaves the address bar.
        auth.startSession(c);
        // The path as it came (still %-encoded): decoded, a `%0d%0a` would be a header break.
        return c.redirect(new URL(c.req.url).pathname, 303);
      }
      if (auth.check(c) === null) return c.html(signIn(false), 401);
      return c.html(shell());
    });
  }

  // Fragments: the session (or the token), and for writes the page's header.
  const ui = new Hono();
  ui.use("*", auth.require());
  // Forms are small: the API's body limit, answered as the API answers it.
  const maxBody = runtime.config.server.max_body_bytes;
  ui.use(
    "*",
    bodyLimit({
      maxSize: maxBody,
      onError: (c) =>
        errorResponse(c, 413, "payload_too_large", `The body is larger than ${maxBody} bytes`),
    }),
  );

  ui.get("/conversations", (c) => {
    const q = (c.req.query("q") ?? "").slice(0, 200);
    return c.html(
      conversationList(runtime.store.listConversations({ query: q || undefined, limit: 200 }), q),
    );
  });

  ui.delete("/conversations/:id", (c) => {
    const id = c.req.param("id");
    runtime.store.deleteConversation(id);
    c.header("HX-Trigger", asciiJson({ "hob:conversation-deleted": { id } }));
    return c.body("", 200);
  });

  ui.get(
    "/badges",
    (c) => c.html(badges(approvals.list("pending").length, notifications.unreadCount())),
  );

  const panels: Record<string, (c: Context) => Promise<Response> | Response> = {
    memory: (c) => c.html(memoryPanel({ today: today(runtime) })),
    schedules: (c) => c.html(schedulesPanel(jobViews(), timezone())),
    tasks: (c) => c.html(tasksPanel(tasks.list({ limit: 500 }))),
    approvals: (c) => c.html(approvalsPanel(approvals.list("pending"), recentDecisions())),
    tools: (c) => c.html(toolsPanel(runtime.toolbox.registry.list())),
    notifications: (c) => c.html(notificationsPanel(notifications.list({ limit: 100 }))),
  };
  ui.get("/panel/:name", async (c) => {
    const panel = panels[c.req.param("name")];
    if (!panel) throw new ApiError(404, "not_found", "No such panel");
    if (c.req.param("name") === "tools") await runtime.toolbox.ready;
    return panel(c);
  });

  // Memory

  ui.get("/memory/search", async (c) => {
    const q = (c.req.query("q") ?? "").trim().slice(0, 500);
    if (!q) return c.html(memoryResults("", []));
    return c.html(memoryResults(q, await runtime.memory.search(q, { limit: 8 })));
  });

  ui.get("/memory/file", async (c) => {
    const path = editablePath(runtime, c.req.query("name") ?? "");
    if (!path) throw new ApiError(404, "not_found", "Not a file the page edits");
    return c.html(memoryEditor(path, await readOrEmpty(join(runtime.home, path))));
  });

  ui.post("/memory/file", async (c) => {
    const form = await readForm(c);
    const path = editablePath(runtime, String(form.path ?? ""));
    const content = String(form.content ?? "");
    if (!path) throw new ApiError(404, "not_found", "Not a file the page edits");
    if (path.startsWith("memory/")) {
      // Through memory: atomic, serialised with other writers, re-indexed at once.
      await runtime.memory.replace(path.slice("memory/".length), content);
    } else {
      await writeAtomic(join(runtime.home, path), content);
    }
    return c.html(memoryEditor(path, content, { ok: true, text: `Saved ${path}.` }));
  });

  // Schedules

  const jobViews = () => jobs.list().map((job) => jobs.view(job));
  const timezone = () =>
    runtime.config.scheduler.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const schedules = (c: Context, message?: Flash, status: 200 | 422 = 200) =>
    c.html(schedulesPanel(jobViews(), timezone(), message), status);

  ui.post("/schedules", async (c) => {
    const parsed = scheduleForm.safeParse(await readForm(c));
    if (!parsed.success) {
      return schedules(c, { ok: false, text: parsed.error.issues[0].message }, 422);
    }
    try {
      const job = scheduler.add({ ...parsed.data, timezone: parsed.data.timezone || undefined });
      return schedules(c, { ok: true, text: `Added “${job.name}”.` });
    } catch (error) {
      if (error instanceof ScheduleError || error instanceof JobError) {
        return schedules(c, { ok: false, text: error.message }, 422);
      }
      throw error;
    }
  });

  ui.post("/schedules/:id/toggle", (c) => {
    const job = jobs.get(Number(c.req.param("id")));
    if (!job) return schedules(c, { ok: false, text: "That job is gone." }, 422);
    const updated = scheduler.update(job.id, { enabled: !job.enabled });
    return schedules(c, {
      ok: true,
      text: `${updated.enabled ? "Enabled" : "Disabled"} “${job.name}”.`,
    });
  });

  ui.post("/schedules/:id/run", async (c) => {
    const job = jobs.get(Number(c.req.param("id")));
    if (!job) return schedules(c, { ok: false, text: "That job is gone." }, 422);
    try {
      const run = await scheduler.runNow(job.id);
      return schedules(c, {
        ok: run.status === "ok",
        text: run.status === "ok" ? `Ran “${job.name}”.` : `“${job.name}” failed: ${run.error}`,
      });
    } catch (error) {
      if (error instanceof JobError) return schedules(c, { ok: false, text: error.message }, 422);
      throw error;
    }
  });

  ui.post("/schedules/:id/delete", (c) => {
    const job = jobs.get(Number(c.req.param("id")));
    if (job) jobs.delete(job.id);
    return schedules(c, { ok: true, text: job ? `Deleted “${job.name}”.` : "That job is gone." });
  });

  // Tasks

  const tasksView = (c: Context, message?: Flash, status: 200 | 422 = 200) =>
    c.html(tasksPanel(tasks.list({ limit: 500 }), message), status);

  ui.post("/tasks", async (c) => {
    const parsed = taskForm.safeParse(await readForm(c));
    if (!parsed.success) {
      return tasksView(c, { ok: false, text: parsed.error.issues[0].message }, 422);
    }
    const { title, prompt, priority } = parsed.data;
    const task = tasks.add({
      title,
      prompt: prompt || title,
      priority: priority ? Number(priority) : 0,
    });
    return tasksView(c, { ok: true, text: `Queued task #${task.id}.` });
  });

  for (const action of ["cancel", "resume"] as const) {
    ui.post(`/tasks/:id/${action}`, (c) => {
      const id = Number(c.req.param("id"));
      try {
        if (action === "cancel") tasks.cancel(id);
        else tasks.resume(id);
        return tasksView(c, {
          ok: true,
          text: `Task #${id} ${action === "cancel" ? "cancelled" : "is pending again"}.`,
        });
      } catch (error) {
        if (error instanceof TaskError) {
          return tasksView(c, { ok: false, text: error.message }, 422);
        }
        throw error;
      }
    });
  }

  // Approvals

  const recentDecisions = () => approvals.list("all", 30).filter((a) => a.status !== "pending");
  ui.post("/approvals/:id", async (c) => {
    const form = await readForm(c);
    const decision = form.decision === "deny"
      ? "deny"
      : form.decision === "approve"
      ? "approve"
      : null;
    let message: Flash;
    if (!decision) message = { ok: false, text: "Choose approve or deny." };
    else {
      try {
        const decided = approvals.decide(c.req.param("id"), decision, form.remember === "1");
        message = {
          ok: true,
          text: `${decided.status === "approved" ? "Approved" : "Denied"} ${decided.tool}.`,
        };
      } catch (error) {
        if (!(error instanceof ApprovalError)) throw error;
        message = { ok: false, text: error.message };
      }
    }
    c.header("HX-Trigger", "hob:badges");
    return c.html(approvalsPanel(approvals.list("pending"), recentDecisions(), message));
  });

  // Notifications

  ui.post("/notifications/read", (c) => {
    notifications.markRead("all");
    c.header("HX-Trigger", "hob:badges");
    return c.html(
      notificationsPanel(notifications.list({ limit: 100 }), { ok: true, text: "All read." }),
    );
  });

  app.route("/ui", ui);
  return app;
}

/** Today's log, relative to the home. */
function today(runtime: Runtime): string {
  return `memory/${runtime.memory.files.dailyPath()}`;
}

/** The home-relative path of a file the page may edit, or null. */
function editablePath(runtime: Runtime, name: string): string | null {
  if (name === "TODAY") return today(runtime);
  if (name === today(runtime)) return name;
  return EDITABLE_FILES.includes(name) && name !== "TODAY" ? name : null;
}

/** JSON with every non-ASCII character escaped: header values must be bytes, and ids may be anything. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** An embedded file, revalidated by its ETag, gzipped when the client takes it. */
function sendAsset(c: Context, asset: Asset): Response {
  c.header("Content-Type", asset.type);
  c.header("ETag", asset.etag);
  c.header("Cache-Control", "no-cache");
  c.header("Vary", "Accept-Encoding");
  if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304);
  if (asset.gzip && /\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
    c.header("Content-Encoding", "gzip");
    return c.body(asset.gzip as Uint8Array<ArrayBuffer>);
  }
  return c.body(asset.body as Uint8Array<ArrayBuffer>);
}
