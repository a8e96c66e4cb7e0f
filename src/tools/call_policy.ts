/**
 * Deciding a tool call's policy: the user's configured policy, made stricter
 * (never looser) by the tool's own review of its arguments, then — in a turn
 * that has read untrusted content — turned into a question for the user when
 * the tool has side effects. Decides only; asking and running are later steps.
 */

import type { ModelView } from "../core/ports.ts";
import { hobWrote } from "../core/untrusted.ts";
import { reachable, unreachable } from "./call_reach.ts";
import type { ToolPolicy, ToolReview } from "../sandbox/definition.ts";
import type { CallSource, Refusal, RegisteredTool } from "./registry_types.ts";

/** How strict each policy is: a review may move a call right, never left. */
const STRICTNESS: Record<ToolPolicy, number> = { allow: 0, ask: 1, deny: 2 };

/** Whether a tainted turn's side effects need approval, and the tools exempt from it. */
export interface TaintRule {
  enabled: boolean;
  exempt: string[];
}

/** Taint applies unless the configuration says otherwise. */
const DEFAULT_TAINT_RULE: TaintRule = { enabled: true, exempt: [] };

/** What a call's policy is decided from. */
export interface PolicyInput {
  tool:
    & Pick<RegisteredTool, "name" | "side_effect" | "default_policy" | "review" | "reaches">
    & Partial<Pick<RegisteredTool, "origin">>;
  /** The validated arguments, for the tool's review. */
  args: unknown;
  /** The tool's settings, for its review. */
  settings: Record<string, unknown>;
  /** Per-tool policies from hob.yaml. */
  policies?: Record<string, ToolPolicy>;
  /** @default {{ enabled: true, exempt: [] }} */
  taint?: TaintRule;
  /** The turn's taint: where the untrusted content it read came from. */
  tainted?: string;
  /**
   * Tools the owner granted the Agent Skills the turn is following (when
   * their instructions are all the untrusted content it read): exempt like `taint.exempt`.
   */
  granted?: string[];
  /** What the model had read when it made the call, for the addresses it may reach. */
  seen?: ModelView;
  /** Whether a tool's output is outside content whose links the turn may follow. */
  linksFrom?: (tool: string) => boolean;
  source: CallSource;
}

/** A call that may go ahead: at once, or once the user (or a remembered decision) allows it. */
export interface PolicyDecision {
  policy: "allow" | "ask";
  /** Why the user is asked; empty when no one said why. */
  reason: string;
  /** The argument shape a remembered decision is looked up by. */
  shape: string;
  /** The turn's taint when it is what makes the call ask; a remembered "allow" then does not hold. */
  tainted: string | null;
}

/**
 * The policy a tool has before any call: hob.yaml's, else the tool's own,
 * else `ask` for external side effects and `allow` for the rest.
 *
 * @example
 * ```ts
 * configuredPolicy({ name: "send_email", side_effect: "external" }, {}); // "ask"
 * ```
 */
export function configuredPolicy(
  tool: Pick<RegisteredTool, "name" | "side_effect" | "default_policy">,
  policies: Record<string, ToolPolicy> | undefined,
): ToolPolicy {
  return policies?.[tool.name] ?? tool.default_policy ??
    (tool.side_effect === "external" ? "ask" : "allow");
}

/**
 * The policy a tool's calls get, in words for people (`hob tool list`,
 * `GET /api/tools`, the page's Tools panel): the configured policy, made
 * stricter for the calls the tool's review does not let through — `run_command`
 * under the shell policy `ask` is "allowlist, else ask". The one place that
 * knows how the two combine, as {@linkcode decidePolicy} does for one call.
 *
 * @example
 * ```ts
 * effectivePolicy(runCommand, {}, { shell: { policy: "ask", allowlist: ["ls"] } }); // "allowlist, else ask"
 * ```
 */
export function effectivePolicy(
  tool: Pick<RegisteredTool, "name" | "side_effect" | "default_policy" | "review_range">,
  policies: Record<string, ToolPolicy> | undefined,
  settings: Record<string, unknown>,
): string {
  const configured = configuredPolicy(tool, policies);
  const range = tool.review_range?.(settings);
  if (!range) return configured;
  const otherwise = stricter(configured, range.otherwise);
  if (!range.passes || otherwise === configured) return otherwise;
  const passing = configured === "allow" ? range.passes : `${range.passes}: ${configured}`;
  return `${passing}, else ${otherwise}`;
}

/**
 * The taint that makes this call ask, or null: a tool with side effects,
 * called by the agent or a skill in a tainted turn, and not exempt. The
 * owner's own calls (API, CLI, an MCP client) are never tainted.
 *
 * @example
 * ```ts
 * taintOf({ name: "write_file", side_effect: "local" }, "fetch_url: https://x", "agent"); // "fetch_url: https://x"
 * ```
 */
export function taintOf(
  tool: Pick<RegisteredTool, "name" | "side_effect">,
  tainted: string | undefined,
  source: CallSource,
  rule: TaintRule = DEFAULT_TAINT_RULE,
  granted: readonly string[] = [],
): string | null {
  if (!tainted || !rule.enabled || tool.side_effect === "none") return null;
  if (source !== "agent" && source !== "skill") return null;
  return rule.exempt.includes(tool.name) || granted.includes(tool.name) ? null : tainted;
}

/**
 * Decides a call's policy, in order: the configured policy; the tool's review,
 * which may only make it stricter (a review that throws refuses the call);
 * `deny` refuses; then a tainted turn makes any side effect `ask`, its reason
 * put first.
 *
 * @example
 * ```ts
 * const decision = await decidePolicy({ tool, args, settings, source: "agent" });
 * if (isRefusal(decision)) return audit.refused(decision);
 * ```
 */
export async function decidePolicy(input: PolicyInput): Promise<PolicyDecision | Refusal> {
  const { tool } = input;
  const review = await reviewCall(input);
  if ("refused" in review) return review;
  const policy = stricter(configuredPolicy(tool, input.policies), review.decision);
  const reason = review.reason ?? "";
  const shape = review.shape ?? "";
  if (policy === "deny") {
    return {
      refused: hobWrote(`Denied by the user's policy${reason ? `: ${reason}` : ""}.`),
      approval: "denied",
    };
  }
  // After untrusted content, a side effect may be an injected instruction: the user decides.
  const tainted = taintOf(tool, input.tainted, input.source, input.taint, input.granted);
  // So may an address the model composed: reading must not carry what the turn read away.
  const away = tainted ? null : awayFrom(input);
  if (!tainted && !away) return { policy, reason, shape, tainted: null };
  const why = `this turn has read untrusted content (${input.tainted})${
    away ? `, and ${away}` : ""
  }`;
  return {
    policy: "ask",
    reason: `${why}${reason ? `; ${reason}` : ""}`,
    shape,
    tainted: input.tainted!,
  };
}

/**
 * Where a call in a tainted turn would send what the model gave it, when
 * the turn was not pointed there (call_reach.ts), in words for the owner;
 * null when it may go unasked. Same scope as {@linkcode taintOf}: the agent's
 * and skills' calls, taint on, the tool not exempt.
 */
function awayFrom(input: PolicyInput): string | null {
  const { tool } = input;
  const rule = input.taint ?? DEFAULT_TAINT_RULE;
  if (!input.tainted || !rule.enabled || rule.exempt.includes(tool.name)) return null;
  if (input.granted?.includes(tool.name)) return null;
  if (input.source !== "agent" && input.source !== "skill") return null;
  if (tool.origin?.kind === "mcp") {
    return `it sends what the model wrote to the MCP server '${tool.origin.server}'`;
  }
  const addresses = tool.reaches?.(input.args, input.settings) ?? [];
  if (addresses.length === 0) return null;
  const known = reachable(input.seen ?? { system: "", messages: [] }, input.linksFrom ?? never);
  const address = unreachable(addresses, known);
  return address
    ? `it would reach ${address}, which is not an address you gave or a link in what it read`
    : null;
}

function never(): boolean {
  return false;
}

/** The tool's own review of the arguments (none without one), or a refusal when it fails. */
async function reviewCall(input: PolicyInput): Promise<ToolReview | Refusal> {
  if (!input.tool.review) return {};
  try {
    return await input.tool.review(input.args, input.settings);
  } catch (error) {
    return {
      refused: hobWrote(
        `${input.tool.name} could not check its arguments: ${(error as Error).message}`,
      ),
      approval: "refused",
    };
  }
}

/** The stricter of a policy and a review's decision. */
function stricter(policy: ToolPolicy, decision: ToolPolicy | undefined): ToolPolicy {
  return decision && STRICTNESS[decision] > STRICTNESS[policy] ? decision : policy;
}
