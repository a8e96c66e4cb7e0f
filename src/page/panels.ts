/**
 * The page's fragments: the conversation list, the badges, and the views of
 * schedules, tasks, approvals, notifications and channels — each a title,
 * one line on what it is for, then cards with the important thing first, or
 * an empty state that says what will appear. Plain HTML that htmx swaps in;
 * every value is escaped by hono/html.
 */

import { html } from "hono/html";
import type { ConversationSummary } from "../store/conversations.ts";
import type { JobView } from "../store/jobs.ts";
import type { Notification } from "../store/notifications.ts";
import type { Stranger } from "../store/channels.ts";
import type { ChannelState } from "../app/channels.ts";
import type { Task, TaskStatus } from "../store/tasks.ts";
import type { Approval } from "../store/approvals.ts";
import { at, cut, emptyState, type Flash, flash, type Html, viewHead } from "./view_parts.ts";

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

export function badges(approvals: number, notifications: number, skills = 0): Html {
  return html`<span id="approvals-badge" class="badge" hx-swap-oob="true">${approvals || ""}</span>
<span id="notifications-badge" class="badge" hx-swap-oob="true">${notifications || ""}</span>
<span id="skills-badge" class="badge" hx-swap-oob="true">${skills || ""}</span>`;
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
  return html`${
    viewHead(
      "Schedules",
      "Prompts hob runs on its own at set times: a morning briefing, a weekly review, a reminder once. Each run is a conversation you can open.",
    )
  }
${flash(options.message)}
${
    jobs.length === 0
      ? emptyState(
        "No scheduled jobs yet",
        html`Add one below (<code>0 8 * * 1-5</code> is weekdays at 8, <code>every 30m</code> every half
          hour, <code>once:2026-12-24T18:00</code> once), or ask hob in a chat to remind you of something.`,
      )
      : html`<ul class="cards">${jobs.map(jobCard)}</ul>`
  }
<h2>Add a job</h2>
<div class="box">${newJobForm(options.timezone, options.draft)}</div>`;
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

/** A job: its name and state first, then when it runs, then what its last run said. */
function jobCard(job: JobView): Html {
  const [tone, state] = !job.enabled
    ? ["", "disabled"]
    : job.last_status === "ok"
    ? ["ok", "ok"]
    : job.last_status
    ? ["bad", job.last_status]
    : ["info", "waiting for its first run"];
  return html`<li data-job="${job.name}">
  <div class="card-head"><span class="title">${job.name}</span><span class="pill ${tone}">${state}</span></div>
  <div class="muted"><code>${job.schedule}</code> · ${job.timezone} · next ${at(job.next_run)}${
    job.last_run ? ` · last ${at(job.last_run)}` : ""
  }${
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

/** How each state of a task looks: its words and its tone. */
const TASK_STATES: Record<TaskStatus, [string, string]> = {
  in_progress: ["In progress", "info"],
  waiting: ["Waiting", "warn"],
  pending: ["Pending", ""],
  failed: ["Failed", "bad"],
  complete: ["Complete", "ok"],
  cancelled: ["Cancelled", ""],
};

export function tasksPanel(tasks: Task[], message?: Flash): Html {
  const groups = TASK_ORDER.map((status) =>
    [status, tasks.filter((t) => t.status === status)] as const
  )
    .filter(([, list]) => list.length > 0);
  return html`${
    viewHead(
      "Background tasks",
      "Work hob does on its own while nobody waits, one task after another. Each has a conversation you can open; finished ones also show in Notifications.",
    )
  }
${flash(message)}
${
    groups.length === 0
      ? emptyState(
        "No tasks yet",
        "Add one below with the whole instruction (the worker sees only that), or ask hob in a chat to do something in the background.",
      )
      : ""
  }
${
    groups.map(([status, list]) =>
      html`
        <h2>${TASK_STATES[status][0]} <span class="count">${list.length}</span></h2>
        <ul class="cards">${list.map(taskCard)}</ul>
      `
    )
  }
<h2>Add a task</h2>
<form class="stacked box" hx-post="/ui/tasks" hx-target="#panel">
  <label>Title <input type="text" name="title" required maxlength="200"></label>
  <label>What to do <textarea name="prompt" rows="3" placeholder="The whole instruction: the worker sees only this"></textarea></label>
  <label>Priority <input type="text" name="priority" value="0" inputmode="numeric"></label>
  <div><button type="submit" class="primary">Add task</button></div>
</form>`;
}

function taskCard(task: Task): Html {
  const [state, tone] = TASK_STATES[task.status];
  return html`<li data-task="${task.id}">
  <div class="card-head"><span class="title">${task.title}</span>${
    task.priority
      ? html`
        <span class="muted">priority ${task.priority}</span>
      `
      : ""
  }<span class="pill ${tone}">${state}</span></div>
  ${task.waiting_reason ? html`<div class="status-warn">${task.waiting_reason}</div>` : ""}
  ${task.output ? html`<div>${cut(task.output, 400)}</div>` : ""}
  <div class="muted">#${task.id} · updated ${at(task.updated_at)}${
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
  return html`${
    viewHead(
      "Approvals",
      "What hob asked to do and waits for you to allow: decide here or in the chat it came from.",
    )
  }
${flash(message)}
${
    pending.length === 0
      ? emptyState(
        "Nothing is waiting for your decision",
        "When hob wants to run a command, or to change something after reading text from outside (a web page, an email, a file), it stops and asks. The request shows here and in the chat, with what it would run: approve it once, always, or deny it.",
      )
      : html`<ul class="cards">${pending.map(pendingCard)}</ul>`
  }
${recent.length ? decidedTable(recent) : ""}`;
}

function pendingCard(approval: Approval): Html {
  return html`<li data-approval="${approval.id}">
  <div class="card-head"><code class="title">${approval.tool}</code><span class="pill warn">waiting</span></div>
  ${approval.reason ? html`<div>${approval.reason}</div>` : ""}
  <pre>${prettyJson(approval.arguments)}</pre>
  <div class="muted">asked ${at(approval.created_at)} · expires ${at(approval.expires_at)}</div>
  <div class="row-actions">
    <button type="button" class="primary" hx-post="/ui/approvals/${approval.id}" hx-vals='{"decision": "approve"}' hx-target="#panel">Approve</button>
    <button type="button" hx-post="/ui/approvals/${approval.id}" hx-vals='{"decision": "approve", "remember": "1"}' hx-target="#panel">Always allow</button>
    <button type="button" class="danger" hx-post="/ui/approvals/${approval.id}" hx-vals='{"decision": "deny"}' hx-target="#panel">Deny</button>
  </div>
</li>`;
}

function decidedTable(recent: Approval[]): Html {
  const tone = (status: string) => status === "approved" ? "ok" : status === "denied" ? "bad" : "";
  return html`
    <h2>Decided</h2>
    <div class="table-wrap">
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
              <td><code>${a.tool}</code></td>
              <td><span class="pill ${tone(a.status)}">${a.status}</span>${a.remember
                ? html`
                  <span class="muted">remembered</span>
                `
                : ""}</td>
              <td>${at(a.decided_at)}</td>
            </tr>
          `
        )}</tbody>
      </table>
    </div>
  `;
}

/** A tool call's arguments as people read them: indented JSON, or the text as it came. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

// Notifications

export function notificationsPanel(list: Notification[], message?: Flash): Html {
  return html`${
    viewHead(
      "Notifications",
      "What hob tells you when you were not looking: heartbeat findings, finished tasks, budget warnings.",
    )
  }
${flash(message)}
${
    list.length === 0
      ? emptyState(
        "No notifications",
        "Findings of the heartbeat (what HEARTBEAT.md asks hob to check), finished background tasks and budget warnings show here; the badge beside Notifications counts the unread ones.",
      )
      : html`<div class="toolbar">
  <button type="button" hx-post="/ui/notifications/read" hx-target="#panel">Mark all read</button>
</div>
<ul class="cards">${
        list.map((n) =>
          html`
            <li class="${n.read_at ? "" : "unread"}">
              <div class="card-head"><span class="title">${n.title}</span>${n.read_at
                ? ""
                : html`<span class="pill info">new</span>`}</div>
              <div class="passage">${n.body}</div>
              <div class="muted">${n.kind} · ${at(n.created_at)}</div>
            </li>
          `
        )
      }</ul>`
  }`;
}

// Channels

/** How a channel's state looks. */
const CHANNEL_TONES: Record<ChannelState["state"], string> = {
  connected: "ok",
  starting: "info",
  retrying: "warn",
  stopped: "bad",
};

/**
 * The channels' state, and the strangers who wrote without being allowed,
 * with the id to add to `allow_from` (their words are theirs: shown as text).
 */
export function channelsPanel(channels: ChannelState[], strangers: Stranger[]): Html {
  return html`${
    viewHead(
      "Channels",
      "Where else hob talks with you (Telegram, email, Matrix), answering only the people you allow.",
    )
  }
${
    channels.length === 0
      ? emptyState(
        "No channels set up",
        html`Add Telegram, email or Matrix under <code>channels:</code> in hob.yaml
          (docs/channels.md) and restart <code>hob serve</code>: each shows here with its state, and
          its chats join your conversations.`,
      )
      : html`<ul class="cards">${channels.map(channelCard)}</ul>`
  }
<h2>Waiting to be allowed</h2>
${
    strangers.length === 0
      ? html`<p class="section-note">Nobody unknown has written to hob. Anyone who does is listed
        here, unanswered, with the id to allow.</p>`
      : strangerTable(strangers)
  }`;
}

function channelCard(channel: ChannelState): Html {
  return html`
    <li data-channel="${channel.name}">
      <div class="card-head"><span class="title">${channel.name}${channel.account
        ? ` · ${channel.account}`
        : ""}</span>
        <span class="pill ${CHANNEL_TONES[channel.state]}">${channel.state}</span></div>
      <div class="muted">heard ${at(channel.last_inbound)} · spoke ${at(
        channel.last_outbound,
      )} · ${channel.restarts} restart(s) · ${channel.ignored} ignored</div>
      ${channel.last_error
        ? html`<div class="status-bad">Last error ${
          at(channel.last_error_at)
        }: ${channel.last_error}</div>`
        : ""}
    </li>
  `;
}

function strangerTable(strangers: Stranger[]): Html {
  return html`
    <p class="section-note">hob answered none of them. Add an id to <code>allow_from</code> (you) or
      <code>guests</code> (others) in hob.yaml to answer them.</p>
    <div class="table-wrap">
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
    </div>
  `;
}
