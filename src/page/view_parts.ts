/**
 * The pieces every view of the page is built from: its head (a title and one
 * line on what the view is for), the empty state that says what will appear
 * and how, the message after an action, times, cut text and short paths.
 * Plain HTML; every value escaped by hono/html. Knows no view.
 */

import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { showTime } from "../app/times.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A message shown at the top of a panel after an action. */
export interface Flash {
  ok: boolean;
  text: string;
}

/**
 * A view's head: its title, and one line on what it is for.
 *
 * @example
 * ```ts
 * viewHead("Tools", "What hob can use, and whether it asks you first.");
 * ```
 */
export function viewHead(title: string, lede: Html | string): Html {
  return html`
    <header class="view-head">
      <h1>${title}</h1>
      <p class="lede">${lede}</p>
    </header>
  `;
}

/**
 * What a view or a list shows while it has nothing: what will appear there,
 * and how to make it appear.
 *
 * @example
 * ```ts
 * emptyState("No tasks yet", "Add one below, or ask hob in a chat.");
 * ```
 */
export function emptyState(title: string, body: Html | string): Html {
  return html`
    <div class="empty-state">
      <p class="empty-title">${title}</p>
      <p>${body}</p>
    </div>
  `;
}

/** The message after an action, or nothing. */
export function flash(message?: Flash): Html | string {
  if (!message) return "";
  return html`<p role="status" class="${message.ok ? "saved" : "status-bad"}">${message.text}</p>`;
}

/** A time as every view shows it: in the user's zone, labelled, to the minute (src/app/times.ts). */
export function at(iso: string | null | undefined): string {
  return showTime(iso);
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A path as people read it: inside the hob home, relative to it (`workspace`,
 * `uploads`); the home itself, "the hob home"; anything else as it is.
 *
 * @example
 * ```ts
 * shortPath("/home/me/.hob/workspace", "/home/me/.hob"); // "workspace"
 * ```
 */
export function shortPath(path: string, home: string): string {
  const root = home.replace(/\/+$/, "");
  if (path === root) return "the hob home";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
