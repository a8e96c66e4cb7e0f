/**
 * The page's Backups view: the schedule (`backup.every`, `keep`, the folder,
 * the next one), the last backup made and the last one that failed, and a
 * button that makes one now into the folder. Plain HTML from the backup
 * action's status; every value escaped by hono/html.
 */

import { html } from "hono/html";
import type { BackupRecord, BackupStatus } from "../app/backups.ts";
import { showSize } from "../app/sizes.ts";
import { showTime } from "../app/times.ts";
import { type Flash, flash, type Html, shortPath, viewHead } from "./view_parts.ts";

/**
 * The Backups panel.
 *
 * @example
 * ```ts
 * c.html(backupPanel(hob.app.backups.status(), hob.home, { ok: true, text: "Backed up." }));
 * ```
 */
export function backupPanel(status: BackupStatus, home: string, message?: Flash): Html {
  const failed = status.last && !status.last.ok ? status.last : null;
  return html`
    ${viewHead(
      "Backups",
      "Copies of your hob home (memory, conversations, settings) to bring back with hob restore.",
    )}
    ${flash(message)}
    <p>${status.every
      ? html`Every <strong>${status.every}</strong> while hob serve runs, keeping the newest ${status.keep}${
        status.next ? html`; the next at ${showTime(status.next)}` : ""
      }.`
      : html`Not scheduled: set <code>backup.every</code> in hob.yaml (say <code>1d</code>) to back up on its own.`} Into <code title="${status
      .dir}">${shortPath(status.dir, home)}</code>.</p>
    <ul class="cards">
      <li data-backup="last">
        <div class="title">Last backup</div>
        ${status.last_ok
          ? recordLine(status.last_ok, home)
          : html`<div class="muted">None made yet.</div>`}
      </li>
      ${failed
        ? html`
          <li data-backup="failed">
            <div class="title">Last attempt failed</div>
            <div class="status-bad">${showTime(failed.at)}: ${failed.error}</div>
          </li>
        `
        : ""}
    </ul>
    <form hx-post="/ui/backup" hx-target="#panel">
      <button type="submit" class="primary" ${status.running
        ? " disabled"
        : ""}>Back up now</button>
    </form>
    <p
      class="muted">The API token and hob.yaml's secrets are left out unless <code>backup.with_secrets</code> is on.
    Bring a backup back with <code>hob restore FILE --home DIR</code> (docs/operations.md).</p>
  `;
}

function recordLine(record: BackupRecord, home: string): Html {
  return html`<div>${showTime(record.at)} · ${showSize(record.bytes ?? 0)} · ${record.files} files${
    record.scheduled ? " · scheduled" : ""
  }${record.with_secrets ? " · with secrets" : ""}</div>
<div class="path" title="${record.file ?? ""}">${shortPath(record.file ?? "", home)}</div>`;
}
