/**
 * The tool registry: the built-in and user tools, their schemas for the model,
 * and the path every call takes — arguments validated, the user's policy
 * applied (asking for approval when it says so), the call run in a Worker with
 * exactly the tool's permissions, the output capped and the call logged.
 * Nothing here throws at the agent: every failure is an `is_error` result.
 */

import { z } from "zod";
import type { ToolCallContext, ToolRegistryPort } from "../core/ports.ts";
import type { JsonSchema, ToolCall, ToolResult, ToolSpec } from "../core/types.ts";
import {
  hobWrote,
  isMarked,
  type ModelText,
  storedText,
  untrusted,
  untrustedSource,
  unwrap,
} from "../core/untrusted.ts";
import type { SqliteApprovals } from "../store/approvals.ts";
import type { ClearedBy, SqliteToolEvents } from "../store/tool_events.ts";
import type {
  HostCapability,
  SideEffect,
  ToolDefinition,
  ToolPermissions,
  ToolPolicy,
  ToolReview,
} from "./definition.ts";
import { capOutput, DEFAULT_OUTPUT_CAP_CHARS } from "./output.ts";
import { type PermissionScope, resolvePermissions } from "./sandbox/permissions.ts";
import type { ToolRef } from "./sandbox/protocol.ts";
import type { ToolSpawner, WorkerPermissions } from "./sandbox/spawner.ts";

/** Default time one tool call may take. */
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Valid tool names: what every provider accepts. */
export const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Who made a call: the agent in a turn, or the owner directly. */
export type CallSource = "agent" | "api" | "cli" | "skill" | "mcp";

/** Where a tool comes from. */
export type ToolOrigin =
  | { kind: "builtin" }
  | { kind: "user"; file: string }
  | { kind: "mcp"; server: string; tool: string };

/**
 * A tool that runs in hob's own process rather than a Worker: an MCP server's
 * tool, whose work happens in the server's process. Gets the validated
 * arguments and the call's signal (aborted at the tool's timeout).
 */
export type InProcessRun = (
  args: unknown,
  signal: AbortSignal,
) => Promise<{ content: string; is_error: boolean }>;

/** A tool as the registry holds it. */
export interface RegisteredTool {
  name: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  validator: z.ZodType;
  declared: ToolPermissions;
  permissions: WorkerPermissions;
  side_effect: SideEffect;
  default_policy?: ToolPolicy;
  /** Output from outside (unless `false`): labelled untrusted, and it taints the turn. */
  untrusted_output?: boolean;
  host: HostCapability[];
  timeout: (args: unknown) => number;
  max_output_chars?: number;
  review?: (args: unknown, settings: Record<string, unknown>) => Promise<ToolReview> | ToolReview;
  /** What the Worker loads; absent for in-process tools. */
  ref?: ToolRef;
  /** Runs the call in this process instead of a Worker. */
  run?: InProcessRun;
  origin: ToolOrigin;
}

/** What GET /api/tools shows of a tool. */
export interface ToolInfo {
  name: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  permissions: WorkerPermissions;
  side_effect: SideEffect;
  policy: ToolPolicy;
  origin: ToolOrigin;
}

/** Context a host service gets with a call from a tool's Worker. */
export interface HostCallContext {
  tool: string;
  conversation_id: string | null;
  depth: number;
  signal?: AbortSignal;
  emit?: ToolCallContext["emit"];
  model?: string;
  /** The calling turn's taint, which a sub-agent inherits. */
  tainted?: string;
}

/** Services of the hob process that tools reach from their Workers, by method name. */
export type HostServices = Record<
  string,
  (params: unknown, context: HostCallContext) => Promise<unknown>
>;

/** What the registry is built on. */
export interface ToolRegistryOptions {
  scope: PermissionScope;
  spawner: ToolSpawner;
  approvals: SqliteApprovals;
  events: SqliteToolEvents;
  /** Per-tool policies from hob.yaml. */
  policies?: Record<string, ToolPolicy>;
  /** Whether a tainted turn's side effects need approval (on by default), and the exceptions. */
  taint?: { enabled: boolean; exempt: string[] };
  /** Settings each tool gets in its context, by tool name, plus `*` for all. */
  settings?: Record<string, Record<string, unknown>>;
  /** Longest output kept by default. */
  outputCapChars?: number;
  approvalTimeoutMs?: number;
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

/** A call's result as the registry logs it. */
interface LoggedResult extends ToolResult {
  event_id: number;
  duration_ms: number;
}

const STRICTNESS: Record<ToolPolicy, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * The registry. One per runtime.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry({ scope, spawner, approvals, events });
 * registry.register(readFile);
 * await registry.execute({ id: "1", name: "read_file", arguments: '{"path":"a.txt"}' }, { conversation_id });
 * ```
 */
export class ToolRegistry implements ToolRegistryPort {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #options: ToolRegistryOptions;
  #host: HostServices = {};
  #specs: ToolSpec[] | null = null;

  constructor(options: ToolRegistryOptions) {
    this.#options = options;
  }

  /** Connects the host services tools may call (set once the agent exists). */
  setHost(host: HostServices): void {
    this.#host = host;
  }

  /** Registers a built-in tool. */
  // deno-lint-ignore no-explicit-any
  registerBuiltin(tool: ToolDefinition<any>): void {
    const isZod = isZodSchema(tool.parameters);
    const declared = typeof tool.permissions === "function"
      ? tool.permissions(this.#settingsOf(tool.name))
      : tool.permissions ?? {};
    this.#add({
      name: tool.name,
      description: tool.description,
      category: tool.category,
      parameters: isZod
        ? toJsonSchema(tool.parameters as z.ZodType)
        : tool.parameters as JsonSchema,
      validator: isZod ? tool.parameters as z.ZodType : z.fromJSONSchema(tool.parameters as never),
      declared,
      permissions: resolvePermissions(declared, this.#options.scope),
      side_effect: tool.side_effect,
      default_policy: tool.default_policy,
      // Untrusted unless the tool says, and its review shows, that hob writes all of it.
      untrusted_output: tool.untrusted_output ?? true,
      host: tool.host ?? [],
      timeout: typeof tool.timeout_ms === "function"
        ? tool.timeout_ms as (args: unknown) => number
        : () => (tool.timeout_ms as number | undefined) ?? DEFAULT_TOOL_TIMEOUT_MS,
      max_output_chars: tool.max_output_chars,
      review: tool.review as RegisteredTool["review"],
      ref: { kind: "builtin", name: tool.name },
      origin: { kind: "builtin" },
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

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  specs(): ToolSpec[] {
    this.#specs ??= [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      category: tool.category,
      parameters: tool.parameters,
    }));
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

  #add(tool: RegisteredTool): void {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(`Tool name '${tool.name}' must match ${TOOL_NAME}`);
    }
    this.#tools.set(tool.name, tool);
    this.#specs = null;
  }

  #policyOf(tool: RegisteredTool): ToolPolicy {
    return this.#options.policies?.[tool.name] ?? tool.default_policy ??
      (tool.side_effect === "external" ? "ask" : "allow");
  }

  /** The taint that makes this call ask, or null: a side effect, in a tainted turn of the agent. */
  #taints(tool: RegisteredTool, context: ToolCallContext, source: CallSource): string | null {
    const taint = this.#options.taint ?? { enabled: true, exempt: [] };
    if (!context.tainted || !taint.enabled || tool.side_effect === "none") return null;
    if (source !== "agent" && source !== "skill") return null;
    return taint.exempt.includes(tool.name) ? null : context.tainted;
  }

  #settingsOf(name: string): Record<string, unknown> {
    const all = this.#options.settings ?? {};
    return { ...all["*"], ...all[name] };
  }

  async #call(call: ToolCall, context: ToolCallContext, source: CallSource): Promise<LoggedResult> {
    const started = performance.now();
    const log = (
      result: ToolResult,
      approval: ClearedBy,
      extra: { permissions?: WorkerPermissions; approval_id?: string; args?: string } = {},
    ): LoggedResult => {
      const duration_ms = performance.now() - started;
      const event_id = this.#options.events.record({
        conversation_id: context.conversation_id ?? null,
        tool_call_id: call.id,
        tool: call.name,
        arguments: extra.args ?? call.arguments,
        result: result.content,
        is_error: result.is_error,
        duration_ms,
        permissions: extra.permissions ? { ...extra.permissions } : null,
        approval,
        approval_id: extra.approval_id ?? null,
        source,
      });
      return { ...result, event_id, duration_ms: Math.round(duration_ms) };
    };
    // hob's own refusals: they quote only what the model sent.
    const fail = (content: ModelText, approval: ClearedBy = "refused", extra = {}) =>
      log({ content, is_error: true }, approval, extra);

    const tool = this.#tools.get(call.name);
    if (!tool) {
      return fail(hobWrote(
        `Unknown tool '${call.name}'. Available tools: ${[...this.#tools.keys()].join(", ")}.`,
      ));
    }
    let raw: unknown;
    try {
      raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    } catch (error) {
      return fail(hobWrote(
        `The arguments for ${call.name} are not valid JSON (${
          (error as Error).message
        }). Send a JSON object.`,
      ));
    }
    const parsed = tool.validator.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) =>
        `${issue.path.length ? issue.path.join(".") : "arguments"}: ${issue.message}`
      );
      return fail(hobWrote(`Invalid arguments for ${call.name}: ${problems.join("; ")}`));
    }
    const args = parsed.data;
    const settings = this.#settingsOf(tool.name);

    // The policy: the configured one, made stricter (never looser) by the tool's own review.
    let policy = this.#policyOf(tool);
    let reason = "";
    let shape = "";
    if (tool.review) {
      let review: ToolReview;
      try {
        review = await tool.review(args, settings);
      } catch (error) {
        return fail(
          hobWrote(`${call.name} could not check its arguments: ${(error as Error).message}`),
        );
      }
      if (review.decision && STRICTNESS[review.decision] > STRICTNESS[policy]) {
        policy = review.decision;
      }
      reason = review.reason ?? "";
      shape = review.shape ?? "";
    }
    if (policy === "deny") {
      return fail(hobWrote(`Denied by the user's policy${reason ? `: ${reason}` : ""}.`), "denied");
    }
    // After untrusted content, a side effect may be an injected instruction: the user decides.
    const tainted = this.#taints(tool, context, source);
    if (tainted) {
      policy = "ask";
      reason = `this turn has read untrusted content (${tainted})${reason ? `; ${reason}` : ""}`;
    }

    let cleared: ClearedBy = source === "agent" || source === "skill" ? "policy" : "owner";
    let approvalId: string | undefined;
    if (policy === "ask" && cleared === "policy") {
      const remembered = this.#options.approvals.remembered(tool.name, shape);
      if (remembered === "deny") {
        return fail(
          hobWrote(`The user has said no to ${call.name}${shape ? ` (${shape})` : ""} before.`),
          "denied",
        );
      }
      if (remembered === "allow" && !tainted) {
        cleared = "remembered";
      } else {
        const timeoutMs = this.#options.approvalTimeoutMs ?? 300_000;
        const approval = this.#options.approvals.request({
          conversation_id: context.conversation_id ?? null,
          tool_call_id: call.id,
          tool: tool.name,
          arguments: JSON.stringify(args),
          reason,
          shape,
          timeoutMs,
        });
        approvalId = approval.id;
        context.emit?.({
          type: "approval_required",
          approval_id: approval.id,
          tool_call_id: call.id,
          name: tool.name,
          arguments: approval.arguments,
          reason,
          expires_at: approval.expires_at,
        });
        const status = await this.#options.approvals.wait(approval.id, context.signal);
        context.emit?.({ type: "approval_resolved", approval_id: approval.id, status });
        if (status !== "approved") {
          return fail(
            hobWrote(
              status === "denied"
                ? `The user denied this call of ${call.name}. Do not retry it; say what you would have done instead.`
                : `No decision on ${call.name} within ${timeoutMs / 1000} s, so it was not run.`,
            ),
            status === "denied" ? "denied" : "expired",
            { approval_id: approval.id },
          );
        }
        cleared = "approved";
      }
    }

    const cap = tool.max_output_chars ?? this.#options.outputCapChars ?? DEFAULT_OUTPUT_CAP_CHARS;
    const extra = {
      permissions: tool.permissions,
      approval_id: approvalId,
      args: JSON.stringify(args),
    };
    // Untrusted unless proven otherwise: the output (and the errors) of a tool that reads the
    // outside world, and of any call the hob process handed untrusted data to, are labelled.
    const flow = { taint: null as string | null };
    const label = sourceLabel(tool.name, args);
    const output = (content: string, fromTool: boolean): ModelText => {
      const capped = capOutput(content, cap);
      const outside = fromTool && tool.untrusted_output !== false;
      if (!outside && !flow.taint && !untrustedSource(capped)) return hobWrote(capped);
      if (isMarked(capped)) return storedText(capped);
      return untrusted(flow.taint && !outside ? `${label}, with ${flow.taint}` : label, capped);
    };
    if (tool.run) {
      const result = await runInProcess(tool.run, args, tool.timeout(args), context.signal);
      const content = result.own ? hobWrote(result.content) : output(result.content, true);
      return log({ content, is_error: result.is_error }, cleared, extra);
    }
    if (!tool.ref) return fail(hobWrote(`${call.name} has nothing to run`), cleared, extra);
    const scope = this.#options.scope;
    const depth = context.depth ?? 0;
    const outcome = await this.#options.spawner.exchange(
      tool.permissions,
      {
        type: "call",
        tool: tool.ref,
        args,
        context: {
          conversation_id: context.conversation_id ?? "",
          now: (this.#options.now?.() ?? new Date()).toISOString(),
          workspace: scope.workspace,
          roots: scope.roots,
          home: scope.home,
          settings,
          max_output_chars: cap,
        },
      },
      {
        timeoutMs: tool.timeout(args),
        signal: context.signal,
        onHost: (method, params) => {
          const capability = method.split(".")[0] as HostCapability;
          if (!tool.host.includes(capability)) {
            return Promise.reject(
              new Error(`${tool.name} may not use the host service '${method}'`),
            );
          }
          const service = this.#host[method];
          if (!service) return Promise.reject(new Error(`No host service '${method}'`));
          const answer = service(params, {
            tool: tool.name,
            conversation_id: context.conversation_id,
            depth,
            signal: context.signal,
            emit: context.emit,
            model: context.model,
            tainted: context.tainted,
          });
          // Data that carries a label taints what the call makes of it.
          return answer.then((value) => {
            if (!flow.taint && carriedTaint(value)) flow.taint = `what ${method} returned`;
            return value;
          });
        },
      },
    );
    if (!outcome.ok) {
      // A timeout or a stop is hob's own word; a crash's message comes from inside the tool.
      const own = outcome.reason === "timeout" || outcome.reason === "aborted";
      const text = `${call.name} ${outcome.error}`;
      return fail(own ? hobWrote(text) : output(text, true), cleared, extra);
    }
    const message = outcome.message;
    if (message.type !== "result") {
      return fail(hobWrote(`${call.name} gave no result`), cleared, extra);
    }
    return message.ok
      ? log({ content: output(message.content, true), is_error: false }, cleared, extra)
      : fail(output(message.error, true), cleared, extra);
  }
}

/**
 * Whether a value a host service returned carries untrusted content: labelled
 * text anywhere in it, or a record (a task, a job) made by a tainted turn.
 */
function carriedTaint(value: unknown): boolean {
  const json = JSON.stringify(value ?? null);
  return untrustedSource(json) !== null || /"taint":"/.test(json);
}

/** What an untrusted output came from: the tool, and the path, URL or command it was given. */
function sourceLabel(tool: string, args: unknown): string {
  const record = (args ?? {}) as Record<string, unknown>;
  for (const key of ["path", "url", "command", "query", "file"]) {
    const value = record[key];
    if (typeof value === "string" && value) {
      return `${tool}: ${value.length > 120 ? `${value.slice(0, 119)}…` : value}`;
    }
  }
  return tool;
}

function isZodSchema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

function toJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Runs an in-process tool with its timeout; a throw or a timeout is an error result. */
async function runInProcess(
  run: InProcessRun,
  args: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RawResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await run(args, combined);
  } catch (error) {
    if (timeout.aborted) {
      return {
        content: `timed out after ${Math.round(timeoutMs / 1000)} s`,
        is_error: true,
        own: true,
      };
    }
    if (signal?.aborted) {
      return { content: "stopped: the turn was aborted", is_error: true, own: true };
    }
    // The message comes from the tool's server: outside text.
    return { content: (error as Error).message, is_error: true };
  }
}

/** What an in-process tool gave, before the registry labels it; `own` when hob wrote it. */
interface RawResult {
  content: string;
  is_error: boolean;
  own?: boolean;
}
