/**
 * The page's Tools view: every tool as a card in its category — its name,
 * what it does, whether hob asks first, and the permissions its calls get
 * (paths short, the whole path in a tooltip) — and the MCP servers, with each
 * tool that waits for the owner's approval shown whole. Plain HTML; every
 * value escaped by hono/html.
 */

import { html } from "hono/html";
import type { ToolInfo } from "../tools/registry.ts";
import type { McpServerStatus, McpToolInfo } from "../app/mcp.ts";
import { revealed } from "../core/revealed.ts";
import { at, cut, type Flash, flash, type Html, shortPath, viewHead } from "./view_parts.ts";

/** The MCP servers and their tools, for the Tools panel. */
export interface McpView {
  servers: McpServerStatus[];
  tools: McpToolInfo[];
}

/** What the Tools panel shows. */
export interface ToolsPanelOptions {
  /** The hob home, which the permissions' paths are shown relative to. */
  home: string;
  mcp?: McpView;
  message?: Flash;
}

/** The categories in the order people look for them; any other comes after, by name. */
const CATEGORY_ORDER = [
  "files",
  "web",
  "memory",
  "scheduling",
  "conversations",
  "delivery",
  "shell",
  "code",
  "data",
  "media",
  "time",
  "agents",
  "meta",
];

/**
 * The Tools panel.
 *
 * @example
 * ```ts
 * c.html(toolsPanel((await hob.app.tools.list()).tools, { home: hob.home }));
 * ```
 */
export function toolsPanel(tools: ToolInfo[], options: ToolsPanelOptions): Html {
  const { home, mcp, message } = options;
  return html`
    ${viewHead(
      "Tools",
      "What hob can use. Each call runs in a fresh Worker with only the permissions shown; the policy says whether hob asks you first.",
    )}
    ${flash(message)} ${mcp && mcp.servers.length ? mcpSection(mcp) : ""}
    ${byCategory(tools).map(([category, list]) =>
      html`
        <h2>${title(category)} <span class="count">${list.length}</span></h2>
        <ul class="cards wide tool-list">${list.map((tool) => toolCard(tool, home))}</ul>
      `
    )}
  `;
}

/** The tools grouped by category, the categories in `CATEGORY_ORDER`. */
function byCategory(tools: ToolInfo[]): [string, ToolInfo[]][] {
  const groups = Map.groupBy(
    tools,
    (tool) => tool.origin.kind === "user" ? "yours" : tool.category,
  );
  const rank = (name: string) => {
    const index = ["yours", ...CATEGORY_ORDER].indexOf(name);
    return index < 0 ? CATEGORY_ORDER.length + 1 : index;
  };
  return [...groups].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function title(category: string): string {
  if (category === "yours") return "Your tools";
  if (category === "mcp") return "From MCP servers";
  return category.charAt(0).toUpperCase() + category.slice(1);
}

function toolCard(tool: ToolInfo, home: string): Html {
  const policy = tool.effective_policy;
  const tone = policy === "allow" ? "ok" : policy === "deny" ? "bad" : "warn";
  return html`
    <li data-name="${tool.name}">
      <div class="card-head"><code class="title">${tool.name}</code>${tool.origin.kind === "user"
        ? html`<span class="pill info">yours</span>`
        : ""}<span class="pill ${tone} policy" title="The policy: whether hob asks you first">${policy}</span></div>
      <div class="muted">${cut(tool.description, 180)}</div>
      ${permissionList(tool.permissions, home)}
    </li>
  `;
}

/** One tag per permission a tool's calls get: what it may read, write, reach, see or run. */
function permissionList(permissions: unknown, home: string): Html {
  const tags = permissionTags(permissions, home);
  if (tags.length === 0) {
    return html`
      <ul class="perms">
        <li>no permissions</li>
      </ul>
    `;
  }
  return html`<ul class="perms" aria-label="Permissions">${
    tags.map(({ verb, what, whole }) => html`<li title="${whole}"><b>${verb}</b> ${what}</li>`)
  }</ul>`;
}

/** The words for each permission, and how its grants read. */
const VERBS: Record<string, string> = {
  read: "reads",
  write: "writes",
  net: "net",
  env: "env",
  run: "runs",
};

interface PermissionTag {
  verb: string;
  /** The grants, short. */
  what: string;
  /** The grants as they are. */
  whole: string;
}

function permissionTags(permissions: unknown, home: string): PermissionTag[] {
  if (!permissions || typeof permissions !== "object") return [];
  const tags: PermissionTag[] = [];
  for (const [key, value] of Object.entries(permissions as Record<string, unknown>)) {
    if (value === undefined || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const list = Array.isArray(value)
      ? value.map(String)
      : [value === true ? "any" : String(value)];
    const paths = key === "read" || key === "write";
    tags.push({
      verb: VERBS[key] ?? key,
      what: list.map((item) => paths ? shortPath(item, home) : item).join(", "),
      whole: `${key}: ${list.join(", ")}`,
    });
  }
  return tags;
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
    <p class="section-note">A server's tool descriptions are its words, and the model reads them. hob
      offers a tool only once you approved what it says; one that changes waits for you again.</p>
    <ul class="cards">${mcp.servers.map((server) =>
      html`
        <li data-server="${server.name}">
          <div class="card-head"><span class="title">${server
            .name}</span> <span class="pill ${server
              .state === "connected"
            ? "ok"
            : server.state === "failed"
            ? "bad"
            : ""}">${server.state}</span></div>
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
      ? html`<ul class="cards waiting" aria-label="Tools waiting for your approval">${
        waiting.map(waitingTool)
      }</ul>`
      : ""}
  `;
}

function waitingTool(tool: McpToolInfo): Html {
  const was = tool.approved;
  const schema = (value: unknown) => revealed(JSON.stringify(value, null, 2));
  const changedParameters = was &&
    JSON.stringify(was.parameters) !== JSON.stringify(tool.parameters);
  return html`
    <li data-tool="${tool.name}">
      <div class="card-head"><code class="title">${tool.name}</code> <span class="pill warn">${tool
          .approval === "new"
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
        <summary>Parameters${changedParameters ? " (changed)" : ""}</summary>
        <pre>${schema(tool.parameters)}</pre>
        ${changedParameters
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
