/**
 * The tool registry: the built-in and user tools, their schemas for the model,
 * and the path every call takes, one step per file — arguments parsed and
 * validated (call_arguments.ts), the policy decided (call_policy.ts), the call
 * cleared or the user asked (call_approval.ts), run in a sandbox with exactly
 * the tool's permissions (call_dispatch.ts), its output capped and labelled
 * (call_label.ts) and the call logged (call_audit.ts).
 * Nothing here throws at the agent: every failure is an `is_error` result.
 */

import type { ToolCallContext, ToolRegistryPort } from "../core/ports.ts";
import type { JsonSchema, ToolCall, ToolResult, ToolSpec } from "../core/types.ts";
import {
  builtinMeta,
  type ListedBuiltin,
  type SettingsDependent,
  validatorOf,
} from "./builtin_meta.ts";
import { hobWrote, unwrap } from "../core/untrusted.ts";
import type { SqliteApprovals } from "../store/approvals.ts";
import type { SqliteToolEvents } from "../store/tool_events.ts";
import type { SideEffect, ToolDefinition, ToolPolicy } from "../sandbox/definition.ts";
import { parseArguments } from "./call_arguments.ts";
import { labelledSpec } from "./third_party.ts";
import { auditCall, type LoggedResult } from "./call_audit.ts";
import { clearCall } from "./call_approval.ts";
import { dispatchCall } from "./call_dispatch.ts";
import { labelOutput } from "./call_label.ts";
import { configuredPolicy, decidePolicy, effectivePolicy, type TaintRule } from "./call_policy.ts";
import {
  type CallSource,
  type HobServices,
  isRefusal,
  type ListedTool,
  type RegisteredTool,
  type ToolOrigin,
} from "./registry_types.ts";
import {
  type PermissionScope,
  resolvePermissions,
  type SandboxPermissions,
} from "../sandbox/permissions.ts";
import type { ToolSpawner } from "../sandbox/spawner.ts";

// The types callers of the registry use, defined beside the steps that share them.
export type {
  CallSource,
  HobService,
  HobServices,
  InProcessRun,
  ListedTool,
  RegisteredTool,
  ServiceCallContext,
  ToolOrigin,
} from "./registry_types.ts";

/** Default time one tool call may take. */
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Valid tool names: what every provider accepts. */
export const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** What GET /api/tools shows of a tool. */
export interface ToolInfo {
  name: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  permissions: SandboxPermissions;
  side_effect: SideEffect;
  /** The configured policy: hob.yaml's, else the tool's own. */
  policy: ToolPolicy;
  /** What calls get, in words: the policy with what the tool's review makes of it ("allowlist, else ask"). */
  effective_policy: string;
  origin: ToolOrigin;
}

/** What the registry is built on. */
export interface ToolRegistryOptions {
  scope: PermissionScope;
  spawner: ToolSpawner;
  approvals: SqliteApprovals;
  events: SqliteToolEvents;
  /** Per-tool policies from hob.yaml. */
  policies?: Record<string, ToolPolicy>;
  /** Whether a tainted turn's side effects need approval (on by default), and the exceptions. */
  taint?: TaintRule;
  /** Settings each tool gets in its context, by tool name, plus `*` for all. */
  settings?: Record<string, Record<string, unknown>>;
  /** Longest output kept, unless the tool sets its own (hob.yaml's `tools.output_cap`). */
  outputCapChars: number;
  /** How long a call waits for the user's decision (hob.yaml's `tools.approval_timeout_s`). */
  approvalTimeoutMs: number;
  now?: () => Date;
}

/**
 * The result of a call the owner made directly, plus the id of its audit-log
 * row. The owner reads outside text as it is: it is labelled only for a model
 * (a call from an MCP client keeps its labels).
 */
export interface InvokeResult {
  content: string;
  is_error: boolean;
  event_id: number;
  duration_ms: number;
}

/**
 * The registry. One per runtime.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry({
 *   scope,
 *   spawner,
 *   approvals,
 *   events,
 *   outputCapChars: config.tools.output_cap,
 *   approvalTimeoutMs: config.tools.approval_timeout_s * 1000,
 * });
 * registry.registerBuiltin(readFile);
 * await registry.execute({ id: "1", name: "read_file", arguments: '{"path":"a.txt"}' }, { conversation_id });
 * ```
 */
export class ToolRegistry implements ToolRegistryPort {
  readonly #tools = new Map<string, RegisteredTool | ListedTool>();
  /** Built-in modules being loaded for a first call, by tool name. */
  readonly #loading = new Map<string, Promise<RegisteredTool>>();
  readonly #options: ToolRegistryOptions;
  #services: HobServices | null = null;
  #skillGrants: (skills: readonly string[]) => string[] = () => [];
  #specs: ToolSpec[] | null = null;

  constructor(options: ToolRegistryOptions) {
    this.#options = options;
  }

  /** Connects the hob services tools may call (set once the agent exists). */
  setServices(services: HobServices): void {
    this.#services = services;
  }

  /**
   * How the tools the owner granted Agent Skills are looked up (by the
   * skills' names): until set, a skill grants nothing.
   */
  setSkillGrants(grants: (skills: readonly string[]) => string[]): void {
    this.#skillGrants = grants;
  }

  /** Registers a built-in tool from its module. */
  // deno-lint-ignore no-explicit-any
  registerBuiltin(tool: ToolDefinition<any>): void {
    this.#add(this.#builtin(tool));
  }

  /** A built-in tool as the registry holds it, from its module. */
  // deno-lint-ignore no-explicit-any
  #builtin(tool: ToolDefinition<any>): RegisteredTool {
    const { permissions: _, ...meta } = builtinMeta(tool);
    const declared = typeof tool.permissions === "function"
      ? tool.permissions(this.#settingsOf(tool.name))
      : tool.permissions ?? {};
    return {
      ...meta,
      validator: validatorOf(tool),
      declared,
      permissions: resolvePermissions(declared, this.#options.scope),
      timeout: typeof tool.timeout_ms === "function"
        ? tool.timeout_ms as (args: unknown) => number
        : () => (tool.timeout_ms as number | undefined) ?? DEFAULT_TOOL_TIMEOUT_MS,
      review: tool.review as RegisteredTool["review"],
      review_range: tool.review_range,
      reaches: tool.reaches as RegisteredTool["reaches"],
      ref: { kind: "builtin", name: tool.name },
      origin: { kind: "builtin" },
    };
  }

  /**
   * Registers a built-in tool from its manifest entry: listed and offered as
   * it is, its module loaded (and the tool registered whole) at its first call.
   */
  registerListed(entry: ListedBuiltin, dependent: SettingsDependent = {}): void {
    const { load, permissions, ...meta } = entry;
    const declared = dependent.permissions?.(this.#settingsOf(entry.name)) ?? permissions ?? {};
    this.#add({
      ...meta,
      declared,
      permissions: resolvePermissions(declared, this.#options.scope),
      review_range: dependent.review_range,
      origin: { kind: "builtin" },
      load: async () => (await load()).default,
    });
  }

  /** Registers a checked user tool (see user_tools.ts) or an MCP server's tool. */
  registerUser(tool: RegisteredTool): void {
    this.#add(tool);
  }

  /** Every tool's name, for callers that track what they registered. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Removes a tool; false when there was none by that name. */
  unregister(name: string): boolean {
    this.#specs = null;
    return this.#tools.delete(name);
  }

  /** A tool by name: whole, or a built-in still known only from the manifest. */
  get(name: string): RegisteredTool | ListedTool | undefined {
    return this.#tools.get(name);
  }

  /** What models are told of each tool: a third party's words (an MCP server's) labelled. */
  specs(): ToolSpec[] {
    this.#specs ??= [...this.#tools.values()].map((tool) => {
      const spec = {
        name: tool.name,
        description: tool.description,
        category: tool.category,
        parameters: tool.parameters,
      };
      const { origin } = tool;
      return origin.kind === "mcp"
        ? labelledSpec(spec, `mcp:${origin.server}/${origin.tool}`)
        : spec;
    });
    return this.#specs;
  }

  /** Every tool with its permissions and the policy in force. */
  list(): ToolInfo[] {
    return [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      category: tool.category,
      parameters: tool.parameters,
      permissions: tool.permissions,
      side_effect: tool.side_effect,
      policy: this.#policyOf(tool),
      effective_policy: effectivePolicy(tool, this.#options.policies, this.#settingsOf(tool.name)),
      origin: tool.origin,
    }));
  }

  /** A call from the agent: policy and approvals apply. */
  async execute(call: ToolCall, context: ToolCallContext): Promise<ToolResult> {
    const { content, is_error } = await this.#call(call, context, context.source ?? "agent");
    return { content, is_error };
  }

  /** A call the owner makes directly (API, CLI): no approval asked, `deny` still holds. */
  async invoke(
    name: string,
    args: unknown,
    source: CallSource,
    signal?: AbortSignal,
  ): Promise<InvokeResult> {
    const result = await this.#call(
      {
        id: `direct_${crypto.randomUUID().slice(0, 8)}`,
        name,
        arguments: JSON.stringify(args ?? {}),
      },
      { conversation_id: null, signal },
      source,
    );
    // An MCP client is another model: it gets the labels. The owner reads the text itself.
    return source === "mcp" ? result : { ...result, content: unwrap(result.content) };
  }

  #add(tool: RegisteredTool | ListedTool): void {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(`Tool name '${tool.name}' must match ${TOOL_NAME}`);
    }
    this.#tools.set(tool.name, tool);
    this.#specs = null;
  }

  #policyOf(tool: RegisteredTool | ListedTool): ToolPolicy {
    return configuredPolicy(tool, this.#options.policies);
  }

  #settingsOf(name: string): Record<string, unknown> {
    const all = this.#options.settings ?? {};
    return { ...all["*"], ...all[name] };
  }

  /** The tool whole: a built-in known from the manifest has its module loaded, once. */
  #whole(tool: RegisteredTool | ListedTool): Promise<RegisteredTool> {
    if (!("load" in tool)) return Promise.resolve(tool);
    let loading = this.#loading.get(tool.name);
    if (!loading) {
      loading = tool.load().then((definition) => {
        const whole = this.#builtin(definition);
        // Calls from now on find it whole (unless it was replaced meanwhile).
        if (this.#tools.get(tool.name) === tool) this.#tools.set(tool.name, whole);
        return whole;
      });
      this.#loading.set(tool.name, loading);
      loading.catch(() => this.#loading.delete(tool.name));
    }
    return loading;
  }

  /** One call through every step; each step may end it with a refusal, and the audit log sees all. */
  async #call(call: ToolCall, context: ToolCallContext, source: CallSource): Promise<LoggedResult> {
    const audit = auditCall(this.#options.events, call, context, source);
    const found = this.#tools.get(call.name);
    if (!found) {
      return audit.refused({
        // hob's own refusal: it quotes only what the model sent, and the tools there are.
        refused: hobWrote(
          `Unknown tool '${call.name}'. Available tools: ${[...this.#tools.keys()].join(", ")}.`,
        ),
        approval: "refused",
      });
    }
    let tool: RegisteredTool;
    try {
      tool = await this.#whole(found);
    } catch (error) {
      // hob's own module failed to load: a broken install, said in hob's words.
      return audit.refused({
        refused: hobWrote(
          `The tool '${call.name}' could not be loaded: ${(error as Error).message}`,
        ),
        approval: "refused",
      });
    }
    const parsed = parseArguments(call, tool.validator);
    if (isRefusal(parsed)) return audit.refused(parsed);
    const { args } = parsed;
    const settings = this.#settingsOf(tool.name);
    const decision = await decidePolicy({
      tool,
      args,
      settings,
      policies: this.#options.policies,
      taint: this.#options.taint,
      tainted: context.tainted,
      granted: context.skills ? this.#skillGrants(context.skills) : [],
      seen: context.seen,
      linksFrom: (name) => this.#tools.get(name)?.output_links === true,
      source,
    });
    if (isRefusal(decision)) return audit.refused(decision);
    const clearance = await clearCall(
      this.#options.approvals,
      { call, args, decision, context, source },
      this.#options.approvalTimeoutMs,
    );
    if (isRefusal(clearance)) return audit.refused(clearance);
    const cap = tool.max_output_chars ?? this.#options.outputCapChars;
    const raw = await dispatchCall(
      {
        scope: this.#options.scope,
        spawner: this.#options.spawner,
        services: () => this.#services,
        now: this.#options.now,
      },
      { tool, args, settings, cap, context, source },
    );
    return audit.record(
      { content: labelOutput(raw, tool, args, cap), is_error: raw.is_error },
      clearance.cleared,
      {
        permissions: tool.permissions,
        approval_id: clearance.approval_id,
        args: JSON.stringify(args),
      },
    );
  }
}
