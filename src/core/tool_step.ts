/**
 * Running the tool calls of one model step: each call of hob's own tools runs
 * through the registry (its approval events streamed while it runs), its
 * result is stored and added to what the model reads, and a result that
 * carries untrusted content taints the turn from then on. The caller's own
 * tools are left for the caller. With only some tools offered, find_tools is
 * answered here and a tool not offered refused (tool_offer.ts). Knows the
 * ports, not how a tool runs.
 */

import { eventQueue } from "./event_queue.ts";
import { answerOfTheOffer } from "./tool_offer.ts";
import { taintNotice, type Turn } from "./turn.ts";
import type { AgentEvent, ToolCall, ToolResult } from "./types.ts";
import { hobWrote, untrustedSource } from "./untrusted.ts";

/** How a round of tool calls ended. */
export interface ToolRound {
  /** A tool said the turn should end here (its result is the answer). */
  stop: boolean;
  /** The model called the caller's own tools: the turn ends for the caller to run them. */
  forClient: boolean;
}

/**
 * Runs the calls in order, yielding approval events, taint notices and
 * `tool_result` events. With `limitReached` none runs: each gets an error
 * result saying so, which keeps the history consistent. Stops after the call
 * in progress when the turn is aborted.
 *
 * @example
 * ```ts
 * const round = yield* runToolCalls(turn, step.calls, iteration >= max);
 * ```
 */
export async function* runToolCalls(
  turn: Turn,
  calls: ToolCall[],
  limitReached: boolean,
): AsyncGenerator<AgentEvent, ToolRound> {
  const clientNames = new Set((turn.input.clientTools ?? []).map((tool) => tool.name));
  let stop = false;
  for (const call of calls) {
    // The caller runs its own tools; their results come in its next request.
    if (clientNames.has(call.name)) continue;
    const started = performance.now();
    const result = limitReached
      ? limitResult(turn)
      : offerAnswer(turn, call) ?? (yield* executeCall(turn, call));
    if (result.stop) stop = true;
    yield* recordToolResult(turn, call, result, Math.round(performance.now() - started));
    if (turn.input.signal?.aborted) break;
  }
  return { stop, forClient: calls.some((call) => clientNames.has(call.name)) };
}

/** The result of a call not run because the turn used up its model calls. */
function limitResult(turn: Turn): ToolResult {
  return {
    content: hobWrote(
      `Not run: the limit of ${turn.deps.settings.maxToolIterations} model calls per turn was reached.`,
    ),
    is_error: true,
  };
}

/** With only some tools offered: find_tools' answer, or the refusal of a tool not offered. */
function offerAnswer(turn: Turn, call: ToolCall): ToolResult | null {
  return turn.offer ? answerOfTheOffer(turn.deps.tools.specs(), turn.offer, call) : null;
}

/** Runs one call through the registry, streaming the events it raises while it runs. */
async function* executeCall(turn: Turn, call: ToolCall): AsyncGenerator<AgentEvent, ToolResult> {
  const { deps, input } = turn;
  const queue = eventQueue();
  const running = deps.tools.execute(call, {
    conversation_id: turn.conversationId,
    signal: input.signal,
    emit: queue.push,
    depth: input.depth ?? 0,
    model: turn.model,
    tainted: turn.tainted ?? undefined,
    seen: { system: turn.system, messages: turn.messages },
    ...(turn.skills.alone && turn.skills.names.length > 0 ? { skills: turn.skills.names } : {}),
  }).finally(queue.close);
  yield* queue.drain();
  return await running;
}

/**
 * Taints the turn if the result is the first untrusted content it read, then
 * stores the result with the turn's taint, adds it to what the model reads and
 * yields the notice and the `tool_result` event.
 */
async function* recordToolResult(
  turn: Turn,
  call: ToolCall,
  result: ToolResult,
  durationMs: number,
): AsyncGenerator<AgentEvent> {
  const read = untrustedSource(result.content);
  noteSkill(turn, call, result, read);
  const source = turn.tainted ? null : read;
  if (source) {
    // The registry's labels name the tool already ("read_file: notes.txt").
    turn.tainted = source.startsWith(call.name) ? source : `${source}, read by ${call.name}`;
  }
  const { tainted } = turn;
  const { store } = turn.deps;
  const toolRow = await store.write(() =>
    store.addMessage({
      conversation_id: turn.conversationId,
      role: "tool",
      content: result.content,
      tool_call_id: call.id,
      tool_name: call.name,
      is_error: result.is_error,
      taint: tainted,
    })
  );
  turn.messageIds.push(toolRow.id);
  turn.messages.push({
    role: "tool",
    tool_call_id: call.id,
    name: call.name,
    content: result.content,
    is_error: result.is_error,
    ...(tainted ? { taint: tainted } : {}),
  });
  if (source) yield taintNotice(tainted!);
  yield {
    type: "tool_result",
    message_id: toolRow.id,
    tool_call_id: call.id,
    name: call.name,
    content: result.content,
    is_error: result.is_error,
    duration_ms: durationMs,
  };
}

/** The tool whose result is a skill's instructions: its grants then hold in the turn. */
export const USE_SKILL_TOOL = "use_skill";

/**
 * Notes a skill whose instructions the turn read, or that it read something
 * untrusted besides: from then on no skill's grants hold in this turn.
 */
function noteSkill(turn: Turn, call: ToolCall, result: ToolResult, read: string | null): void {
  const skills = turn.skills;
  if (call.name === USE_SKILL_TOOL && !result.is_error) {
    // A turn that read untrusted content before its first skill never gets grants.
    if (skills.names.length === 0 && turn.tainted) skills.alone = false;
    const name = skillNameOf(call);
    if (name && !skills.names.includes(name)) skills.names.push(name);
    return;
  }
  if (read) skills.alone = false;
}

function skillNameOf(call: ToolCall): string | null {
  try {
    const args = JSON.parse(call.arguments || "{}") as { name?: unknown };
    return typeof args.name === "string" ? args.name : null;
  } catch {
    return null;
  }
}
