/**
 * The page's Memory view: search, the files hob reads in every chat (edited
 * here), documents and pages added to memory, and the versions every write
 * made (its History list) with their changes, undo and restore. Each piece is
 * plain HTML that htmx swaps in; every value is escaped by hono/html.
 */

import { html } from "hono/html";
import type { MemoryHit } from "../memory/search_index.ts";
import type { VersionDiff } from "../memory/versions.ts";
import { type FileVersion, revertWords } from "../store/versions.ts";
import { textForPeople } from "../http/display.ts";
import type { DisplayPart } from "../core/untrusted.ts";
import { textHash } from "../memory/files.ts";
import { at, cut, emptyState, type Flash, flash, type Html, viewHead } from "./view_parts.ts";

/** The files the memory panel edits, by the name shown. */
export const EDITABLE_FILES = [
  "memory/MEMORY.md",
  "TODAY",
  "identity/SOUL.md",
  "identity/USER.md",
  "identity/HEARTBEAT.md",
];

/** What each editable file is for, in a few words under its name. */
const FILE_ROLES: Record<string, string> = {
  "memory/MEMORY.md": "what hob keeps in mind",
  TODAY: "what happened today",
  "identity/SOUL.md": "hob's character",
  "identity/USER.md": "about you",
  "identity/HEARTBEAT.md": "what the heartbeat checks",
};

/**
 * What opens below the view's fold (a file, a list of versions) is scrolled to as it
 * opens, so a click never seems to do nothing.
 */
const SHOW_OPENED = "innerHTML show:top";

export function memoryPanel(options: { today: string; file?: Html; message?: Flash }): Html {
  return html`
    ${viewHead(
      "Memory",
      "What hob knows about you and has read: search it, edit the files it reads in every chat, add documents, and take back any change.",
    )}
    ${flash(options.message)}
    <form class="inline" role="search" hx-get="/ui/memory/search" hx-target="#memory-results"
      hx-trigger="submit">
      <label class="visually-hidden" for="memory-query">Search memory</label>
      <input id="memory-query" type="search" name="q" placeholder="Search memory, by words or meaning"
        required>
      <button type="submit" class="primary">Search</button>
    </form>
    <div id="memory-results" aria-live="polite"></div>
    <h2>Files</h2>
    <p class="section-note">Markdown in your hob home: edit them here or in any editor.</p>
    <div class="files" role="group" aria-label="Files">
      ${EDITABLE_FILES.map((name) =>
        html`
          <button type="button" hx-get="/ui/memory/file?name=${encodeURIComponent(name)}"
            hx-target="#memory-file" hx-swap="${SHOW_OPENED}" title="${name === "TODAY"
              ? options.today
              : name}"><b>${name === "TODAY" ? "Today's log" : name.split("/")[1]}</b>
            <span>${FILE_ROLES[name]}</span></button>
        `
      )}
    </div>
    <div id="memory-file">${options.file ?? ""}</div>
    <h2>Add a document or page</h2>
    <p class="section-note">Its text is kept in memory, marked as from outside, and found by search.</p>
    <form class="inline" hx-post="/ui/memory/sources" hx-target="#memory-source"
      hx-disabled-elt="find button">
      <label class="visually-hidden" for="memory-source-input">A web address or a file's path</label>
      <input id="memory-source-input" name="source" required
        placeholder="https://… or /path/to/file.pdf (Markdown, text, HTML, PDF, DOCX, CSV)">
      <button type="submit">Add</button>
    </form>
    <div id="memory-source" aria-live="polite"></div>
    <h2>History</h2>
    <p class="section-note">Every write to memory, identity, skills and tools is kept: see what
      changed, and put any file back as it was.</p>
    <div class="toolbar" role="group" aria-label="History">
      <button type="button" hx-get="/ui/memory/history" hx-target="#memory-history"
        hx-swap="${SHOW_OPENED}">All changes</button>
      <button type="button" hx-get="/ui/memory/history?tainted=1" hx-target="#memory-history"
        hx-swap="${SHOW_OPENED}">Written after reading untrusted content</button>
    </div>
    <div id="memory-history" aria-live="polite"></div>
  `;
}

/** What the list of versions shows above them. */
export interface VersionsView {
  /** One file's versions, or null for every file's. */
  path: string | null;
  tainted: boolean;
  message?: Flash;
}

/**
 * Versions, newest first, each with who wrote it and how, a flag when the
 * writing turn had read untrusted content, its changes on demand, and a
 * button that puts the file back as it was then.
 */
export function versionList(versions: FileVersion[], view: VersionsView): Html {
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
      ? view.tainted
        ? emptyState(
          "No write was made after reading untrusted content",
          "When a chat that read a web page, an email or a file changes memory, the write shows here for you to check.",
        )
        : emptyState("No versions yet", "Each write to a file hob keeps shows here once made.")
      : html`<ol class="cards versions">${
        versions.map((version) => versionItem(version, view))
      }</ol>`
  }
</section>`;
}

function versionItem(version: FileVersion, view: VersionsView): Html {
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
function revertValues(version: FileVersion, view: VersionsView, undo: boolean): string {
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
            )}" hx-target="#memory-file" hx-swap="${SHOW_OPENED}">memory/${hit
              .path}</button> <span class="muted">lines ${hit
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
      hx-target="#memory-history" hx-swap="${SHOW_OPENED}">History</button></div>
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
      hx-target="#memory-file" hx-swap="${SHOW_OPENED}">Open it</button>
  `;
}
