/**
 * The page's fragments: the conversation list, the badges, and the panels
 * for memory, schedules, tasks, approvals, tools and notifications. Each is
 * plain HTML that htmx swaps in; every value is escaped by hono/html.
 */

import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ConversationSummary } from "../store/conversations.ts";
import type { JobView } from "../store/jobs.ts";
import type { Notification } from "../store/notifications.ts";
import type { Stranger } from "../store/channels.ts";
import type { ChannelState } from "../app/channels.ts";
import type { Task, TaskStatus } from "../store/tasks.ts";
import type { Approval } from "../store/approvals.ts";
import type { MemoryHit } from "../memory/search_index.ts";
import type { VersionDiff } from "../memory/history.ts";
import { type FileVersion, revertWords } from "../store/versions.ts";
import type { ToolInfo } from "../tools/registry.ts";
import { type McpServerStatus, type McpToolInfo, revealed } from "../app/mcp.ts";
import { showTime } from "../app/times.ts";
import { textForPeople } from "../http/display.ts";
import type { DisplayPart } from "../core/untrusted.ts";
import { textHash } from "../memory/files.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A message shown at the top of a panel after an action. */
export interface Flash {
  ok: boolean;
  text: string;
}

function flash(message?: Flash): Html | string {
  if (!message) return "";
  return html`<p role="status" class="${message.ok ? "saved" : "status-bad"}">${message.text}</p>`;
}

/** A time as every view shows it: in the user's zone, labelled, to the minute (src/app/times.ts). */
function at(iso: string | null | undefined): string {
  return showTime(iso);
}

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function conversationList(conversations: ConversationSummary[], query: string): Html {
  if (conversations.length === 0) {
    return html`<p class="empty">${
      query ? `No conversation titled like “${query}”.` : "No conversations yet."
    }</p>`;
  }
  return html`<ul>${
    conversations.map((c) =>
      html`<li data-id="${c.id}">
  <a href="/c/${encodeURIComponent(c.id)}" data-conversation="${c.id}" title="${
        c.title || "Untitled"
      }">${c.title || "Untitled"}</a>
  <button type="button" aria-label="Delete ${c.title || "this conversation"}"
    hx-delete="/ui/conversations/${encodeURIComponent(c.id)}" hx-confirm="Delete “${
        c.title || "Untitled"
      }” and its messages?"
    hx-target="closest li" hx-swap="outerHTML">×</button>
</li>`
    )
  }</ul>`;
}

export function badges(approvals: number, notifications: number): Html {
  return html`<span id="approvals-badge" class="badge" hx-swap-oob="true">${approvals || ""}</span>
<span id="notifications-badge" class="badge" hx-swap-oob="true">${notifications || ""}</span>`;
}

// Memory

/** The files the memory panel edits, by the name shown. */
export const EDITABLE_FILES = [
  "memory/MEMORY.md",
  "TODAY",
  "identity/SOUL.md",
  "identity/USER.md",
  "identity/HEARTBEAT.md",
];

export function memoryPanel(options: { today: string; file?: Html; message?: Flash }): Html {
  return html`
    <h1>Memory</h1>
    ${flash(options.message)}
    <form class="inline" role="search" hx-get="/ui/memory/search" hx-target="#memory-results"
      hx-trigger="submit">
      <label class="visually-hidden" for="memory-query">Search memory</label>
      <input id="memory-query" type="search" name="q" placeholder="Search memory, by words or meaning"
        required>
      <button type="submit">Search</button>
    </form>
    <div id="memory-results" aria-live="polite"></div>
    <h2>Add a document or page</h2>
    <form class="inline" hx-post="/ui/memory/sources" hx-target="#memory-source"
      hx-disabled-elt="find button">
      <label class="visually-hidden" for="memory-source-input">A web address or a file's path</label>
      <input id="memory-source-input" name="source" required
        placeholder="https://… or /path/to/file.pdf (Markdown, text, HTML, PDF, DOCX, CSV)">
      <button type="submit">Add</button>
    </form>
    <div id="memory-source" aria-live="polite"></div>
    <h2>Edit</h2>
    <div class="toolbar" role="group" aria-label="Files">
      ${EDITABLE_FILES.map((name) =>
        html`
          <button type="button" hx-get="/ui/memory/file?name=${encodeURIComponent(name)}"
            hx-target="#memory-file">${name === "TODAY"
              ? `Today's log (${options.today})`
              : name.split("/")[1]}</button>
        `
      )}
    </div>
    <div id="memory-file">${options.file ?? ""}</div>
    <h2>History</h2>
    <p class="muted">Every write to memory, identity, skills and tools is kept: see what changed,
      and put any file back as it was.</p>
    <div class="toolbar" role="group" aria-label="History">
      <button type="button" hx-get="/ui/memory/history" hx-target="#memory-history">All changes</button>
      <button type="button" hx-get="/ui/memory/history?tainted=1" hx-target="#memory-history">
        Written after reading untrusted content</button>
    </div>
    <div id="memory-history" aria-live="polite"></div>
  `;
}

/** What the history list shows above its versions. */
export interface HistoryView {
  /** One file's history, or null for every file. */
  path: string | null;
  tainted: boolean;
  message?: Flash;
}

/**
 * Versions, newest first, each with who wrote it and how, a flag when the
 * writing turn had read untrusted content, its changes on demand, and a
 * button that puts the file back as it was then.
 */
export function versionList(versions: FileVersion[], view: HistoryView): Html {
  const title = view.tainted
    ? "Writes made after reading untrusted content"
    : view.path
    ? `History of ${view.path}`
    : "All changes";
  return html`<section class="history" aria-label="${title}">
  ${flash(view.message)}
  <h3>${title}</h3>
  ${
    versions.length === 0
      ? html`<p class="empty">${
        view.tainted ? "No write was made after reading untrusted content." : "No versions yet."
      }</p>`
      : html`<ol class="cards versions">${
        versions.map((version) => versionItem(version, view))
      }</ol>`
  }
</section>`;
}

function versionItem(version: FileVersion, view: HistoryView): Html {
  const change = version.hash === null
    ? "deleted"
    : revertWords(version) ?? `${version.size} bytes`;
  return html`<li data-version="${version.id}" class="${version.taint ? "tainted" : ""}">
  <div class="title">#${version.id} ${version.path}
    <span class="muted">${
    at(version.at)
  } · ${version.author} (${version.via}) · ${change}</span></div>
  ${
    version.taint
      ? html`
        <p
          class="taint">⚠ Written by a turn that had read untrusted content (${version
            .taint}): check it is what you want.</p>
      `
      : ""
  }
  <div class="actions">
    <button type="button" hx-get="/ui/memory/diff?from=${version.id}"
      hx-target="#diff-${version.id}">Changes</button>
    <button type="button" hx-post="/ui/memory/revert" hx-vals='${revertValues(version, view, true)}'
      hx-target="closest section" hx-swap="outerHTML"
      hx-confirm="Take back what version ${version.id} changed in ${version.path}, keeping later changes?">Undo this change</button>
    <button type="button" hx-post="/ui/memory/revert" hx-vals='${
    revertValues(version, view, false)
  }'
      hx-target="closest section" hx-swap="outerHTML"
      hx-confirm="Put ${version.path} back as it was at version ${version.id}? The current content stays in the history.">Restore this version</button>
  </div>
  <div id="diff-${version.id}"></div>
</li>`;
}

/** What a revert or undo button sends: the version, and the list to show after it. */
function revertValues(version: FileVersion, view: HistoryView, undo: boolean): string {
  return JSON.stringify({
    id: String(version.id),
    path: view.path ?? "",
    tainted: view.tainted ? "1" : "",
    undo: undo ? "1" : "",
  });
}

/** A unified diff, each line marked as added, removed or a hunk's header. */
export function diffView(found: VersionDiff): Html {
  const lines = found.diff.replace(/\n$/, "").split("\n").slice(2);
  if (lines.length === 0) {
    return html`<p class="muted">No change.</p>`;
  }
  return html`<pre class="diff" aria-label="Changes to ${found.path}">${
    lines.map((line) =>
      html`<span class="${
        line.startsWith("+")
          ? "add"
          : line.startsWith("-")
          ? "del"
          : line.startsWith("@@")
          ? "hunk"
          : ""
      }">${line}</span>\n`
    )
  }</pre>`;
}

export function memoryResults(query: string, hits: MemoryHit[]): Html {
  if (hits.length === 0) return html`<p class="muted">Nothing in memory matches “${query}”.</p>`;
  return html`<ul class="cards">${
    hits.map((hit) =>
      html`
        <li>
          <div
            class="title"><button type="button" class="link" hx-get="/ui/memory/file?name=${encodeURIComponent(
              `memory/${hit.path}`,
            )}" hx-target="#memory-file">memory/${hit.path}</button> <span class="muted">lines ${hit
              .start_line}–${hit.end_line}${hit.heading ? ` · ${hit.heading}` : ""}</span></div>
          <div class="passage">${labelledHtml(hit.snippet || cut(hit.text, 400))}</div>
        </li>
      `
    )
  }</ul>`;
}

export function memoryEditor(path: string, content: string, message?: Flash): Html {
  return html`<form class="stacked" hx-post="/ui/memory/file" hx-target="#memory-file">
  ${flash(message)}
  ${path.startsWith("memory/") && textForPeople(content) !== null ? vouchNotice(path, content) : ""}
  <input type="hidden" name="path" value="${path}">
  <label>${path}
    <textarea class="editor" name="content" spellcheck="false">${content}</textarea>
  </label>
  <div class="actions"><button type="submit" class="primary">Save</button>
    <button type="button" hx-get="/ui/memory/history?path=${encodeURIComponent(path)}"
      hx-target="#memory-history">History</button></div>
</form>`;
}

/**
 * A memory file shown read-only (a source opened from a search hit), its
 * parts from outside marked, with the way to vouch for them; `read` null when
 * it could not be read (the message says why).
 */
export function memoryViewer(
  path: string,
  read: { text: string; to: number; total_lines: number } | null,
  message?: Flash,
): Html {
  if (!read) return html`<div class="stacked">${flash(message)}</div>`;
  const cut = read.to < read.total_lines
    ? html`<p class="muted">The first ${read.to} of ${read.total_lines} lines.</p>`
    : "";
  const parts = textForPeople(read.text);
  return html`<div class="stacked">
  ${flash(message)}
  ${parts !== null ? vouchNotice(path, read.to < read.total_lines ? null : read.text) : ""}
  <p class="title">${path}</p>
  ${cut}
  <pre class="viewer">${partsHtml(parts ?? [{ text: read.text, source: null }])}</pre>
</div>`;
}

/** Text for a person: outside text after a marker naming its source, never the label's markup. */
function labelledHtml(text: string): Html[] | string {
  const parts = textForPeople(text);
  return parts === null ? text : partsHtml(parts);
}

function partsHtml(parts: DisplayPart[]): Html[] {
  return parts.map((part) =>
    part.source === null
      ? html`${part.text}`
      : html`<span class="source">from ${part.source}</span><span class="untrusted">${part.text}</span>`
  );
}

/**
 * Above a memory file that holds text from outside: what that means, and the
 * owner's way to vouch for it once read.
 */
function vouchNotice(path: string, shown: string | null): Html {
  const what = html`<p>Parts of this file came from outside, marked with where they came from: hob
    shows them to the model only when it asks, and a chat that reads them asks you before changing
    anything. Once you have read them and trust them, make them your own words.</p>`;
  // Vouching is bound to the text shown: a file changed meanwhile is refused, a cut one not offered.
  if (shown === null) {
    return html`<div class="vouch" role="note">${what}<p class="muted">It is too long to read
      whole here: read it in full (<code>hob memory get ${
      path.slice("memory/".length)
    } --lines 5000</code>) and vouch with <code>hob memory trust</code>.</p></div>`;
  }
  return html`<div class="vouch" role="note">${what}
    <button type="button" hx-post="/ui/memory/trust" hx-vals='${
    JSON.stringify({ path, read: textHash(shown) })
  }' hx-target="#memory-file">I trust this</button>
  </div>`;
}

// Schedules

/** The add-a-job form's fields, named as the schedule action names them. */
export const SCHEDULE_FORM_FIELDS = [
  "name",
  "schedule",
  "timezone",
  "prompt",
  "missed_policy",
] as const;
type ScheduleFormField = typeof SCHEDULE_FORM_FIELDS[number];

/** A new job hob refused: what was typed, shown again, and the field at fault. */
export interface ScheduleDraft {
  values: Partial<Record<ScheduleFormField, string>>;
  /** The refused input, as the action names it (it may be none of the form's). */
  field?: string;
  /** Why, shown beside that field. */
  problem?: string;
}

/** What the schedules panel shows beside the jobs. */
export interface SchedulesPanelOptions {
  /** The zone a new job gets unless another is typed. */
  timezone: string;
  message?: Flash;
  draft?: ScheduleDraft;
}

export function schedulesPanel(jobs: JobView[], options: SchedulesPanelOptions): Html {
  return html`<h1>Schedules</h1>
${flash(options.message)}
${
    jobs.length === 0
      ? html`<p class="muted">No scheduled jobs yet.</p>`
      : html`<ul class="cards">${jobs.map(jobCard)}</ul>`
  }
<h2>Add a job</h2>
${newJobForm(options.timezone, options.draft)}`;
}

/** The add-a-job form; after a refusal, filled in as it was sent, the bad field marked and focused. */
function newJobForm(timezone: string, draft?: ScheduleDraft): Html {
  const value = (field: ScheduleFormField, fallback = "") => draft?.values[field] ?? fallback;
  const policy = value("missed_policy", "run_once");
  return html`<form class="stacked" hx-post="/ui/schedules" hx-target="#panel">
  <label>Name <input type="text" name="name" required maxlength="100" placeholder="morning-briefing" value="${
    value("name")
  }"${fieldState(draft, "name")}>${fieldProblem(draft, "name")}</label>
  <label>Schedule <input type="text" name="schedule" required placeholder="0 9 * * 1-5 · every 30m · once:2026-12-24T18:00" value="${
    value("schedule")
  }"${fieldState(draft, "schedule")}>${fieldProblem(draft, "schedule")}</label>
  <label>Time zone <input type="text" name="timezone" value="${value("timezone", timezone)}"${
    fieldState(draft, "timezone")
  }>${fieldProblem(draft, "timezone")}</label>
  <label>Prompt <textarea name="prompt" required rows="3" placeholder="What hob should do when it runs"${
    fieldState(draft, "prompt")
  }>${value("prompt")}</textarea>${fieldProblem(draft, "prompt")}</label>
  <label>If hob was off when it fell due
    <select name="missed_policy"${fieldState(draft, "missed_policy")}><option value="run_once"${
    policy === "run_once" ? " selected" : ""
  }>run it once when hob starts</option><option value="skip"${
    policy === "skip" ? " selected" : ""
  }>skip it</option></select>${fieldProblem(draft, "missed_policy")}
  </label>
  <div><button type="submit" class="primary">Add job</button></div>
</form>`;
}

/** The refused field's attributes: invalid, described by its problem, focused. */
function fieldState(draft: ScheduleDraft | undefined, field: ScheduleFormField): Html | string {
  if (draft?.field !== field) return "";
  return html`
    aria-invalid="true" aria-describedby="job-${field}-problem" autofocus
  `;
}

/** Why the field was refused, beside it. */
function fieldProblem(draft: ScheduleDraft | undefined, field: ScheduleFormField): Html | string {
  if (draft?.field !== field) return "";
  return html`<span class="field-problem" id="job-${field}-problem">${draft.problem}</span>`;
}

function jobCard(job: JobView): Html {
  const status = job.last_status === "ok" ? "status-ok" : job.last_status ? "status-bad" : "muted";
  return html`<li>
  <div class="title">${job.name} <span class="muted">${job.schedule} (${job.timezone})${
    job.enabled ? "" : " · disabled"
  }</span></div>
  <div class="muted">next ${at(job.next_run)} · last ${at(job.last_run)} <span class="${status}">${
    job.last_status ?? ""
  }</span>${
    job.missed_runs
      ? html`
        · <span class="status-warn">${job.missed_runs} missed while hob was off</span>
      `
      : ""
  }</div>
  ${job.last_result ? html`<div>${cut(job.last_result, 300)}</div>` : ""}
  ${
    job.last_failure
      ? html`<div class="status-bad">Last failure ${
        at(job.last_failure.at)
      }: ${job.last_failure.error}</div>`
      : ""
  }
  <div class="row-actions">
    <button type="button" hx-post="/ui/schedules/${job.id}/run" hx-target="#panel" hx-disabled-elt="this">Run now</button>
    <button type="button" hx-post="/ui/schedules/${job.id}/toggle" hx-target="#panel">${
    job.enabled ? "Disable" : "Enable"
  }</button>
    ${
    job.conversation_id ? html`<a href="/c/${job.conversation_id}" data-nav>Conversation</a>` : ""
  }
    <button type="button" class="danger" hx-post="/ui/schedules/${job.id}/delete" hx-target="#panel"
      hx-confirm="Delete the job “${job.name}” and its run log?">Delete</button>
  </div>
</li>`;
}

// Tasks

const TASK_ORDER: TaskStatus[] = [
  "in_progress",
  "waiting",
  "pending",
  "failed",
  "complete",
  "cancelled",
];

export function tasksPanel(tasks: Task[], message?: Flash): Html {
  const groups = TASK_ORDER.map((status) =>
    [status, tasks.filter((t) => t.status === status)] as const
  )
    .filter(([, list]) => list.length > 0);
  return html`<h1>Background tasks</h1>
${flash(message)}
${groups.length === 0 ? html`<p class="muted">No tasks yet.</p>` : ""}
${
    groups.map(([status, list]) =>
      html`
        <h2>${status.replace("_", " ")} (${list.length})</h2>
        <ul class="cards">${list.map(taskCard)}</ul>
      `
    )
  }
<h2>Add a task</h2>
<form class="stacked" hx-post="/ui/tasks" hx-target="#panel">
  <label>Title <input type="text" name="title" required maxlength="200"></label>
  <label>What to do <textarea name="prompt" rows="3" placeholder="The whole instruction: the worker sees only this"></textarea></label>
  <label>Priority <input type="text" name="priority" value="0" inputmode="numeric"></label>
  <div><button type="submit" class="primary">Add task</button></div>
</form>`;
}

function taskCard(task: Task): Html {
  return html`<li>
  <div class="title">#${task.id} ${task.title}${
    task.priority
      ? html`
        <span class="muted">priority ${task.priority}</span>
      `
      : ""
  }</div>
  ${task.waiting_reason ? html`<div class="status-warn">${task.waiting_reason}</div>` : ""}
  ${task.output ? html`<div>${cut(task.output, 400)}</div>` : ""}
  <div class="muted">updated ${at(task.updated_at)}${
    task.blocked_by.length ? ` · after ${task.blocked_by.join(", ")}` : ""
  }</div>
  <div class="row-actions">
    ${
    task.conversation_id ? html`<a href="/c/${task.conversation_id}" data-nav>Conversation</a>` : ""
  }
    ${
    ["pending", "in_progress", "waiting"].includes(task.status)
      ? html`<button type="button" hx-post="/ui/tasks/${task.id}/cancel" hx-target="#panel">Cancel</button>`
      : ""
  }
    ${
    (task.status === "waiting" && !task.claimed_by) || task.status === "failed" ||
      task.status === "cancelled"
      ? html`<button type="button" hx-post="/ui/tasks/${task.id}/resume" hx-target="#panel">Resume</button>`
      : ""
  }
  </div>
</li>`;
}

// Approvals

export function approvalsPanel(pending: Approval[], recent: Approval[], message?: Flash): Html {
  return html`<h1>Approvals</h1>
${flash(message)}
${
    pending.length === 0
      ? html`<p class="muted">Nothing is waiting for your decision.</p>`
      : html`<ul class="cards">${
        pending.map((a) =>
          html`<li>
  <div class="title">${a.tool} <span class="muted">asked ${at(a.created_at)}, expires ${
            at(a.expires_at)
          }</span></div>
  ${a.reason ? html`<div>${a.reason}</div>` : ""}
  <pre>${a.arguments}</pre>
  <div class="row-actions">
    <button type="button" class="primary" hx-post="/ui/approvals/${a.id}" hx-vals='{"decision": "approve"}' hx-target="#panel">Approve</button>
    <button type="button" hx-post="/ui/approvals/${a.id}" hx-vals='{"decision": "approve", "remember": "1"}' hx-target="#panel">Always allow</button>
    <button type="button" class="danger" hx-post="/ui/approvals/${a.id}" hx-vals='{"decision": "deny"}' hx-target="#panel">Deny</button>
  </div>
</li>`
        )
      }</ul>`
  }
${
    recent.length
      ? html`
        <h2>Decided</h2>
        <table class="grid">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Decision</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>${recent.map((a) =>
            html`
              <tr>
                <td>${a.tool}</td>
                <td>${a.status}${a.remember ? " (remembered)" : ""}</td>
                <td>${at(a.decided_at)}</td>
              </tr>
            `
          )}</tbody>
        </table>
      `
      : ""
  }`;
}

// Tools

/** The MCP servers and their tools, for the Tools panel. */
export interface McpView {
  servers: McpServerStatus[];
  tools: McpToolInfo[];
}

export function toolsPanel(tools: ToolInfo[], mcp?: McpView, message?: Flash): Html {
  return html`
    <h1>Tools</h1>
    ${flash(message)} ${mcp && mcp.servers.length ? mcpSection(mcp) : ""}
    <p
      class="muted">Each call runs in a fresh Worker with only the permissions listed. The policy says whether hob asks you first.</p>
    <table class="grid">
      <thead>
        <tr>
          <th>Tool</th>
          <th>What it does</th>
          <th>Permissions</th>
          <th>Policy</th>
        </tr>
      </thead>
      <tbody>${tools.map((tool) =>
        html`
          <tr>
            <td><code>${tool.name}</code>${tool.origin.kind === "user"
              ? html`
                <span class="muted">(yours)</span>
              `
              : ""}</td>
            <td>${cut(tool.description, 160)}</td>
            <td>${describePermissions(tool.permissions)}</td>
            <td>${tool.effective_policy}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/**
 * The MCP servers, and each tool that waits for the owner's approval shown
 * whole (its words revealed: src/app/mcp.ts), beside what was approved when
 * it changed, with a button that approves what is shown (its hash is sent,
 * so a definition that changed since is refused).
 */
function mcpSection(mcp: McpView): Html {
  const waiting = mcp.tools.filter((tool) => tool.approval !== "approved");
  return html`
    <h2 id="mcp">MCP servers</h2>
    <p class="muted">A server's tool descriptions are its words, and the model reads them. hob offers
      a tool only once you approved what it says; one that changes waits for you again.</p>
    <ul class="cards">${mcp.servers.map((server) =>
      html`
        <li data-server="${server.name}">
          <div class="title">${server.name} <span class="badge">${server.state}</span></div>
          <div class="muted">${server.tools.length} tools offered${server.pending.length
            ? html`
              · <strong class="status-bad">${server.pending
                .length} waiting for your approval</strong>
            `
            : ""}${server.error ? ` · ${server.error}` : ""}</div>
          ${server.pending.length > 1
            ? approveButton(
              server.name,
              waiting.filter((tool) => tool.server === server.name),
              `Approve all ${server.pending.length} as shown below`,
            )
            : ""}
        </li>
      `
    )}</ul>
    ${waiting.length
      ? html`<ul class="cards" aria-label="Tools waiting for your approval">${
        waiting.map(waitingTool)
      }</ul>`
      : ""}
  `;
}

function waitingTool(tool: McpToolInfo): Html {
  const was = tool.approved;
  const schema = (value: unknown) => revealed(JSON.stringify(value, null, 2));
  return html`
    <li data-tool="${tool.name}">
      <div class="title"><code>${tool.name}</code> <span class="badge">${tool.approval === "new"
        ? "new"
        : "changed"}</span> <span class="muted">${tool.read_only ? "read-only · " : ""}hash ${tool
        .hash.slice(0, 16)}</span></div>
      ${was
        ? html`
          <p class="muted">Changed since you approved it ${at(was.approved_at)}. Now:</p>
        `
        : ""}
      <pre>${revealed(tool.description || "(no description)")}</pre>
      ${was && was.description !== tool.description
        ? html`
          <p class="muted">It said before:</p>
          <pre>${revealed(was.description || "(no description)")}</pre>
        `
        : ""} ${tool.mentions.length
        ? html`
          <p
            class="taint">⚠ It names other tools (${tool.mentions.join(
              ", ",
            )}): a description that tells the model what else to call is worth a second look.</p>
        `
        : ""}
      <details>
        <summary>Parameters${was &&
            JSON.stringify(was.parameters) !== JSON.stringify(tool.parameters)
          ? " (changed)"
          : ""}</summary>
        <pre>${schema(tool.parameters)}</pre>
        ${was && JSON.stringify(was.parameters) !== JSON.stringify(tool.parameters)
          ? html`
            <p class="muted">Before:</p>
            <pre>${schema(was.parameters)}</pre>
          `
          : ""}
      </details>
      ${approveButton(tool.server, [tool], "Approve")}
    </li>
  `;
}

/** A button that approves `tools` of `server` as shown: their names and the hashes read. */
function approveButton(server: string, tools: McpToolInfo[], label: string): Html {
  const values = JSON.stringify({
    server,
    tools: JSON.stringify(tools.map((tool) => tool.name)),
    hashes: JSON.stringify(Object.fromEntries(tools.map((tool) => [tool.name, tool.hash]))),
  });
  return html`<div class="row-actions"><button type="button" class="primary" hx-post="/ui/mcp/approve"
    hx-vals="${values}" hx-target="#panel">${label}</button></div>`;
}

function describePermissions(permissions: unknown): string {
  if (!permissions || typeof permissions !== "object") return "none";
  const parts = Object.entries(permissions as Record<string, unknown>)
    .filter(([, value]) =>
      value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)
    )
    .map(([key, value]) =>
      `${key}: ${Array.isArray(value) ? value.join(", ") : value === true ? "any" : String(value)}`
    );
  return parts.length ? parts.join("; ") : "none";
}

// Notifications

export function notificationsPanel(list: Notification[], message?: Flash): Html {
  return html`<h1>Notifications</h1>
${flash(message)}
${
    list.length === 0
      ? html`<p class="muted">No notifications. Heartbeat findings and finished tasks show here.</p>`
      : html`<div class="toolbar">
  <button type="button" hx-post="/ui/notifications/read" hx-target="#panel">Mark all read</button>
</div>
<ul class="cards">${
        list.map((n) =>
          html`
            <li>
              <div class="title">${n.title} ${n.read_at
                ? ""
                : html`<span class="badge">new</span>`}</div>
              <div class="muted">${n.kind} · ${at(n.created_at)}</div>
              <div>${n.body}</div>
            </li>
          `
        )
      }</ul>`
  }`;
}

// Channels

/**
 * The channels' state, and the strangers who wrote without being allowed,
 * with the id to add to `allow_from` (their words are theirs: shown as text).
 */
export function channelsPanel(channels: ChannelState[], strangers: Stranger[]): Html {
  return html`<h1>Channels</h1>
${
    channels.length === 0
      ? html`
        <p
          class="muted">No channels. Add Telegram under <code>channels:</code> in hob.yaml (docs/channels.md).</p>
      `
      : html`<ul class="cards">${
        channels.map((channel) =>
          html`
            <li data-channel="${channel.name}">
              <div class="title">${channel.name}${channel.account ? ` · ${channel.account}` : ""}
                <span class="badge">${channel.state}</span></div>
              <div class="muted">heard ${at(channel.last_inbound)} · spoke ${at(
                channel.last_outbound,
              )} · ${channel.restarts} restart(s) · ${channel.ignored} ignored</div>
              ${channel.last_error
                ? html`<div class="error">Last error ${
                  at(channel.last_error_at)
                }: ${channel.last_error}</div>`
                : ""}
            </li>
          `
        )
      }</ul>`
  }
<h2>Waiting to be allowed</h2>
${
    strangers.length === 0 ? html`<p class="muted">Nobody unknown has written to hob.</p>` : html`
      <p
        class="muted">hob answered none of them. Add an id to <code>allow_from</code> (you) or <code>guests</code> (others) in hob.yaml to answer them.</p>
      <table class="grid">
        <thead>
          <tr>
            <th>Channel</th>
            <th>Id</th>
            <th>Name</th>
            <th>Last message</th>
            <th>When</th>
          </tr>
        </thead>
        <tbody>${strangers.map((stranger) =>
          html`
            <tr>
              <td>${stranger.channel}</td>
              <td><code>${stranger.sender_id}</code></td>
              <td>${stranger.name}</td>
              <td>${cut(stranger.excerpt, 100)}</td>
              <td>${at(stranger.last_seen)} (${stranger.messages})</td>
            </tr>
          `
        )}</tbody>
      </table>
    `
  }`;
}

/** What adding a source did, or why it could not. */
export function sourceAdded(
  added: { path: string; source: string; title: string; changed: boolean } | null,
  refusal?: string,
): Html | string {
  if (!added) return flash({ ok: false, text: refusal ?? "Could not add it." });
  return html`
    ${flash({
      ok: true,
      text: added.changed
        ? `Added “${added.title}” from ${added.source} as memory/${added.path}.`
        : `memory/${added.path} already holds ${added.source} as it is now.`,
    })}<button type="button" hx-get="/ui/memory/file?name=${encodeURIComponent(
      `memory/${added.path}`,
    )}"
      hx-target="#memory-file">Open it</button>
  `;
}
