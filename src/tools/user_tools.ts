/**
 * The user's own tools: every `*.ts` in HOME/tools. A tool's source is read by
 * the hob process and inspected in a tool process (an OS process of its own)
 * with no permissions at all; only then, if it asks for no more than the
 * user's policy allows, is it registered — to run in a tool process with
 * exactly what it declared. Skills (HOME/skills) are inspected the same way.
 */

import { basename, join } from "node:path";
import { z } from "zod";
import type { SideEffect, ToolPermissions } from "../sandbox/definition.ts";
import { type RegisteredTool, TOOL_NAME } from "./registry.ts";
import {
  excessOf,
  NO_PERMISSIONS,
  type PermissionScope,
  resolvePermissions,
} from "../sandbox/permissions.ts";
import type { ToolDescription } from "../sandbox/protocol.ts";
import type { ToolSpawner } from "../sandbox/spawner.ts";
import { Buffer } from "node:buffer";
import { compareText } from "../core/text_order.ts";

/** Largest tool or skill source read. */
const MAX_SOURCE_BYTES = 200_000;
/** How long inspecting a module may take. */
const INSPECT_TIMEOUT_MS = 10_000;
/** Longest a user tool may ask to run. */
const MAX_USER_TIMEOUT_MS = 600_000;

/** A user tool or skill that could not be loaded, and why. */
export interface LoadProblem {
  file: string;
  error: string;
}

/** Raised when a user tool or skill is refused; the message says why. */
export class UserToolError extends Error {
  override name = "UserToolError";
}

/** Side effects from the least to the most. */
const SIDE_EFFECTS = ["none", "local", "external"] as const satisfies readonly SideEffect[];

const pathGrant = z.union([z.literal(false), z.array(z.string())]);
const descriptionSchema = z.object({
  name: z.string().regex(
    TOOL_NAME,
    "must be lower-case letters, digits and _, starting with a letter",
  ),
  description: z.string().min(1, "must say what the tool does").max(4_000),
  category: z.string().min(1).max(40).default("user"),
  parameters: z.record(z.string(), z.unknown()),
  permissions: z.strictObject({
    read: pathGrant.optional(),
    write: pathGrant.optional(),
    net: pathGrant.optional(),
    env: pathGrant.optional(),
    run: pathGrant.optional(),
  }).default({}),
  /** What the tool says its calls change; it gets the stricter of this and {@linkcode impliedSideEffect}. */
  side_effect: z.enum(SIDE_EFFECTS, {
    message: "must be none, local or external",
  }),
  default_policy: z.enum(["allow", "ask", "deny"]).optional(),
  /**
   * Whether the output comes from outside. Always when the tool may read, reach
   * the net or run ({@linkcode mayBringInOutside}); a tool may add it, never take it away.
   */
  untrusted_output: z.boolean().optional(),
  services: z.array(z.string()).max(0, "user tools cannot use hob's services").optional(),
  timeout_ms: z.number().int().min(100).max(MAX_USER_TIMEOUT_MS).optional(),
  max_output_chars: z.number().int().min(100).max(200_000).optional(),
});

/**
 * Permissions as a tool declares them or a Worker gets them: a grant is given
 * when it is `true` or lists something.
 */
type Grants = Partial<Record<keyof ToolPermissions, boolean | string[] | undefined>>;

/** Whether a grant gives anything: `false`, absent and `[]` give nothing. */
function granted(grant: boolean | string[] | undefined): boolean {
  return Array.isArray(grant) ? grant.length > 0 : grant === true;
}

/**
 * The least side effect a tool holding these permissions can have, whatever
 * its label says: writing files changes this machine; the net and programs
 * reach past it (a GET's URL can carry data out, a program can do anything).
 *
 * @example
 * ```ts
 * impliedSideEffect({ read: ["$WORKSPACE"], write: ["$WORKSPACE"] }); // "local"
 * ```
 */
export function impliedSideEffect(permissions: Grants): SideEffect {
  if (granted(permissions.net) || granted(permissions.run)) return "external";
  if (granted(permissions.write)) return "local";
  return "none";
}

/**
 * The side effect in force: the stricter of the tool's label and what its
 * permissions imply, so a label cannot talk a tool out of approval or taint.
 *
 * @example
 * ```ts
 * effectiveSideEffect("none", { net: ["*"] }); // "external"
 * ```
 */
export function effectiveSideEffect(label: SideEffect, permissions: Grants): SideEffect {
  const implied = impliedSideEffect(permissions);
  return SIDE_EFFECTS.indexOf(label) >= SIDE_EFFECTS.indexOf(implied) ? label : implied;
}

/**
 * Whether a tool's output can come from outside hob: it may read files, reach
 * the net or run programs. Such output is untrusted whatever the tool says.
 *
 * @example
 * ```ts
 * mayBringInOutside({ read: ["$WORKSPACE"] }); // true
 * ```
 */
export function mayBringInOutside(permissions: Grants): boolean {
  return granted(permissions.read) || granted(permissions.net) || granted(permissions.run);
}

/**
 * What modules said they were, by their source's hash: a module is inspected
 * in a process once per content, not at every start (hob.db keeps them).
 */
export interface InspectionCache {
  get(key: string): ToolDescription | undefined;
  set(key: string, description: ToolDescription): void;
  /** Forgets every entry but `keys`: the sources that exist now. */
  keepOnly(keys: ReadonlySet<string>): void;
}

/** What loading user tools needs. */
export interface UserToolOptions {
  spawner: ToolSpawner;
  /** Descriptions of sources inspected before; none means every load inspects. */
  inspections?: InspectionCache;
  scope: PermissionScope;
  /** The most a user tool may ask for (`tools.user_tools`). */
  allowed: ToolPermissions;
  /**
   * Names taken by built-in tools; awaited only once a tool has been
   * inspected, so inspecting need not wait for the built-ins to load.
   */
  reserved: ReadonlySet<string> | Promise<ReadonlySet<string>>;
}

/**
 * Loads one user tool file, or throws a UserToolError saying why not.
 *
 * @example
 * ```ts
 * const tool = await loadUserTool(`${home}/tools/shout.ts`, options);
 * registry.registerUser(tool);
 * ```
 */
export async function loadUserTool(
  file: string,
  options: UserToolOptions,
): Promise<RegisteredTool> {
  const url = await sourceUrl(file);
  const described = await inspect(options.spawner, url, "tool", options.inspections);
  const parsed = descriptionSchema.safeParse(described);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserToolError(`its ${issue.path.join(".") || "definition"} ${issue.message}`);
  }
  const tool = parsed.data;
  const stem = basename(file, ".ts");
  if (tool.name !== stem) {
    throw new UserToolError(
      `it defines '${tool.name}' but the file is named '${stem}.ts'; they must match`,
    );
  }
  if ((await options.reserved).has(tool.name)) {
    throw new UserToolError(`a built-in tool is already named '${tool.name}'`);
  }
  let permissions;
  let allowed;
  try {
    permissions = resolvePermissions(tool.permissions as ToolPermissions, options.scope);
    allowed = resolvePermissions(options.allowed, options.scope);
  } catch (error) {
    throw new UserToolError((error as Error).message);
  }
  const excess = excessOf(permissions, allowed);
  if (excess) {
    throw new UserToolError(
      `it asks for ${excess}, which the user's policy (tools.user_tools in hob.yaml) does not allow`,
    );
  }
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(tool.parameters as never);
  } catch (error) {
    throw new UserToolError(
      `its parameters are not a JSON Schema hob can read: ${(error as Error).message}`,
    );
  }
  return {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    parameters: tool.parameters,
    validator,
    declared: tool.permissions as ToolPermissions,
    permissions,
    // What the permissions allow, not what the label claims: the list shows this one.
    side_effect: effectiveSideEffect(tool.side_effect, permissions),
    default_policy: tool.default_policy,
    untrusted_output: tool.untrusted_output === true || mayBringInOutside(permissions),
    services: [],
    timeout: () => tool.timeout_ms ?? 30_000,
    max_output_chars: tool.max_output_chars,
    ref: { kind: "source", url },
    origin: { kind: "user", file },
  };
}

/** Loads every `*.ts` in `dir`; the ones that fail are reported, not thrown. */
export async function loadUserTools(
  dir: string,
  options: UserToolOptions,
): Promise<{ tools: RegisteredTool[]; problems: LoadProblem[] }> {
  const { loaded, problems } = await loadEach(dir, (file) => loadUserTool(file, options));
  return { tools: loaded, problems };
}

/** A skill: a workflow module run as `/name input`. */
export interface Workflow {
  name: string;
  description: string;
  file: string;
  url: string;
}

/** Valid skill names: what a user types after `/`. */
export const WORKFLOW_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Loads one skill file, or throws a UserToolError saying why not. */
export async function loadWorkflow(
  file: string,
  spawner: ToolSpawner,
  inspections?: InspectionCache,
): Promise<Workflow> {
  const url = await sourceUrl(file);
  const described = await inspect(spawner, url, "skill", inspections);
  const stem = basename(file, ".ts");
  if (!WORKFLOW_NAME.test(described.name)) {
    throw new UserToolError(
      `its name '${described.name}' must be lower-case letters, digits, _ and -`,
    );
  }
  if (described.name !== stem) {
    throw new UserToolError(
      `it defines '${described.name}' but the file is named '${stem}.ts'; they must match`,
    );
  }
  return { name: described.name, description: described.description, file, url };
}

/** Loads every skill in `dir`. */
export async function loadWorkflows(
  dir: string,
  spawner: ToolSpawner,
  inspections?: InspectionCache,
): Promise<{ workflows: Workflow[]; problems: LoadProblem[] }> {
  const { loaded, problems } = await loadEach(
    dir,
    (file) => loadWorkflow(file, spawner, inspections),
  );
  return { workflows: loaded, problems };
}

/** Loads every `*.ts` of a directory at once; failures become problems, in file order. */
async function loadEach<T extends { name: string }>(
  dir: string,
  load: (file: string) => Promise<T>,
): Promise<{ loaded: T[]; problems: LoadProblem[] }> {
  const loaded: T[] = [];
  const problems: LoadProblem[] = [];
  await Promise.all((await tsFiles(dir)).map(async (file) => {
    try {
      loaded.push(await load(file));
    } catch (error) {
      problems.push({
        file,
        error: `${basename(file)} was not loaded: ${(error as Error).message}`,
      });
    }
  }));
  loaded.sort((a, b) => compareText(a.name, b.name));
  problems.sort((a, b) => compareText(a.file, b.file));
  return { loaded, problems };
}

async function tsFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.startsWith(".")) {
        files.push(join(dir, entry.name));
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files.sort();
}

/** The source as a data: URL, so a Worker loads it without any read permission. */
async function sourceUrl(file: string): Promise<string> {
  const info = await Deno.stat(file);
  if (info.size > MAX_SOURCE_BYTES) {
    throw new UserToolError(`it is larger than ${MAX_SOURCE_BYTES} bytes`);
  }
  const bytes = await Deno.readFile(file);
  return `data:application/typescript;base64,${Buffer.from(bytes).toString("base64")}`;
}

/**
 * What the module at `url` says it is, from a process with no permissions —
 * or from `cache`, when this very source said it before. A module that does
 * not load is inspected again each time (its error may have been the
 * machine's), and never cached.
 */
async function inspect(
  spawner: ToolSpawner,
  url: string,
  as: "tool" | "skill",
  cache?: InspectionCache,
): Promise<ToolDescription> {
  const key = await inspectionKey(url, as);
  const cached = cache?.get(key);
  if (cached) return cached;
  const outcome = await spawner.exchange(NO_PERMISSIONS, { type: "describe", url, as }, {
    timeoutMs: INSPECT_TIMEOUT_MS,
  });
  if (!outcome.ok) throw new UserToolError(doesNotLoad(outcome.error));
  const message = outcome.message;
  if (message.type !== "description") throw new UserToolError("it does not load");
  if (!message.ok) throw new UserToolError(doesNotLoad(message.error));
  cache?.set(key, message.tool);
  return message.tool;
}

/**
 * Why a module does not load, in words the owner can act on: Deno's own,
 * and when it could not find a package, what a tool may import.
 */
function doesNotLoad(error: string): string {
  const unpinned = /lockfile is out of date|not found in cache|--cached-only|for package "/i.test(
    error,
  );
  return unpinned
    ? "it imports a package hob does not have (a tool may import only what hob's deno.json " +
      `names, at its lockfile's versions): ${error}`
    : `it does not load: ${error}`;
}

/**
 * A source's key in an {@linkcode InspectionCache}: what it is loaded as and
 * the SHA-256 of its bytes (the data: URL is the whole module).
 *
 * @example
 * ```ts
 * await inspectionKey("data:application/typescript;base64,…", "tool"); // "tool:9f86d081…"
 * ```
 */
export async function inspectionKey(url: string, as: "tool" | "skill"): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url));
  return `${as}:${Buffer.from(digest).toString("hex")}`;
}
