/**
 * What the tool registry holds and hands on: a registered tool, who calls it,
 * the hob services a tool's Worker may reach, and a call stopped before it
 * ran. Types (and the one guard for a refusal), shared by the registry and
 * the steps of a call; no behaviour of its own.
 */

import type { z } from "zod";
import type { ToolCallContext } from "../core/ports.ts";
import type { JsonSchema } from "../core/types.ts";
import type { ModelText } from "../core/untrusted.ts";
import type { ClearedBy } from "../store/tool_events.ts";
import type {
  ReviewRange,
  ServiceName,
  SideEffect,
  ToolDefinition,
  ToolPermissions,
  ToolPolicy,
  ToolReview,
} from "../sandbox/definition.ts";
import type { ToolRef } from "../sandbox/protocol.ts";
import type { ServiceMethod, ServiceParams, ServiceResult } from "../sandbox/services.ts";
import type { SandboxPermissions } from "../sandbox/permissions.ts";

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
  permissions: SandboxPermissions;
  side_effect: SideEffect;
  default_policy?: ToolPolicy;
  /** Output from outside (unless `false`): labelled untrusted, and it taints the turn. */
  untrusted_output?: boolean;
  services: ServiceName[];
  timeout: (args: unknown) => number;
  max_output_chars?: number;
  review?: (args: unknown, settings: Record<string, unknown>) => Promise<ToolReview> | ToolReview;
  review_range?: (settings: Record<string, unknown>) => ReviewRange;
  /** Its output is outside content whose links a tainted turn may follow (call_reach.ts). */
  output_links?: boolean;
  /** The addresses a call sends the model's arguments to (call_reach.ts). */
  reaches?: (args: unknown, settings: Record<string, unknown>) => string[];
  /** What the Worker loads; absent for in-process tools. */
  ref?: ToolRef;
  /** Runs the call in this process instead of a Worker. */
  run?: InProcessRun;
  origin: ToolOrigin;
}

/**
 * A built-in tool known from the manifest (builtin_meta.ts): listed and
 * offered to models as it is; `load` gives its definition at its first call.
 */
export interface ListedTool
  extends Omit<RegisteredTool, "validator" | "timeout" | "review" | "run" | "reaches"> {
  // deno-lint-ignore no-explicit-any
  load(): Promise<ToolDefinition<any>>;
}

/** Context a hob service gets with a call from a tool's Worker. */
export interface ServiceCallContext {
  tool: string;
  conversation_id: string | null;
  depth: number;
  signal?: AbortSignal;
  emit?: ToolCallContext["emit"];
  model?: string;
  /** The calling turn's taint, which a sub-agent inherits. */
  tainted?: string;
  /** What the calling turn's model had read: a skill's calls reach what the turn was pointed at. */
  seen?: ToolCallContext["seen"];
  /** Who called the tool: a turn's agent, a skill, or the owner through the API, CLI or MCP. */
  source: CallSource;
}

/**
 * A service of the hob process as a tool's Worker reaches it: called with
 * what the Worker sent, which its `schema` checks — in the service, or in the
 * app's action it hands the params to — before any use. `P` is what it takes
 * and `R` what it answers; src/runtime/service_params.ts declares one.
 */
export interface HobService<P = unknown, R = unknown> {
  (params: unknown, context: ServiceCallContext): Promise<R>;
  /** What its params must be. */
  readonly schema: z.ZodType;
  /**
   * A type only, never set: for {@linkcode HobServices}, the params a tool
   * sends (`ServiceParams`) must be what `schema` takes.
   */
  readonly takes?: (params: P) => void;
}

/**
 * Every service of the hob process that tools reach from their Workers, by
 * method: each takes what tools send it and answers what they read
 * (src/sandbox/services.ts), which the compiler checks.
 */
export type HobServices = {
  readonly [M in ServiceMethod]: HobService<ServiceParams<M>, ServiceResult<M>>;
};

/**
 * A call stopped before it ran (or with nothing to run): hob's own message to
 * the model, and how the audit log records the stop.
 */
export interface Refusal {
  refused: ModelText;
  approval: ClearedBy;
  approval_id?: string;
}

/**
 * Whether a step's answer is a {@linkcode Refusal}.
 *
 * @example
 * ```ts
 * const parsed = parseArguments(call, tool.validator);
 * if (isRefusal(parsed)) return audit.refused(parsed);
 * ```
 */
export function isRefusal(value: object): value is Refusal {
  return "refused" in value;
}
