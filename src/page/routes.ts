/**
 * The page's routes: the shell (after the `?token=` link has set the session
 * cookie), the embedded static files, and the HTML fragments htmx swaps in.
 * Fragment writes are translators over the same actions as the API (src/app),
 * behind the same authentication (and its cross-site guard).
 */

import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import { join } from "node:path";
import { ActionError, received } from "../app/errors.ts";
import { storableText } from "../core/storable.ts";
import { displayZone } from "../app/times.ts";
import type { NewScheduleInput } from "../app/schedules.ts";
import { MAX_PRIORITY, newTaskInput } from "../app/tasks.ts";
import type { DecideInput } from "../app/approvals.ts";
import type { ApproveToolsInput } from "../app/mcp.ts";
import type { Hob } from "../app/hob.ts";
import type { Auth } from "../http/auth.ts";
import { ApiError, errorResponse } from "../http/errors.ts";
import { readForm } from "../http/validate.ts";
import { readOrEmpty } from "../memory/memory.ts";
import type { WrittenBy } from "../store/versions.ts";
import { type Asset, getAsset, getClientModule } from "./assets.ts";
import { shell, signIn } from "./layout.ts";
import {
  approvalsPanel,
  badges,
  channelsPanel,
  conversationList,
  notificationsPanel,
  SCHEDULE_FORM_FIELDS,
  type ScheduleDraft,
  schedulesPanel,
  tasksPanel,
} from "./panels.ts";
import {
  diffView,
  EDITABLE_FILES,
  memoryEditor,
  memoryPanel,
  memoryResults,
  memoryViewer,
  sourceAdded,
  versionList,
} from "./memory_panel.ts";
import { toolsPanel } from "./tools_panel.ts";
import { skillFragments, skillsView } from "./skill_routes.ts";
import type { Flash, Html } from "./view_parts.ts";
import { usagePanel } from "./usage_panel.ts";
import { backupPanel } from "./backup_panel.ts";

/** Every write from the page is the owner's. */
const BY_PAGE: WrittenBy = { author: "owner", via: "page" };

/** The paths that show the shell (the views app.js routes between). */
const VIEWS = [
  "/",
  "/c/:id",
  "/memory",
  "/schedules",
  "/tasks",
  "/approvals",
  "/tools",
  "/skills",
  "/notifications",
  "/channels",
  "/usage",
  "/backups",
];

/** A form field as `readForm` gives it. */
type FormValue = string | File | (string | File)[] | undefined;

/**
 * How the page words a refusal of its forms, by field and zod issue code;
 * any other refusal shows the action's own message.
 */
type FormWords = Record<string, Partial<Record<string, string>>>;
const TASK_FORM_WORDS: FormWords = {
  title: { too_small: "give the task a title" },
  priority: {
    invalid_type: "priority is a whole number",
    too_big: `priority is from -${MAX_PRIORITY} to ${MAX_PRIORITY}`,
    too_small: `priority is from -${MAX_PRIORITY} to ${MAX_PRIORITY}`,
  },
};
const SCHEDULE_FORM_WORDS: FormWords = {
  name: { too_small: "give the job a name" },
  schedule: { too_small: "give a schedule" },
  prompt: { too_small: "say what the job should do" },
};
const APPROVAL_FORM_WORDS: FormWords = {
  decision: { invalid_value: "Choose approve or deny." },
};

/**
 * Builds the page's routes.
 *
 * @example
 * ```ts
 * api.route("/", pageRoutes(hob, auth));
 * ```
 */
export function pageRoutes(hob: Hob, auth: Auth): Hono {
  const routes = new Hono();

  routes.get("/static/:name", async (c) => {
    const asset = await getAsset(c.req.param("name"));
    if (!asset) throw new ApiError(404, "not_found", "No such file among the page's assets");
    return sendAsset(c, asset);
  });

  // The client module for user scripts: no token, as a script imports it before it has one.
  routes.get("/client.ts", async (c) => sendAsset(c, await getClientModule()));

  for (const path of VIEWS) routes.get(path, (c) => view(c, auth));

  routes.route("/ui", fragmentRoutes(hob, auth));
  return routes;
}

/** A view: the sign-in page, or (after the `?token=` link) the shell. */
function view(c: Context, auth: Auth): Response | Promise<Response> {
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
}

/** Fragments: the session (or the token), and for writes the page's header. */
function fragmentRoutes(hob: Hob, auth: Auth): Hono {
  const ui = new Hono();
  const { notifications, approvals } = hob.app;
  ui.use("*", auth.require());
  // Forms are small: the API's body limit, answered as the API answers it.
  const maxBody = hob.config.server.max_body_bytes;
  ui.use(
    "*",
    bodyLimit({
      maxSize: maxBody,
      onError: (c) =>
        errorResponse(c, 413, "payload_too_large", `The body is larger than ${maxBody} bytes`),
    }),
  );

  conversationFragments(ui, hob);

  ui.get("/badges", async (c) => {
    // Skills waiting for the owner: new ones, and accepted ones whose files changed.
    const waiting = (await hob.app.skills.list()).skills
      .filter((skill) => skill.state === "pending" || skill.state === "changed").length;
    return c.html(badges(approvals.list().length, notifications.unreadCount(), waiting));
  });

  const panels: Record<string, (c: Context) => Promise<Response> | Response> = {
    memory: (c) => c.html(memoryPanel({ today: today(hob) })),
    schedules: (c) => schedulesView(c, hob),
    tasks: (c) => tasksView(c, hob),
    approvals: (c) => c.html(approvalsPanel(approvals.list(), approvals.recent())),
    tools: (c) => toolsView(c, hob),
    skills: (c) => skillsView(c, hob),
    notifications: (c) => c.html(notificationsPanel(notifications.list({ limit: 100 }))),
    channels: (c) => c.html(channelsPanel(hob.app.channels.states(), hob.app.channels.strangers())),
    usage: (c) => usageView(c, hob),
    backups: (c) => c.html(backupPanel(hob.app.backups.status(), hob.home)),
  };
  ui.get("/panel/:name", (c) => {
    const panel = panels[c.req.param("name")];
    if (!panel) throw new ApiError(404, "not_found", "No such panel");
    return panel(c);
  });

  memoryFragments(ui, hob);
  scheduleFragments(ui, hob);
  taskFragments(ui, hob);
  approvalFragments(ui, hob);
  mcpFragments(ui, hob);
  skillFragments(ui, hob);
  backupFragments(ui, hob);

  ui.post("/notifications/read", (c) => {
    notifications.markRead({ id: "all" });
    c.header("HX-Trigger", "hob:badges");
    return c.html(
      notificationsPanel(notifications.list({ limit: 100 }), { ok: true, text: "All read." }),
    );
  });
  return ui;
}

/** The Usage view: the last 30 days, grouped as asked (`?by=`; a bad value is the action's 400). */
async function usageView(c: Context, hob: Hob): Promise<Response> {
  const by = c.req.query("by");
  const report = await hob.app.usage.report({
    since: "30d",
    ...(by ? { by: by as "model" } : {}),
  });
  return c.html(usagePanel(report, new Date()));
}

/** The conversation list (searched by title) and deleting one: translators to the conversation actions. */
function conversationFragments(ui: Hono, hob: Hob): void {
  const { conversations } = hob.app;
  ui.get("/conversations", (c) => {
    const q = (c.req.query("q") ?? "").slice(0, 200);
    // The user's chats: those of the page and the API, and those held on a channel.
    const query = { q: q || undefined, limit: 200 };
    const chats = [
      ...conversations.list(query),
      ...conversations.list({ ...query, kind: "channel" }),
    ].sort(newestFirst).slice(0, 200);
    return c.html(conversationList(chats, q));
  });

  ui.delete("/conversations/:id", (c) => {
    const id = c.req.param("id");
    try {
      conversations.remove({ id });
    } catch (error) {
      // Gone already (another tab deleted it): the list drops it all the same.
      if (!(error instanceof ActionError) || error.code !== "not_found") throw error;
    }
    c.header("HX-Trigger", asciiJson({ "hob:conversation-deleted": { id } }));
    return c.body("", 200);
  });
}

function memoryFragments(ui: Hono, hob: Hob): void {
  ui.get("/memory/search", async (c) => {
    // What is searched for is not kept: a NUL in it is marked, not refused.
    const q = storableText((c.req.query("q") ?? "").trim().slice(0, 500));
    if (!q) return c.html(memoryResults("", []));
    return c.html(memoryResults(q, (await hob.app.memory.search({ q, limit: 8 })).hits));
  });

  ui.get("/memory/file", async (c) => {
    const name = c.req.query("name") ?? "";
    const path = editablePath(hob, name);
    if (path) return c.html(memoryEditor(path, await readOrEmpty(join(hob.home, path))));
    const viewed = viewablePath(name);
    if (!viewed) throw new ApiError(404, "not_found", "Not a file the page shows");
    return c.html(await memoryView(hob, viewed));
  });

  ui.post("/memory/file", async (c) => {
    const form = await readForm(c);
    const path = editablePath(hob, String(form.path ?? ""));
    const content = String(form.content ?? "");
    if (!path) throw new ApiError(404, "not_found", "Not a file the page edits");
    try {
      if (path.startsWith("memory/")) {
        // Through memory: atomic, serialised with other writers, re-indexed at once.
        await hob.app.memory.replace({ path: path.slice("memory/".length), content }, BY_PAGE);
      } else {
        const name = path.slice("identity/".length) as "SOUL.md";
        await hob.app.memory.writeIdentity({ name, content }, BY_PAGE);
      }
    } catch (error) {
      const text = formRefusal(error, {});
      return c.html(memoryEditor(path, content, { ok: false, text }), 422);
    }
    return c.html(memoryEditor(path, content, { ok: true, text: `Saved ${path}.` }));
  });
  versionFragments(ui, hob);

  ui.post("/memory/trust", async (c) => {
    const form = await readForm(c);
    const name = String(form.path ?? "");
    const path = viewablePath(name);
    if (!path) throw new ApiError(404, "not_found", "Not a memory file");
    let message: Flash;
    try {
      const read = typeof form.read === "string" ? form.read : undefined;
      const trusted = await hob.app.memory.trust(
        { path: path.slice("memory/".length), ...(read ? { read } : {}) },
        BY_PAGE,
      );
      message = {
        ok: true,
        text: trusted.changed
          ? `You vouched for ${path}: its text is yours from now on.`
          : `${path} holds no text from outside.`,
      };
    } catch (error) {
      message = { ok: false, text: formRefusal(error, {}) };
    }
    return c.html(
      editablePath(hob, name)
        ? memoryEditor(path, await readOrEmpty(join(hob.home, path)), message)
        : await memoryView(hob, path, message),
    );
  });

  ui.post("/memory/sources", async (c) => {
    const form = await readForm(c);
    try {
      const added = await hob.app.memory.addSource(
        { source: String(form.source ?? "") },
        { ...BY_PAGE },
        c.req.raw.signal,
      );
      return c.html(sourceAdded(added));
    } catch (error) {
      return c.html(sourceAdded(null, formRefusal(error, {})), 422);
    }
  });
}

/** The versions of one file or all (the view's History), their changes, and putting a file back. */
function versionFragments(ui: Hono, hob: Hob): void {
  const { memory } = hob.app;
  const view = (path: string | undefined, tainted: string | undefined) => ({
    path: path || null,
    tainted: tainted === "1",
  });
  ui.get("/memory/history", async (c) => {
    const shown = view(c.req.query("path"), c.req.query("tainted"));
    const versions = await memory.versions({
      path: shown.path ?? undefined,
      tainted: shown.tainted,
    });
    return c.html(versionList(versions, shown));
  });

  ui.get("/memory/diff", async (c) => {
    return c.html(diffView(await memory.diff({ from: c.req.query("from") ?? "" })));
  });

  ui.post("/memory/revert", async (c) => {
    const form = await readForm(c);
    const shown = view(String(form.path ?? ""), String(form.tainted ?? ""));
    const undo = form.undo === "1";
    const id = { id: String(form.id ?? "") };
    const by = { ...BY_PAGE, via: undo ? "page undo" : "page revert" };
    let message: Flash;
    try {
      const { reverted, version } = undo ? await memory.undo(id, by) : await memory.revert(id, by);
      const what = undo
        ? `without the change of version ${reverted.id}`
        : `back as it was at version ${reverted.id}`;
      message = {
        ok: true,
        text: version
          ? `${reverted.path} is ${what} (now version ${version.id}).`
          : `${reverted.path} did not change.`,
      };
    } catch (error) {
      message = { ok: false, text: formRefusal(error, {}) };
    }
    const versions = await memory.versions({
      path: shown.path ?? undefined,
      tainted: shown.tainted,
    });
    return c.html(versionList(versions, { ...shown, message }));
  });
}

/** What the schedules panel shows beside the jobs after an action. */
interface SchedulesShown {
  message?: Flash;
  /** 422 when the action was refused. @default {200} */
  status?: 200 | 422;
  /** A refused new job: what was typed, shown again. */
  draft?: ScheduleDraft;
}

/** The schedules panel, with a message after an action. */
function schedulesView(
  c: Context,
  hob: Hob,
  shown: SchedulesShown = {},
): Response | Promise<Response> {
  const { message, status = 200, draft } = shown;
  const timezone = hob.config.scheduler.timezone ?? displayZone();
  return c.html(
    schedulesPanel(hob.app.schedules.list(), { timezone, message, draft }),
    status,
  );
}

/** The schedule forms: translators from form fields to the app's schedule actions. */
function scheduleFragments(ui: Hono, hob: Hob): void {
  const { schedules } = hob.app;
  const refused = (c: Context, error: unknown) =>
    schedulesView(c, hob, {
      message: { ok: false, text: formRefusal(error, SCHEDULE_FORM_WORDS) },
      status: 422,
    });
  /** The job a button names, or undefined when it is gone. */
  const jobOf = (c: Context) => {
    try {
      return schedules.get({ key: Number(c.req.param("id")) });
    } catch (error) {
      if (error instanceof ActionError) return undefined;
      throw error;
    }
  };
  const gone = (c: Context) =>
    schedulesView(c, hob, { message: { ok: false, text: "That job is gone." }, status: 422 });

  ui.post("/schedules", async (c) => {
    const form = await readForm(c);
    try {
      const job = schedules.add({
        name: form.name,
        schedule: trimmed(form.schedule),
        prompt: trimmed(form.prompt),
        timezone: trimmed(form.timezone) || undefined,
        missed_policy: form.missed_policy || undefined,
      } as NewScheduleInput);
      return schedulesView(c, hob, { message: { ok: true, text: `Added “${job.name}”.` } });
    } catch (error) {
      // The form comes back as it was typed, the refused field marked.
      const text = formRefusal(error, SCHEDULE_FORM_WORDS);
      const field = (error as ActionError).field;
      const draft: ScheduleDraft = {
        values: formStrings(form, SCHEDULE_FORM_FIELDS),
        field,
        problem: text,
      };
      const marked = SCHEDULE_FORM_FIELDS.some((name) => name === field);
      const message = {
        ok: false,
        text: marked ? "The job was not added: see the marked field." : text,
      };
      return schedulesView(c, hob, { message, status: 422, draft });
    }
  });

  ui.post("/schedules/:id/toggle", (c) => {
    const job = jobOf(c);
    if (!job) return gone(c);
    try {
      const updated = schedules.update({ key: job.id, enabled: !job.enabled });
      return schedulesView(c, hob, {
        message: { ok: true, text: `${updated.enabled ? "Enabled" : "Disabled"} “${job.name}”.` },
      });
    } catch (error) {
      return refused(c, error);
    }
  });

  ui.post("/schedules/:id/run", async (c) => {
    const job = jobOf(c);
    if (!job) return gone(c);
    try {
      const run = await schedules.run({ key: job.id });
      return schedulesView(c, hob, {
        message: {
          ok: run.status === "ok",
          text: run.status === "ok" ? `Ran “${job.name}”.` : `“${job.name}” failed: ${run.error}`,
        },
      });
    } catch (error) {
      return refused(c, error);
    }
  });

  ui.post("/schedules/:id/delete", (c) => {
    const job = jobOf(c);
    if (job) schedules.remove({ key: job.id });
    return schedulesView(c, hob, {
      message: { ok: true, text: job ? `Deleted “${job.name}”.` : "That job is gone." },
    });
  });
}

/** The tasks panel, with a message after an action (422 when it was refused). */
function tasksView(
  c: Context,
  hob: Hob,
  message?: Flash,
  status: 200 | 422 = 200,
): Response | Promise<Response> {
  return c.html(tasksPanel(hob.app.tasks.list({ limit: 500 }), message), status);
}

/** The task forms: translators from form fields to the app's task actions. */
function taskFragments(ui: Hono, hob: Hob): void {
  const { tasks } = hob.app;

  ui.post("/tasks", async (c) => {
    const form = await readForm(c);
    try {
      const task = tasks.add(received(newTaskInput, {
        title: form.title,
        prompt: trimmed(form.prompt) || undefined,
        priority: wholeNumber(form.priority),
      }));
      return tasksView(c, hob, { ok: true, text: `Queued task #${task.id}.` });
    } catch (error) {
      return tasksView(c, hob, { ok: false, text: formRefusal(error, TASK_FORM_WORDS) }, 422);
    }
  });

  for (const action of ["cancel", "resume"] as const) {
    ui.post(`/tasks/:id/${action}`, (c) => {
      const text = c.req.param("id");
      const id = Number(text);
      try {
        if (action === "cancel") tasks.cancel({ id });
        else tasks.resume({ id });
        return tasksView(c, hob, {
          ok: true,
          text: `Task #${id} ${action === "cancel" ? "cancelled" : "is pending again"}.`,
        });
      } catch (error) {
        if (!(error instanceof ActionError)) throw error;
        // An id no task can have (not a number) is as missing as one no task has.
        const missing = error.code === "invalid" && error.field === "id";
        return tasksView(c, hob, {
          ok: false,
          text: missing ? `There is no task ${text}` : error.message,
        }, 422);
      }
    });
  }
}

/** "Back up now": the app's backup action into `backup.dir`, its outcome shown on the panel. */
function backupFragments(ui: Hono, hob: Hob): void {
  const { backups } = hob.app;
  ui.post("/backup", async (c) => {
    let message: Flash;
    try {
      const made = await backups.make();
      message = { ok: true, text: `Backed up to ${made.file}.` };
    } catch (error) {
      // The action recorded the failure too: the panel shows it under "Last attempt failed".
      message = { ok: false, text: `No backup: ${(error as Error).message}` };
    }
    return c.html(backupPanel(backups.status(), hob.home, message), message.ok ? 200 : 422);
  });
}

/** The approval form: a translator from its fields to the app's approval decision. */
function approvalFragments(ui: Hono, hob: Hob): void {
  const { approvals } = hob.app;
  ui.post("/approvals/:id", async (c) => {
    const form = await readForm(c);
    let message: Flash;
    try {
      const decided = approvals.decide({
        id: c.req.param("id"),
        decision: form.decision,
        remember: form.remember === "1",
      } as DecideInput);
      message = {
        ok: true,
        text: `${decided.status === "approved" ? "Approved" : "Denied"} ${decided.tool}.`,
      };
    } catch (error) {
      message = { ok: false, text: formRefusal(error, APPROVAL_FORM_WORDS) };
    }
    c.header("HX-Trigger", "hob:badges");
    return c.html(approvalsPanel(approvals.list(), approvals.recent(), message));
  });
}

/** The Tools view: every tool, and the MCP servers with the tools that wait for approval. */
async function toolsView(c: Context, hob: Hob, message?: Flash): Promise<Response> {
  const { tools, mcp } = hob.app;
  const [listing, servers, mcpTools] = await Promise.all([
    tools.list(),
    mcp.servers(),
    mcp.tools(),
  ]);
  return c.html(
    toolsPanel(listing.tools, { home: hob.home, mcp: { servers, tools: mcpTools }, message }),
  );
}

/**
 * Approving MCP tools: a translator from the button's fields (the server,
 * the tools and the hashes shown, as JSON) to the app's approve action.
 */
function mcpFragments(ui: Hono, hob: Hob): void {
  ui.post("/mcp/approve", async (c) => {
    const form = await readForm(c);
    let message: Flash;
    try {
      const { server, tools: approved } = await hob.app.mcp.approve({
        server: String(form.server ?? ""),
        tools: jsonField(form.tools),
        hashes: jsonField(form.hashes),
      } as ApproveToolsInput);
      message = {
        ok: true,
        text: `Approved ${approved.length} tool(s) of ${server}: models are offered ${
          approved.length === 1 ? "it" : "them"
        } now.`,
      };
    } catch (error) {
      message = { ok: false, text: formRefusal(error, {}) };
    }
    return toolsView(c, hob, message);
  });
}

/** A form field holding JSON, parsed; anything else is left for the action to refuse. */
function jsonField(value: FormValue): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The text of a form's `fields`, as typed; files and lists are left out. */
function formStrings<F extends string>(
  form: Record<string, FormValue>,
  fields: readonly F[],
): Partial<Record<F, string>> {
  const values: Partial<Record<F, string>> = {};
  for (const field of fields) {
    const value = form[field];
    if (typeof value === "string") values[field] = value;
  }
  return values;
}

/** A form's text trimmed; a file or a list is left for the action to refuse. */
function trimmed(value: FormValue): FormValue {
  return typeof value === "string" ? value.trim() : value;
}

/** A form's whole number as a number; empty is absent; anything else is left for the action to refuse. */
function wholeNumber(value: FormValue): FormValue | number {
  const text = trimmed(value);
  if (text === "" || text === undefined) return undefined;
  return typeof text === "string" && /^-?\d+$/.test(text) ? Number(text) : text;
}

/** The page's words for an action's refusal; anything that is not one is a bug and is thrown. */
function formRefusal(error: unknown, words: FormWords): string {
  if (!(error instanceof ActionError)) throw error;
  const said = error.field && error.issue ? words[error.field]?.[error.issue.code] : undefined;
  return said ?? error.issue?.message ?? error.message;
}

/** Today's log, relative to the home. */
function today(hob: Hob): string {
  return `memory/${hob.app.memory.todayPath()}`;
}

/** The home-relative path of a file the page may edit, or null. */
function editablePath(hob: Hob, name: string): string | null {
  if (name === "TODAY") return today(hob);
  if (name === today(hob)) return name;
  return EDITABLE_FILES.includes(name) && name !== "TODAY" ? name : null;
}

/**
 * A memory file the page shows without editing (a source opened from a
 * search hit), as `memory/…`, or null. Only a name: the memory actions read
 * it through memory's containment check.
 */
function viewablePath(name: string): string | null {
  return /^memory\/[^\0]+\.md$/.test(name) ? name : null;
}

/** A memory file read-only, or why it cannot be shown. */
async function memoryView(hob: Hob, path: string, message?: Flash): Promise<Html> {
  try {
    const read = await hob.app.memory.read({ path: path.slice("memory/".length) });
    return memoryViewer(path, read, message);
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    return memoryViewer(path, null, { ok: false, text: error.message });
  }
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

/** Newest first, by ISO timestamps (compared as text: `localeCompare` would load ICU's data). */
function newestFirst(a: { updated_at: string }, b: { updated_at: string }): number {
  return a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0;
}
