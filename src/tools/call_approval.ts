/**
 * Clearing a tool call to run: the owner's own calls and calls the policy
 * allows go at once; a call that must ask takes a remembered decision for its
 * argument shape, or asks the user and waits — streaming the question and the
 * answer into the turn — until they decide, the question expires or the turn
 * stops. Knows the approval store; nothing of running tools.
 */

import type { ToolCallContext } from "../core/ports.ts";
import type { ToolCall } from "../core/types.ts";
import { hobWrote } from "../core/untrusted.ts";
import type { SqliteApprovals } from "../store/approvals.ts";
import type { ClearedBy } from "../store/tool_events.ts";
import type { PolicyDecision } from "./call_policy.ts";
import type { CallSource, Refusal } from "./registry_types.ts";

/** What clearing needs of the approval store. */
export type ApprovalDesk = Pick<SqliteApprovals, "remembered" | "request" | "wait" | "write">;

/** A call cleared to run, and how (for the audit log). */
export interface Clearance {
  cleared: ClearedBy;
  /** The approval the user answered, when one was asked. */
  approval_id?: string;
}

/** The call to clear. */
export interface ClearanceRequest {
  call: ToolCall;
  /** The validated arguments, shown to the user. */
  args: unknown;
  decision: PolicyDecision;
  context: ToolCallContext;
  source: CallSource;
}

/**
 * Clears a call, or refuses it: owner's calls run as the owner's; the agent's
 * and skills' run by policy, by a remembered decision (never in a tainted
 * turn), or once the user approves.
 *
 * @example
 * ```ts
 * const clearance = await clearCall(approvals, { call, args, decision, context, source }, 60_000);
 * if (isRefusal(clearance)) return audit.refused(clearance);
 * ```
 */
export async function clearCall(
  approvals: ApprovalDesk,
  request: ClearanceRequest,
  timeoutMs: number,
): Promise<Clearance | Refusal> {
  const { call, decision, source } = request;
  if (source !== "agent" && source !== "skill") return { cleared: "owner" };
  if (decision.policy !== "ask") return { cleared: "policy" };
  const { shape } = decision;
  const remembered = approvals.remembered(call.name, shape);
  if (remembered === "deny") {
    return {
      refused: hobWrote(
        `The user has said no to ${call.name}${shape ? ` (${shape})` : ""} before.`,
      ),
      approval: "denied",
    };
  }
  if (remembered === "allow" && !decision.tainted) return { cleared: "remembered" };
  return await askUser(approvals, request, timeoutMs);
}

/** Asks the user through the approval store and the turn's stream, and waits for the answer. */
async function askUser(
  approvals: ApprovalDesk,
  { call, args, decision, context }: ClearanceRequest,
  timeoutMs: number,
): Promise<Clearance | Refusal> {
  const approval = await approvals.write(() =>
    approvals.request({
      conversation_id: context.conversation_id ?? null,
      tool_call_id: call.id,
      tool: call.name,
      arguments: JSON.stringify(args),
      reason: decision.reason,
      shape: decision.shape,
      timeoutMs,
    })
  );
  context.emit?.({
    type: "approval_required",
    approval_id: approval.id,
    tool_call_id: call.id,
    name: call.name,
    arguments: approval.arguments,
    reason: decision.reason,
    expires_at: approval.expires_at,
  });
  const status = await approvals.wait(approval.id, context.signal);
  context.emit?.({ type: "approval_resolved", approval_id: approval.id, status });
  if (status === "approved") return { cleared: "approved", approval_id: approval.id };
  return {
    refused: hobWrote(
      status === "denied"
        ? `The user denied this call of ${call.name}. Do not retry it; say what you would have done instead.`
        : `No decision on ${call.name} within ${timeoutMs / 1000} s, so it was not run.`,
    ),
    approval: status === "denied" ? "denied" : "expired",
    approval_id: approval.id,
  };
}
