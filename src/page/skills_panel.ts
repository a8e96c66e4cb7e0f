/**
 * The page's Skills view: the Agent Skills with their state and the
 * TypeScript workflows, a form to add one, and the install review — what a
 * skill is, the tools it would run unasked and those its instructions name,
 * every script with how it runs and what it reaches, every address, its
 * files, its warnings and its instructions — with Accept (the hash shown,
 * the tools and hosts left ticked) and Refuse. A skill's words are its
 * author's: shown as text, hidden characters revealed, every value escaped
 * by hono/html; nothing of it is ever markup.
 */

import { html } from "hono/html";
import type { SkillDetail, SkillSummary } from "../app/skills.ts";
import { revealed } from "../core/revealed.ts";
import { at, cut, emptyState, type Flash, flash, type Html, viewHead } from "./view_parts.ts";

type Review = NonNullable<SkillDetail["review"]>;
type ScriptReview = Review["scripts"][number];
type Workflow = { name: string; description: string };

/** How each state reads: its words and its tone. */
const STATES: Record<SkillSummary["state"], [string, string]> = {
  active: ["active", "ok"],
  pending: ["waiting for review", "warn"],
  changed: ["changed since accepted", "warn"],
  invalid: ["invalid", "bad"],
};

/** What a tool's side effect means for a skill that may run it unasked. */
const SIDE_EFFECTS: Record<string, string> = {
  none: "only reads",
  local: "changes files here",
  external: "can reach beyond this machine",
};

/** The order skills are listed in: what waits for the owner first, what cannot be used last. */
const ORDER: SkillSummary["state"][] = ["pending", "changed", "active", "invalid"];

/** How hob runs a script, in words. */
const RUNS: Record<ScriptReview["runs"], string> = {
  "tool process":
    "in a tool process of its own, with only what you grant here — never with hob's rights",
  "asks each time": "only through run_command or run_python, which ask you each time",
};

/** What the Skills view shows beside the skills. */
export interface SkillsPanelOptions {
  message?: Flash;
  /** A source that was refused, shown again in the form. */
  source?: string;
}

/**
 * The Skills view: each skill with its state, the workflows, and the add form.
 *
 * @example
 * ```ts
 * c.html(skillsPanel(await hob.app.skills.list(), {}));
 * ```
 */
export function skillsPanel(
  listing: { skills: SkillSummary[]; workflows: Workflow[] },
  options: SkillsPanelOptions = {},
): Html {
  const { skills, workflows } = listing;
  const waiting = skills.filter((skill) => skill.state === "pending" || skill.state === "changed");
  return html`
    ${viewHead(
      "Skills",
      "Instructions and scripts in the open Agent Skills format that teach hob a task. A skill reaches no model until you reviewed and accepted its files; one that changes waits for you again.",
    )}
    ${flash(options.message)}
    ${skills.length === 0
      ? emptyState(
        "No skills yet",
        html`Add one below by the path of its folder (the one holding <code>SKILL.md</code>), or run
          <code>hob skill add PATH</code>. You see what it would do before anything uses it.`,
      )
      : html`
        ${waiting.length
          ? html`<p class="section-note status-warn">${waiting.length} waiting for your review.</p>`
          : ""}
        <ul class="cards skill-list">${skills.toSorted((a, b) =>
          ORDER.indexOf(a.state) - ORDER.indexOf(b.state)
        ).map(skillCard)}</ul>
      `}
    <h2>Add a skill</h2>
    <form class="stacked box" hx-post="/ui/skills" hx-target="#panel" hx-disabled-elt="find button">
      <label>Folder <input type="text" name="source" required maxlength="4000" spellcheck="false"
        autocomplete="off" placeholder="/home/me/Downloads/pdf-forms" value="${options.source ??
          ""}"></label>
      <p class="muted">Nothing runs when you add it: it is copied into the hob home and waits for your
        review.</p>
      <div><button type="submit" class="primary">Add and review</button></div>
    </form>
    <h2>Workflows <span class="count">${workflows.length}</span></h2>
    ${workflows.length
      ? html`<ul class="cards wide">${
        workflows.map((workflow) =>
          html`
            <li>
              <div class="card-head"><code class="title">/${workflow.name}</code></div>
              <div class="muted">${cut(workflow.description, 180)}</div>
            </li>
          `
        )
      }</ul>`
      : html`<p class="section-note">hob's own TypeScript workflows (<code>HOME/skills/*.ts</code>) show
        here; a chat runs one as <code>/name</code>.</p>`}
  `;
}

function skillCard(skill: SkillSummary): Html {
  const [words, tone] = STATES[skill.state];
  const open = skill.state === "pending" || skill.state === "changed";
  return html`
    <li data-skill="${skill.name}">
      <div class="card-head"><code class="title">${revealed(skill.name)}</code><span
        class="pill ${tone}">${words}</span></div>
      ${skill.description ? html`<div>${cut(revealed(skill.description), 300)}</div>` : ""}
      ${skill.problem ? html`<div class="status-bad">${revealed(skill.problem)}</div>` : ""}
      <div class="muted">${origin(skill)}${skill.state === "active"
        ? ` · runs unasked: ${skill.granted_tools.join(", ") || "nothing"}`
        : ""}</div>
      <div class="row-actions">
        ${skill.state === "invalid" ? "" : html`
          <button type="button" class="${open
            ? "primary"
            : ""}" hx-get="/ui/skills/review" hx-vals="${JSON.stringify({
              name: skill.name,
            })}"
            hx-target="#panel">${open ? "Review" : "Details"}</button>
        `}
        ${removeButton(skill.name, "Remove")}
      </div>
    </li>
  `;
}

/** Where a skill came from, who added it and when. */
function origin(skill: SkillSummary): string {
  if (!skill.source) return "put in HOME/skills by hand";
  const accepted = skill.accepted_at ? ` · accepted ${at(skill.accepted_at)}` : "";
  return `from ${revealed(skill.source)} · added by ${skill.installed_by} ${
    at(skill.installed_at)
  }${accepted}`;
}

function removeButton(name: string, label: string): Html {
  return html`
    <button type="button" class="danger" hx-post="/ui/skills/remove" hx-vals="${JSON
      .stringify({ name })}"
      hx-target="#panel" hx-confirm="Remove the skill “${revealed(
        name,
      )}” and its files?">${label}</button>
  `;
}

/**
 * The install review of one skill: what it is and what it would do, its
 * warnings first, and (while it waits) Accept with the hash shown and Refuse.
 *
 * @example
 * ```ts
 * c.html(skillReview(await hob.app.skills.show({ name })));
 * ```
 */
export function skillReview(skill: SkillDetail, message?: Flash): Html {
  const [words, tone] = STATES[skill.state];
  const review = skill.review;
  const waits = review !== null && (skill.state === "pending" || skill.state === "changed");
  return html`
    <header class="view-head">
      <p><button type="button" hx-get="/ui/panel/skills" hx-target="#panel">← All skills</button></p>
      <h1>Review <code>${revealed(
        skill.name,
      )}</code> <span class="pill ${tone}">${words}</span></h1>
      <p class="lede">${waits
        ? "Read what this skill is and what it would do before any model uses it. Its words are its author's: hob shows them as text and never obeys them as yours."
        : skill.state === "active"
        ? `Accepted ${at(skill.accepted_at)}: what you accepted, and what it may do.`
        : `It cannot be used: ${skill.problem ?? "it is not valid"}.`}</p>
    </header>
    ${flash(message)} ${skill.state === "changed"
      ? html`
        <p class="status-warn"
          role="status">Its files changed after you accepted them ${at(
            skill.accepted_at,
          )}. It is not used until you accept what it is now, shown below.</p>
      `
      : ""} ${review ? reviewBody(skill, review, waits) : ""}
  `;
}

function reviewBody(skill: SkillDetail, review: Review, waits: boolean): Html {
  return html`
    ${warnings(review, skill.format_warnings)}
    <section class="box review" aria-label="What it is">
      <p class="review-description">${revealed(review.description)}</p>
      <dl class="facts">
        <dt>License</dt>
        <dd>${review.license ? revealed(review.license) : "not stated"}</dd>
        <dt>Compatibility</dt>
        <dd>${review.compatibility ? revealed(review.compatibility) : "not stated"}</dd>
        <dt>From</dt>
        <dd class="path">${skill.source ? revealed(skill.source) : "HOME/skills"}</dd>
        <dt>Hash</dt>
        <dd><code>${review.hash.slice(0, 16)}</code></dd>
      </dl>
    </section>
    <form class="review-form" hx-post="/ui/skills/accept" hx-target="#panel">
      <input type="hidden" name="name" value="${skill.name}">
      <input type="hidden" name="hash" value="${review.hash}">
      ${allowedTools(skill, review, waits)} ${toolsNamed(review)}
      ${scripts(review, skill, waits)} ${addresses(review)} ${files(review)}
      <details class="instructions">
        <summary>Instructions <span class="muted">(${review.size.lines} lines, ${review.size
          .chars} characters — the author's words, as written)</span></summary>
        <pre>${revealed(skill.instructions)}</pre>
      </details>
      ${waits
        ? html`
          <div class="row-actions review-actions">
            <button type="submit" class="primary">Accept</button>
            ${removeButton(skill.name, "Refuse")}
          </div>
          <p
            class="muted">Accept pins these very files (hash <code>${review.hash.slice(
              0,
              16,
            )}</code>): a change waits for you again. Refuse removes the skill and its files.</p>
        `
        : html`<div class="row-actions">${removeButton(skill.name, "Remove")}</div>`}
    </form>
  `;
}

function warnings(review: Review, format: string[]): Html | string {
  if (review.warnings.length === 0 && format.length === 0) return "";
  return html`
    <section class="warnings" aria-label="Warnings">
      ${review.warnings.length
        ? html`
          <h2>⚠ ${review.warnings.length} warning${review.warnings.length === 1
            ? ""
            : "s"}: read before accepting</h2>
          <ul>${review.warnings.map((warning) => html`<li>${revealed(warning)}</li>`)}</ul>
        `
        : ""} ${format.length
        ? html`<p class="muted">Format: ${format.map(revealed).join("; ")}</p>`
        : ""}
    </section>
  `;
}

/** The tools its `allowed-tools` asks to run unasked, one checkbox per hob tool. */
function allowedTools(skill: SkillDetail, review: Review, waits: boolean): Html {
  const byTool = Map.groupBy(
    review.allowed_tools.filter((each) => each.grantable),
    (each) => each.tool!,
  );
  // hob grants a tool whole: an entry for some of its calls (Bash(git:*)) is never granted.
  const partial = review.allowed_tools.filter((each) => each.tool !== null && !each.grantable);
  const unknown = review.allowed_tools.filter((each) => each.tool === null);
  const ticked = (tool: string) =>
    skill.state === "changed" || skill.state === "active"
      ? skill.granted_tools.includes(tool)
      : true;
  return html`
    <h2>Runs without asking <span class="count">${byTool.size}</span></h2>
    <p class="section-note">What its <code>allowed-tools</code> asks to run without asking you.
      Untick what it should not: anything not ticked asks you first, as every tool with an effect
      does.</p>
    ${byTool.size === 0
      ? html`<p class="muted">Nothing: every tool with an effect asks you first.</p>`
      : html`<ul class="cards grants">${
        [...byTool].map(([tool, listed]) =>
          html`
            <li><label class="check"><input type="checkbox" name="tools" value="${tool}"${ticked(
                tool,
              )
              ? " checked"
              : ""}${waits ? "" : " disabled"}> <code>${tool}</code> <span class="pill ${listed[0]
                .side_effect === "none"
              ? "ok"
              : "warn"}">${SIDE_EFFECTS[listed[0].side_effect ?? "none"]}</span></label>
              <div class="muted">listed as ${listed.map((each) => revealed(each.listed)).join(
                ", ",
              )}</div></li>
          `
        )
      }</ul>`} ${partial.length
      ? html`
        <p
          class="muted">Ask you each time (hob grants a tool whole, never some of its calls): ${partial
            .map((each) => `${revealed(each.listed)} → ${each.tool}`).join(", ")}</p>
      `
      : ""} ${unknown.length
      ? html`<p class="muted">Not hob's tools, ignored: ${
        unknown.map((each) => revealed(each.listed)).join(", ")
      }</p>`
      : ""}
  `;
}

/** hob tools the instructions name: those not in `allowed-tools` ask each time. */
function toolsNamed(review: Review): Html {
  const granted = new Set(review.allowed_tools.map((each) => each.tool));
  return html`
    <h2>Tools its instructions name <span class="count">${review.tools_named.length}</span></h2>
    ${review.tools_named.length
      ? html`<ul class="perms">${
        review.tools_named.map((tool) =>
          html`<li><b>${tool}</b> ${
            granted.has(tool) ? "in its allowed-tools" : "asks you each time"
          }</li>`
        )
      }</ul>`
      : html`<p class="muted">None of hob's tools by name.</p>`}
  `;
}

/** Every script with how it runs and what it reaches; a checkbox for each host it may be granted. */
function scripts(review: Review, skill: SkillDetail, waits: boolean): Html {
  return html`
    <h2>Scripts <span class="count">${review.scripts.length}</span></h2>
    ${review.scripts.length === 0
      ? html`<p class="muted">No scripts: nothing of it runs as a program.</p>`
      : html`<ul class="cards">${
        review.scripts.map((script) =>
          html`
            <li data-script="${script.path}">
              <div class="card-head"><code class="title">${revealed(script.path)}</code><span
                class="pill">${script.language}</span><span class="pill ${script.runs ===
                    "tool process"
                  ? "info"
                  : "warn"}">${script.runs}</span></div>
              <div class="muted">Runs ${RUNS[script.runs]}.</div>
              <ul class="perms" aria-label="What it reaches for">${script.needs.length
                ? script.needs.map((need) => html`<li><b>${need}</b></li>`)
                : html`
                  <li>reaches for nothing</li>
                `}</ul>
              ${script.hosts.length
                ? html`
                  <fieldset
                    class="hosts"><legend>Hosts it may reach (none unless ticked)</legend>${script
                      .hosts.map((host) =>
                        html`
                          <label
                            class="check"><input type="checkbox" name="hosts" value="${host}"${skill
                                .granted_hosts.includes(host)
                              ? " checked"
                              : ""}${waits ? "" : " disabled"}> <code>${host}</code></label>
                        `
                      )}</fieldset>
                `
                : ""}
            </li>
          `
        )
      }</ul>`}
  `;
}

function addresses(review: Review): Html {
  return html`
    <h2>Network addresses <span class="count">${review.addresses.length}</span></h2>
    ${review.addresses.length
      ? html`<ul class="perms" aria-label="Every host its files name">${
        review.addresses.map((host) => html`<li><code>${host}</code></li>`)
      }</ul>`
      : html`<p class="muted">Its files name no address.</p>`}
  `;
}

function files(review: Review): Html {
  return html`
    <h2>Files <span class="count">${review.files.length}</span></h2>
    <div class="table-wrap">
      <table class="grid">
        <tbody>${review.files.map((file) =>
          html`
            <tr>
              <td><code>${revealed(file.path)}</code></td>
              <td>${size(file.size)}</td>
            </tr>
          `
        )}</tbody>
      </table>
    </div>
  `;
}

function size(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
