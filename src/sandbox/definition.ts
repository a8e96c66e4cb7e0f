/**
 * What a tool is: plain data — name, description, parameters, the Deno
 * permissions it needs, what its calls change — plus a `run` function that
 * executes inside a Worker holding exactly those permissions. A tool never
 * sees the agent, the database or the process's own permissions.
 */

import type { z } from "zod";
import type { JsonSchema } from "../core/types.ts";
import type { WriteInRootsOptions } from "./file_writes.ts";
import type { DirectoryListing, OpenedInRoots, OpenInRootsOptions } from "./paths.ts";
import type { ServiceMethod, ServiceParams, ServiceResult } from "./services.ts";

/**
 * Paths a tool may read or write. `$WORKSPACE` is HOME/workspace, `$ROOTS` the
 * workspace plus the roots listed in `tools.roots`, `$HOME` the hob home;
 * anything else is an absolute path.
 */
export type PathGrant = false | string[];

/** The Deno permissions a tool's Worker is created with; all default to none. */
export interface ToolPermissions {
  read?: PathGrant;
  write?: PathGrant;
  /** Hostnames (or host:port) it may connect to; `["*"]` for any. */
  net?: false | string[];
  /** Environment variables it may read. */
  env?: false | string[];
  /** Programs it may start. Subprocesses escape Deno's sandbox: calls pass a policy first. */
  run?: false | string[];
}

/** What a call changes: nothing, files on this machine, or the world outside it. */
export type SideEffect = "none" | "local" | "external";

/** What the user's policy says about calling a tool. */
export type ToolPolicy = "allow" | "ask" | "deny";

/**
 * Services of the hob process a built-in tool may use from its Worker, by
 * message: the model, child agents, the tool registry, skills. User tools get none.
 */
export type ServiceName =
  | "model"
  | "agent"
  | "tools"
  | "skills"
  | "memory"
  | "conversations"
  | "schedule"
  | "tasks"
  | "media";

/**
 * Calls a Worker makes to the hob process for a capability the tool declared,
 * typed by method (services.ts): a refused call rejects with the hob
 * process's message, which names the field at fault.
 */
export interface ServicesApi {
  call<M extends ServiceMethod>(method: M, params: ServiceParams<M>): Promise<ServiceResult<M>>;
}

/** What a tool's `run` gets besides its arguments. Everything here crosses into the Worker as data. */
export interface ToolContext {
  conversation_id: string;
  /** Aborted when the call is stopped; the Worker is terminated soon after. */
  signal: AbortSignal;
  now(): Date;
  /** HOME/workspace, where relative paths resolve. */
  workspace: string;
  /** The directories file tools may use: the workspace first, then `tools.roots`. */
  roots: string[];
  /** The hob home. */
  home: string;
  /** Settings for this tool from hob.yaml (`tools.settings.<name>`) and hob's own. */
  settings: Record<string, unknown>;
  /**
   * Resolves a path through the containment check ({@link resolveInRoots}). Only
   * a name: opening it later walks the path again, and a directory on it may have
   * been swapped by then. To read or write, use openFile, readDirectory or writeFile.
   */
  resolvePath(path: string, options?: { allowMissing?: boolean }): Promise<string>;
  /**
   * Opens a file (reading by default) through the containment check and proves
   * the handle holds the file the check found ({@link openInRoots}); read and
   * write through `file`, then close it (`using` does).
   */
  openFile(path: string, options?: OpenInRootsOptions): Promise<OpenedInRoots>;
  /** Lists a directory between two identity checks of it ({@link readDirInRoots}). */
  readDirectory(
    path: string,
    options?: { details?: boolean; real?: boolean },
  ): Promise<DirectoryListing>;
  /**
   * Writes a file, making missing parents: atomically replaced, or appended to,
   * and verified to have landed inside the roots ({@link writeInRoots}). Returns
   * the real path written.
   */
  writeFile(
    path: string,
    content: string | Uint8Array,
    options?: WriteInRootsOptions,
  ): Promise<string>;
  services: ServicesApi;
}

/** The review a built-in tool may give its own arguments before any Worker starts. */
export interface ToolReview {
  /** What the policy makes of this call; `undefined` keeps the tool's policy. */
  decision?: ToolPolicy;
  /** Why, in words shown to the user when approval is asked and to the model when denied. */
  reason?: string;
  /** The argument shape an approval may be remembered for (e.g. the programs a command runs). */
  shape?: string;
}

/**
 * What a tool's review can decide under its settings, for showing the policy
 * in effect before any call: some calls pass as configured (`passes` names
 * them), the rest get `otherwise`.
 */
export interface ReviewRange {
  /** The calls the review lets through as configured, in a word or two ("allowlist"); absent when none. */
  passes?: string;
  /** What the review makes of every other call. */
  otherwise: ToolPolicy;
}

/** A tool. */
export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  category: string;
  /** A zod schema, or a JSON Schema object (for tools that import nothing). */
  parameters: z.ZodType<Args> | JsonSchema;
  /**
   * What the Worker may touch; a function when it depends on the tool's settings
   * (email_file reaches only the configured SMTP server).
   * @default {{}} no permissions at all
   */
  permissions?: ToolPermissions | ((settings: Record<string, unknown>) => ToolPermissions);
  side_effect: SideEffect;
  /** The policy when hob.yaml names none; defaults to `ask` for external side effects, else `allow`. */
  default_policy?: ToolPolicy;
  /**
   * Whether its output (and its errors) may hold outside text — a page, a file or
   * a file's name, a program's output, a server's error. Untrusted unless proven
   * otherwise: the registry labels it, and the turn that reads it becomes tainted.
   * `false` says hob writes every word itself (only data the hob process hands it
   * may carry labels, which are kept); each such built-in is reviewed in
   * tests/core/provenance_test.ts.
   * @default {true}
   */
  untrusted_output?: boolean;
  /**
   * Whether its output is content from outside whose links a tainted turn
   * may follow unasked: a page, search results, a file — never text it
   * computed from its arguments (see src/tools/call_reach.ts).
   * @default {false}
   */
  output_links?: boolean;
  /**
   * The addresses a call sends what the model gave it to (built-in tools
   * only): fetch_url's URL. In a tainted turn each must be one the turn was
   * pointed at, or the owner is asked (src/tools/call_reach.ts).
   */
  reaches?(args: Args, settings: Record<string, unknown>): string[];
  /** Services of the hob process the tool calls (built-in tools only). */
  services?: ServiceName[];
  /**
   * How long one call may take before its Worker is terminated.
   * @default {30_000}
   */
  timeout_ms?: number | ((args: Args) => number);
  /**
   * Longest output kept (head and tail, with a marker between).
   * @default {10_000}
   */
  max_output_chars?: number;
  /**
   * Runs in the hob process before any Worker (built-in tools only): looks at
   * the arguments and tightens the policy, e.g. the shell policy for a command.
   */
  review?(args: Args, settings: Record<string, unknown>): Promise<ToolReview> | ToolReview;
  /** What {@linkcode review} can decide under these settings; a tool with a review says. */
  review_range?(settings: Record<string, unknown>): ReviewRange;
  run(args: Args, context: ToolContext): Promise<string> | string;
}

/**
 * Declares a tool, inferring its argument type from a zod `parameters`.
 *
 * @example
 * ```ts
 * export default defineTool({
 *   name: "shout",
 *   description: "Upper-cases text",
 *   category: "text",
 *   parameters: z.object({ text: z.string() }),
 *   side_effect: "none",
 *   run: ({ text }) => text.toUpperCase(),
 * });
 * ```
 */
export function defineTool<Args>(
  tool: ToolDefinition<Args> & { parameters: z.ZodType<Args> },
): ToolDefinition<Args> {
  return tool;
}
