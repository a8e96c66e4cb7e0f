/**
 * The page's HTML: the shell every view shares, and the page shown to a
 * browser without a session. Rendered with hono/html, which escapes every
 * interpolated value.
 */

import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** The htmx settings: no eval, no inline styles, only requests to hob, 422 swaps (form errors). */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  historyCacheSize: 0,
  responseHandling: [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "422", swap: true, error: false },
    { code: "[45]..", swap: false, error: true },
  ],
});

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The voice controls' icons (24×24, in the text's colour); app.js copies them for each reply. */
const MIC_ICON = icon(
  "M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11h-2z",
);
const SPEAKER_ICON = icon(
  "M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 7.97v8.05A4.5 4.5 0 0 0 16.5 12zM14 3.23v2.06a7 7 0 0 1 0 13.42v2.06a9 9 0 0 0 0-17.54z",
);
const STOP_ICON = icon("M6 6h12v12H6z");

function icon(path: string): Html {
  return html`
    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d="${path}" />
    </svg>
  `;
}

function page(title: string, body: Html, scripts = true): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${title}</title>
<link rel="icon" href="/static/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/style.css">
${
    scripts
      ? html`<script src="/static/htmx.js" defer></script>
<script src="/static/purify.js" defer></script>
<script type="module" src="/static/app.js"></script>`
      : ""
  }
</head>
${body}
</html>`;
}

/** The shell: sidebar, chat and the panel the sections load into. */
export function shell(): Html {
  return page(
    "hob",
    html`
      <body hx-headers='{"x-hob-request": "1"}'>
        <a class="skip-link" href="#composer-input">Skip to the message box</a>
        <div class="app">
          <aside class="sidebar" aria-label="Conversations and sections">
            <div class="brand">
              <strong>hob</strong>
              <button id="new-chat" type="button" class="primary">New chat</button>
              <button id="sidebar-toggle" type="button" aria-expanded="false"
                aria-controls="sidebar-body">Menu</button>
            </div>
            <div id="sidebar-body" class="sidebar-body">
              <label class="visually-hidden" for="conversation-search">Search conversations</label>
              <input id="conversation-search" type="search" name="q" placeholder="Search conversations"
                autocomplete="off"
                hx-get="/ui/conversations" hx-trigger="input changed delay:200ms, search"
                hx-target="#conversation-list">
              <nav id="conversation-list" class="conversations" aria-label="Conversations"
                hx-get="/ui/conversations" hx-trigger="load, hob:conversations from:body"
                hx-include="#conversation-search"></nav>
              <nav class="sections" aria-label="Sections">
                <ul>
                  <li><a href="/" data-view="chat">Chat</a></li>
                  <li><a href="/memory" data-view="memory">Memory</a></li>
                  <li><a href="/schedules" data-view="schedules">Schedules</a></li>
                  <li><a href="/tasks" data-view="tasks">Tasks</a></li>
                  <li><a href="/approvals" data-view="approvals">Approvals <span class="badge" id="approvals-badge"></span></a></li>
                  <li><a href="/tools" data-view="tools">Tools</a></li>
                  <li><a href="/skills" data-view="skills">Skills <span class="badge" id="skills-badge"></span></a></li>
                  <li><a href="/notifications" data-view="notifications">Notifications <span class="badge" id="notifications-badge"></span></a></li>
                  <li><a href="/channels" data-view="channels">Channels</a></li>
                  <li><a href="/usage" data-view="usage">Usage</a></li>
                  <li><a href="/backups" data-view="backups">Backups</a></li>
                </ul>
              </nav>
            </div>
            <div hx-get="/ui/badges" hx-trigger="load, every 15s, hob:badges from:body"
              hx-swap="none"></div>
          </aside>
          <main id="main">
            <section id="chat-view" class="chat" aria-labelledby="chat-title">
              <header class="chat-header">
                <h1 id="chat-title">New chat</h1>
                <button id="rename" type="button" aria-label="Rename this conversation">Rename</button>
                <div class="model-picker">
                  <label for="model-select" class="visually-hidden">Model</label>
                  <select id="model-select"><option value="">Default model</option></select>
                  <button id="refresh-models" type="button"
                    aria-label="Ask the providers for their models again"
                    title="Refresh models">↻</button>
                </div>
              </header>
              <div id="model-banner" class="banner" role="status" hidden></div>
              <div id="messages" class="messages" role="log" aria-live="polite" aria-label="Messages">
                <div id="messages-inner" class="messages-inner"></div>
              </div>
              <div class="composer">
                <ul id="pending-attachments" class="attachments" aria-label="Files to send" hidden></ul>
                <form id="composer" aria-label="Send a message">
                  <input id="attach-input" type="file" multiple hidden>
                  <button id="attach" type="button" aria-label="Attach files"
                    title="Attach files (or drop them here)">+</button>
                  <label for="composer-input" class="visually-hidden">Message</label>
                  <textarea id="composer-input" rows="1" placeholder="Message hob"
                    autocomplete="off"></textarea>
                  <button id="send" type="submit" class="primary">Send</button>
                  <button id="stop" type="button" class="danger" hidden>Stop</button>
                  <button id="mic" type="button" class="icon" aria-label="Record a message"
                    title="Record a message (Escape cancels)" aria-pressed="false" hidden disabled>
                    ${MIC_ICON}<span class="mic-time" hidden></span>
                  </button>
                </form>
                <div class="composer-bar">
                  <button id="voice-mode" type="button" aria-pressed="false"
                    title="Speak each reply, and send what the microphone hears at once">
                    ${SPEAKER_ICON}<span>Voice mode</span>
                  </button>
                  <button id="stop-speaking" type="button" class="danger" hidden>
                    ${STOP_ICON}<span>Stop speaking</span>
                  </button>
                  <span id="voice-status" class="voice-status" role="status"></span>
                  <p class="hint">Enter sends · Shift+Enter for a new line · drop files to attach them</p>
                </div>
              </div>
            </section>
            <section id="panel" class="panel" hidden aria-live="polite"></section>
          </main>
        </div>
      </body>
    `,
  );
}

/**
 * What a browser without a session sees: how to get in, and a field for the
 * token. The field sends it as the link does (`?token=`, to the same view),
 * so the server sets the session cookie and takes it out of the address bar;
 * no script is needed.
 */
export function signIn(wrongToken: boolean): Html {
  return page(
    "hob — sign in",
    html`
      <body>
        <main class="signin">
        <header class="view-head brand"><strong>hob</strong></header>
        <h1>Sign in</h1>
        <p class="lede">Open the link <code>hob serve</code> printed when it started — it ends in
          <code>?token=…</code> — or paste the token here.</p>
        ${wrongToken
          ? html`<p class="status-bad" role="alert">That token is not this hob's: check it and try again.</p>`
          : ""}
        <div class="box">
          <form method="get" aria-label="Sign in with the token">
            <label class="visually-hidden" for="token">API token</label>
            <input id="token" name="token" type="password" required autocomplete="current-password"
              spellcheck="false" placeholder="API token" autofocus>
            <button type="submit" class="primary">Sign in</button>
          </form>
          <p class="muted">The token is in <code>HOME/token</code> (by default
            <code>~/.hob/token</code>): <code>cat ~/.hob/token</code> prints it. This browser stays
            signed in.</p>
        </div>
        </main>
      </body>
    `,
    false,
  );
}
