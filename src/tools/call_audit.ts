/**
 * The audit log's side of a tool call: every call ends here exactly once —
 * run, refused or denied — with its arguments, result, duration, the
 * permissions it ran with and how it was cleared — written once hob.db can be
 * (another program may hold it). Knows the tool-event store; nothing of
 * policies or sandboxes.
 */

import type { ToolCallContext } from "../core/ports.ts";
import type { ToolCall, ToolResult } from "../core/types.ts";
import type { ClearedBy, SqliteToolEvents } from "../store/tool_events.ts";
import type { CallSource, Refusal } from "./registry_types.ts";
import type { SandboxPermissions } from "../sandbox/permissions.ts";

/** A call's result as the registry logs it. */
export interface LoggedResult extends ToolResult {
  event_id: number;
  duration_ms: number;
}

/** What a call that was cleared adds to its log row. */
export interface AuditDetails {
  /** The sandbox's permissions; absent when nothing ran. */
  permissions?: SandboxPermissions;
  approval_id?: string;
  /** The validated arguments as JSON; the model's own text when absent. */
  args?: string;
}

/** Logs one call; its duration runs from when this was made. */
export interface CallAudit {
  /** Logs what the call gave. */
  record(result: ToolResult, approval: ClearedBy, details?: AuditDetails): Promise<LoggedResult>;
  /** Logs a call stopped before it ran, as an error result. */
  refused(refusal: Refusal): Promise<LoggedResult>;
}

/**
 * Starts the audit of one call: make it first, so the logged duration covers
 * every step.
 *
 * @example
 * ```ts
 * const audit = auditCall(events, call, context, "agent");
 * const parsed = parseArguments(call, tool.validator);
 * if (isRefusal(parsed)) return audit.refused(parsed);
 * ```
 */
export function auditCall(
  events: Pick<SqliteToolEvents, "record" | "write">,
  call: ToolCall,
  context: ToolCallContext,
  source: CallSource,
): CallAudit {
  const started = performance.now();
  const record = async (
    result: ToolResult,
    approval: ClearedBy,
    details: AuditDetails = {},
  ): Promise<LoggedResult> => {
    const duration_ms = performance.now() - started;
    const event = {
      conversation_id: context.conversation_id ?? null,
      tool_call_id: call.id,
      tool: call.name,
      arguments: details.args ?? call.arguments,
      result: result.content,
      is_error: result.is_error,
      duration_ms,
      permissions: details.permissions ? { ...details.permissions } : null,
      approval,
      approval_id: details.approval_id ?? null,
      source,
    };
    const event_id = await events.write(() => events.record(event));
    return { ...result, event_id, duration_ms: Math.round(duration_ms) };
  };
  return {
    record,
    refused: (refusal) =>
      record({ content: refusal.refused, is_error: true }, refusal.approval, {
        approval_id: refusal.approval_id,
      }),
  };
}
