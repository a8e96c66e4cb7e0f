/**
 * Wiring the tools: the registry with every built-in, the user's tools and
 * skills from the home (reloaded when their files change), the Worker
 * spawner, approvals and the audit log, with the settings from hob.yaml. The
 * tools themselves load when first needed (see `Toolbox.ready`): a command
 * that calls none, like `hob status`, loads no tool module.
 */

import type { DatabaseSync } from "node:sqlite";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { HobConfig } from "../config/schema.ts";
import type { MemoryFiles } from "../memory/files.ts";
import type { WrittenBy } from "../store/versions.ts";
import { SqliteApprovals } from "../store/approvals.ts";
import { SqliteInspections } from "../store/inspections.ts";
import { SqliteToolEvents } from "../store/tool_events.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { PermissionScope } from "../sandbox/permissions.ts";
import type { ToolDescription } from "../sandbox/protocol.ts";
import { ToolSpawner } from "../sandbox/spawner.ts";
import { SANDBOX_ENTRIES } from "../builtins/sandbox_entries.ts";
import { TEMPLATE_INSPECTIONS } from "../tools/template_inspections.gen.ts";
import {
  type InspectionCache,
  type LoadProblem,
  loadUserTool,
  loadUserTools,
  loadWorkflow,
  loadWorkflows,
  type UserToolOptions,
  type Workflow,
  WORKFLOW_NAME,
} from "../tools/user_tools.ts";
import { VERSION } from "../version.ts";

/** How long file changes settle before tools are reloaded. */
const RELOAD_DEBOUNCE_MS = 200;

/** The tools of one runtime. */
export interface Toolbox {
  registry: ToolRegistry;
  approvals: SqliteApprovals;
  events: SqliteToolEvents;
  spawner: ToolSpawner;
  scope: PermissionScope;
  /** The user's workflows (HOME/skills/*.ts, run as `/name`) by name. */
  workflows: Map<string, Workflow>;
  /**
   * Settles when the built-in tools, then the user's tools and skills, are
   * loaded. Loading starts when this is first read (or at `watch`); it
   * inspects each user tool in a Worker, so it runs beside start-up.
   */
  readonly ready: Promise<void>;
  /** User tools and skills that were refused, and why. */
  problems(): LoadProblem[];
  /** Loads HOME/tools and HOME/skills again. */
  reload(): Promise<void>;
  /** Reloads whenever HOME/tools or HOME/skills change, until closed. */
  watch(): void;
  /** Writes, checks and registers a new user tool; never overwrites. */
  buildTool(name: string, description: string, code: string, by: WrittenBy): Promise<string>;
  /** Writes and checks a new skill; never overwrites. */
  buildWorkflow(name: string, description: string, code: string, by: WrittenBy): Promise<string>;
  close(): void;
}

/** Opens the tools of a home. */
export async function openToolbox(
  options: {
    home: string;
    config: HobConfig;
    db: DatabaseSync;
    now: () => Date;
    /** The writer of the home's versioned files (each write a version), for built tools and skills. */
    files: MemoryFiles;
  },
): Promise<Toolbox> {
  const { home, config } = options;
  const scope = await permissionScope(home, config.tools.roots);
  const spawner = new ToolSpawner({ entries: SANDBOX_ENTRIES });
  const approvals = new SqliteApprovals(options.db);
  const events = new SqliteToolEvents(options.db);
  approvals.expireOverdue();
  const registry = toolRegistry(config, { scope, spawner, approvals, events, now: options.now });
  const builtins = builtinLoader(registry);
  const inspections = new SqliteInspections<ToolDescription>(
    options.db,
    `${VERSION}/${Deno.version.deno}`,
  );
  const user = userToolsAndSkills({
    home,
    config,
    registry,
    spawner,
    scope,
    builtins,
    inspections,
    files: options.files,
  });
  let loading: Promise<void> | undefined;
  const load = () =>
    loading ??= Promise.all([
      builtins.load(),
      user.reload().catch((error) => console.error("hob: loading user tools:", error)),
    ]).then(() => {});
  let watcher: Deno.FsWatcher | undefined;

  return {
    get ready() {
      return load();
    },
    registry,
    approvals,
    events,
    spawner,
    scope,
    workflows: user.workflows,
    problems: user.problems,
    reload: user.reload,
    watch() {
      load().catch((error) => console.error("hob: loading tools:", error));
      watcher ??= watchUserFiles(user.dirs, user.reload);
    },
    buildTool: user.buildTool,
    buildWorkflow: user.buildWorkflow,
    close() {
      watcher?.close();
      spawner.close();
    },
  };
}

/** Where tools may reach: the workspace, the uploads and the roots from hob.yaml, resolved. */
async function permissionScope(home: string, configured: string[]): Promise<PermissionScope> {
  const workspace = await Deno.realPath(join(home, "workspace")).catch(() =>
    join(home, "workspace")
  );
  // Files the user sends with messages are there for the agent's tools to read.
  const uploads = await Deno.realPath(join(home, "uploads")).catch(() => join(home, "uploads"));
  const roots = [
    workspace,
    uploads,
    ...await Promise.all(configured.map((root) => expandRoot(root, home))),
  ];
  return { workspace, roots, home };
}

/** The registry with hob.yaml's tool settings; the built-in tools join it through builtinLoader. */
function toolRegistry(
  config: HobConfig,
  parts: {
    scope: PermissionScope;
    spawner: ToolSpawner;
    approvals: SqliteApprovals;
    events: SqliteToolEvents;
    now: () => Date;
  },
): ToolRegistry {
  const web = {
    allow_private: config.tools.web.allow_private,
    allow_hosts: config.tools.web.allow_hosts,
    dns_server: config.tools.web.dns_server,
    search: config.tools.web.search,
  };
  const registry = new ToolRegistry({
    ...parts,
    policies: config.tools.policies,
    taint: config.tools.taint,
    outputCapChars: config.tools.output_cap,
    approvalTimeoutMs: config.tools.approval_timeout_s * 1000,
    settings: {
      "*": { roots: parts.scope.roots },
      run_command: { shell: config.tools.shell },
      run_python: { shell: config.tools.shell, python: config.tools.python },
      fetch_url: { web },
      web_search: { web },
      email_file: { email: config.email },
    },
  });
  return registry;
}

/** The built-in tools' names, and registering them all, once, when first needed. */
interface Builtins {
  /** Filled in by `load`. */
  names: Set<string>;
  load(): Promise<void>;
}

/**
 * Registers every built-in tool from the manifest on first need: listed and
 * offered from data, each tool's module (and the libraries it runs with)
 * loaded at its first call, not when a home opens or a turn lists tools.
 */
function builtinLoader(registry: ToolRegistry): Builtins {
  const names = new Set<string>();
  let loading: Promise<void> | undefined;
  return {
    names,
    load: () =>
      loading ??= Promise.all([
        import("../builtins/manifest.gen.ts"),
        import("../builtins/settings_dependent.ts"),
      ]).then(([{ BUILTIN_MANIFEST }, { SETTINGS_DEPENDENT }]) => {
        for (const entry of BUILTIN_MANIFEST) {
          names.add(entry.name);
          registry.registerListed(entry, SETTINGS_DEPENDENT[entry.name]);
        }
      }),
  };
}

/** What the user's tools and skills are loaded with. */
interface UserFilesOptions {
  home: string;
  config: HobConfig;
  registry: ToolRegistry;
  spawner: ToolSpawner;
  scope: PermissionScope;
  builtins: Builtins;
  inspections: SqliteInspections<ToolDescription>;
  /** The writer of the home's versioned files: a built tool or skill is a version. */
  files: MemoryFiles;
}

/**
 * The user's tools (registered in `registry`) and skills from HOME/tools and
 * HOME/skills: loading them again, and building new ones.
 */
function userToolsAndSkills(options: UserFilesOptions) {
  const { registry, spawner, builtins } = options;
  const reserved = builtins.names;
  const inspections = usedInspections(options.inspections);
  const userOptions: UserToolOptions = {
    spawner,
    inspections,
    scope: options.scope,
    allowed: options.config.tools.user_tools,
    // Each user tool is inspected (in a process of its own) while the built-ins load.
    get reserved() {
      return builtins.load().then(() => reserved);
    },
  };
  const toolsDir = join(options.home, "tools");
  const skillsDir = join(options.home, "skills");
  const workflows = new Map<string, Workflow>();
  let userTools = new Set<string>();
  let problems: LoadProblem[] = [];

  async function reload(): Promise<void> {
    inspections.used.clear();
    const [loadedTools, loadedSkills] = await Promise.all([
      loadUserTools(toolsDir, userOptions),
      loadWorkflows(skillsDir, spawner, inspections),
      // User tools join the registry after the built-ins, and their names are checked against them.
      builtins.load(),
    ]);
    for (const name of userTools) registry.unregister(name);
    userTools = new Set(loadedTools.tools.map((tool) => tool.name));
    for (const tool of loadedTools.tools) registry.registerUser(tool);
    workflows.clear();
    for (const workflow of loadedSkills.workflows) workflows.set(workflow.name, workflow);
    problems = [...loadedTools.problems, ...loadedSkills.problems];
    // What no file holds any more is forgotten.
    inspections.keepOnly(inspections.used);
  }

  const write = (path: string, code: string, kind: "tool" | "skill", by: WrittenBy) =>
    writeAndLoad(options.files, { path, code, kind, by });

  async function buildTool(
    name: string,
    description: string,
    code: string,
    by: WrittenBy,
  ): Promise<string> {
    await builtins.load();
    if (reserved.has(name) || registry.get(name)) {
      throw new Error(
        `A tool named '${name}' exists already; pick another name (tools are never overwritten)`,
      );
    }
    const tool = await write(`tools/${name}.ts`, code, "tool", by)(
      (file) => loadUserTool(file, userOptions),
    );
    if (!tool.description) tool.description = description;
    registry.registerUser(tool);
    userTools.add(tool.name);
    const granted = Object.entries(tool.declared)
      .filter(([, grant]) => Array.isArray(grant) && grant.length > 0)
      .map(([kind, grant]) => `${kind}: ${(grant as string[]).join(", ")}`);
    return `Built the tool '${name}' (${
      granted.length ? granted.join("; ") : "no permissions"
    }). It can be called now.`;
  }

  async function buildWorkflow(
    name: string,
    description: string,
    code: string,
    by: WrittenBy,
  ): Promise<string> {
    if (!WORKFLOW_NAME.test(name)) throw new Error(`'${name}' is not a valid skill name`);
    if (workflows.has(name)) {
      throw new Error(
        `A skill named '${name}' exists already; pick another name (skills are never overwritten)`,
      );
    }
    const skill = await write(`skills/${name}.ts`, code, "skill", by)(
      (file) => loadWorkflow(file, spawner, inspections),
    );
    if (!skill.description) skill.description = description;
    workflows.set(skill.name, skill);
    return `Built the skill '${name}'. Run it with /${name} <input> in chat, or run_skill.`;
  }

  return {
    dirs: [toolsDir, skillsDir],
    workflows,
    problems: () => problems,
    reload,
    buildTool,
    buildWorkflow,
  };
}

/**
 * The inspection cache, noting the keys a reload used (so the rest can go).
 * The example tools and skill a new home gets are known already, as the very
 * bytes hob wrote: a new home's first chat need not wait for a tool process
 * to inspect each of them.
 */
function usedInspections(
  store: SqliteInspections<ToolDescription>,
): InspectionCache & { used: Set<string> } {
  const used = new Set<string>();
  return {
    used,
    get(key) {
      used.add(key);
      return store.get(key) ??
        (Object.hasOwn(TEMPLATE_INSPECTIONS, key)
          ? structuredClone(TEMPLATE_INSPECTIONS[key])
          : undefined);
    },
    set(key, description) {
      used.add(key);
      store.set(key, description);
    },
    keepOnly: (keys) => store.keepOnly(keys),
  };
}

/** Calls `reload` once `.ts` files under `dirs` have stopped changing, until the watcher closes. */
function watchUserFiles(dirs: string[], reload: () => Promise<void>): Deno.FsWatcher {
  const watcher = Deno.watchFs(dirs);
  (async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    for await (const event of watcher) {
      if (!event.paths.some((path) => path.endsWith(".ts"))) continue;
      clearTimeout(timer);
      timer = setTimeout(
        () => reload().catch((error) => console.error("hob: reloading tools:", error)),
        RELOAD_DEBOUNCE_MS,
      );
    }
  })().catch(() => {/* closed */});
  return watcher;
}

/** A root from hob.yaml: `~/x` in the user's home, relative paths in the hob home. */
async function expandRoot(root: string, home: string): Promise<string> {
  const userHome = Deno.env.get("HOME") ?? home;
  const expanded = root === "~"
    ? userHome
    : root.startsWith("~/")
    ? join(userHome, root.slice(2))
    : root;
  const absolute = isAbsolute(expanded) ? expanded : resolve(home, expanded);
  return await Deno.realPath(absolute).catch(() => absolute);
}

/**
 * Writes a new tool or skill file (never over an existing one; recorded as a
 * version) and returns a function that loads it; on any failure the
 * file is deleted — a version too — so nothing half-built stays behind.
 */
function writeAndLoad(
  files: MemoryFiles,
  build: { path: string; code: string; kind: "tool" | "skill"; by: WrittenBy },
) {
  const { path, code, kind, by } = build;
  return async <T>(load: (file: string) => Promise<T>): Promise<T> => {
    try {
      await files.create(path, code, by);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new Error(`${basename(path)} exists already; a ${kind} is never overwritten`);
      }
      throw error;
    }
    try {
      return await load(join(files.dir, path));
    } catch (error) {
      await files.remove(path, { ...by, via: `${by.via} (did not load)` }).catch(() => {});
      throw new Error(`The ${kind} was not built: ${(error as Error).message}`);
    }
  };
}
