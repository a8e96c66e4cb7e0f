/**
 * The agent loop: one user message in, a stream of events out. A turn is a
 * short list of named steps over one state object (turn.ts): open it
 * (turn_open.ts), load what the model reads (turn_context.ts), then model
 * steps (model_step.ts) and tool rounds (tool_step.ts) until the model
 * answers, and close it (turn_close.ts). Every message is committed as soon as
 * it is complete and partial replies are saved as they stream, so a crash or
 * an abort loses nothing. Knows only the ports; never imports an adapter.
 */

import { runCommand } from "./command_turn.ts";
import type { AgentDeps } from "./deps.ts";
import { interruptDraft, type ModelStep, modelStep } from "./model_step.ts";
import { saveClaims } from "./save_claim.ts";
import { runToolCalls, type ToolRound } from "./tool_step.ts";
import type { Turn, TurnInput } from "./turn.ts";
import { closeTurn } from "./turn_close.ts";
import { loadContext } from "./turn_context.ts";
import { openTurn } from "./turn_open.ts";
import type { AgentEvent, TurnStatus } from "./types.ts";

// What callers of the loop import from here, defined beside the step they belong to.
export type { AgentDeps, AgentSettings } from "./deps.ts";
export type { TurnInput } from "./turn.ts";
export { ConversationNotFoundError } from "./turn_open.ts";
export { titleFrom } from "./title.ts";

/**
 * Runs one turn. Yields `start` first and `done` last; in between `text`,
 * `tool_call`, `tool_result`, `notice` and `error` events as they happen.
 * Stopping the iteration early (a client that goes away) marks a reply in
 * progress as interrupted, exactly like aborting `input.signal`.
 *
 * @example
 * ```ts
 * for await (const event of runTurn(deps, { message: "What time is it?" })) {
 *   if (event.type === "text") Deno.stdout.writeSync(new TextEncoder().encode(event.text));
 * }
 * ```
 */
export async function* runTurn(
  deps: AgentDeps,
  input: TurnInput,
): AsyncGenerator<AgentEvent> {
  const turn = await openTurn(deps, input);
  yield {
    type: "start",
    conversation_id: turn.conversationId,
    user_message_id: turn.userMessageId,
    model: turn.model,
  };
  const command = deps.commands?.match(input.message);
  if (command) {
    yield* runCommand(deps, command, turn);
    return;
  }
  try {
    yield* loadContext(turn);
    yield* converse(turn);
  } finally {
    // The consumer stopped iterating mid-reply, or something threw: keep the text.
    if (await interruptDraft(turn)) turn.status = "interrupted";
  }
  yield* closeTurn(turn);
}

/**
 * Model steps and tool rounds until the model answers or the turn must end;
 * sets the turn's status. An answer that claims a save no memory tool made is
 * taken back once, and the model nudged to save for real (save_claim.ts),
 * while a step is left for the tool call.
 */
async function* converse(turn: Turn): AsyncGenerator<AgentEvent> {
  const { maxToolIterations } = turn.deps.settings;
  const claims = saveClaims(turn);
  for (let iteration = 1;; iteration++) {
    const step = yield* modelStep(turn);
    const stepEnd = endAfterStep(step);
    if (stepEnd === "complete" && iteration + 1 < maxToolIterations && claims.unsaved(step)) {
      yield await claims.nudge(step);
      continue;
    }
    if (stepEnd) {
      turn.status = stepEnd;
      if (step.failure) {
        yield { type: "error", code: step.failure.code, message: step.failure.message };
      }
      return;
    }
    turn.messages.push({
      role: "assistant",
      content: step.text,
      tool_calls: step.calls,
      ...(turn.tainted ? { taint: turn.tainted } : {}),
    });
    const limitReached = iteration >= maxToolIterations;
    const round = yield* runToolCalls(turn, step.calls, limitReached);
    const roundEnd = endAfterRound(turn, round, limitReached);
    if (roundEnd) {
      turn.status = roundEnd;
      if (roundEnd === "max_iterations") {
        yield {
          type: "notice",
          code: "max_iterations",
          message:
            `Stopped after ${maxToolIterations} model calls in one turn; ask again to continue.`,
        };
      }
      return;
    }
  }
}

/** The status a turn ends with after this model step, or null when its tool calls run. */
function endAfterStep(step: ModelStep): TurnStatus | null {
  if (step.interrupted) return "interrupted";
  if (step.failure) return "error";
  return step.calls.length === 0 ? "complete" : null;
}

/** The status a turn ends with after this round of tool calls, or null when the model goes on. */
function endAfterRound(turn: Turn, round: ToolRound, limitReached: boolean): TurnStatus | null {
  if (turn.input.signal?.aborted) return "interrupted";
  if (round.stop) return "complete";
  if (round.forClient) return "tool_calls";
  return limitReached ? "max_iterations" : null;
}
