/**
 * One model step of a turn: the model streams a reply, and this step owns the
 * draft of it — stored at its first text or tool call (or at the provider's
 * error, so a failed turn keeps a reply saying why), saved as it grows so a
 * crash keeps what a client saw, and closed as complete, error or interrupted
 * with its tool calls, its error and token usage. Each save waits (without
 * blocking) while another program holds the database, so the stream pauses
 * rather than passing on text that is not saved. Knows nothing of running
 * the tools.
 */

import { offeredOf } from "./tool_offer.ts";
import type { Turn } from "./turn.ts";
import type { AgentEvent, ToolCall, ToolSpec, Usage } from "./types.ts";

/** How a model step ended. */
export interface ModelStep {
  /** The reply's text (empty when there was none). */
  text: string;
  /** The tools it called, in order. */
  calls: ToolCall[];
  /** The provider's error, when the stream ended with one. */
  failure: { code: string; message: string } | null;
  /** The turn was aborted while the model streamed. */
  interrupted: boolean;
}

/**
 * Streams one reply of the model, yielding `text` and `tool_call` events as
 * they come, and returns how it ended. The reply's message is final when this
 * returns; if the consumer stops iterating first, {@linkcode interruptDraft}
 * saves it.
 *
 * @example
 * ```ts
 * const step = yield* modelStep(turn);
 * if (step.calls.length === 0) return;
 * ```
 */
export async function* modelStep(turn: Turn): AsyncGenerator<AgentEvent, ModelStep> {
  const { deps, input, draft } = turn;
  draft.text = "";
  draft.savedAt = Number.NEGATIVE_INFINITY; // the first text is saved at once
  const calls: ToolCall[] = [];
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let failure: ModelStep["failure"] = null;
  for await (
    const event of deps.llm.stream({
      model: turn.model,
      system: turn.system,
      messages: turn.messages,
      // Read each time: a tool built during the turn is offered at once.
      tools: offeredTools(turn),
      max_output_tokens: deps.settings.maxOutputTokens,
      signal: input.signal,
      purpose: { kind: input.origin, conversation_id: turn.conversationId },
    })
  ) {
    if (input.signal?.aborted) break;
    if (event.type === "text") {
      if (!event.text) continue;
      await appendText(turn, event.text);
      yield { type: "text", text: event.text };
    } else if (event.type === "tool_call") {
      const id = await openDraft(turn);
      calls.push(event.call);
      yield {
        type: "tool_call",
        message_id: id,
        id: event.call.id,
        name: event.call.name,
        arguments: event.call.arguments,
      };
    } else if (event.type === "usage") {
      addUsage(usage, event.usage);
    } else if (event.type === "error") {
      failure = { code: event.error.code, message: event.error.message };
      // Even with no text yet: the failed reply is what a later reader sees of the turn.
      await openDraft(turn);
      break;
    } else if (event.type === "done") {
      break;
    }
  }
  addUsage(turn.usage, usage);
  const step = { text: draft.text, calls, failure, interrupted: input.signal?.aborted ?? false };
  await closeDraft(turn, step, usage);
  return step;
}

/**
 * The tools offered: hob's (or those of them the turn's offer holds, with
 * find_tools), and the caller's own in place of any of the same name.
 */
export function offeredTools(turn: Turn): ToolSpec[] {
  const all = turn.deps.tools.specs();
  const own = turn.offer ? offeredOf(all, turn.offer) : all;
  const clientTools = turn.input.clientTools ?? [];
  if (clientTools.length === 0) return own;
  const clientNames = new Set(clientTools.map((tool) => tool.name));
  return [...own.filter((tool) => !clientNames.has(tool.name)), ...clientTools];
}

/**
 * Saves a reply cut short (the consumer stopped iterating, or something threw)
 * as interrupted, keeping its text; false when no reply was in progress.
 */
export async function interruptDraft(turn: Turn): Promise<boolean> {
  const { draft, deps: { store } } = turn;
  const id = draft.id;
  if (id === null) return false;
  await store.write(() => store.updateMessage(id, { content: draft.text, status: "interrupted" }));
  return true;
}

/** Stores the reply's message at its first text or tool call; resolves with its id. */
async function openDraft(turn: Turn): Promise<number> {
  const { draft, deps: { store } } = turn;
  if (draft.id === null) {
    draft.id = (await store.write(() =>
      store.addMessage({
        conversation_id: turn.conversationId,
        role: "assistant",
        content: "",
        model: turn.model,
        status: "streaming",
        // What the model writes after reading untrusted content is derived from it.
        taint: turn.tainted,
      })
    )).id;
    turn.messageIds.push(draft.id);
    turn.lastAssistantId = draft.id;
  }
  return draft.id;
}

/** Adds streamed text to the reply, saving it when the last save is old enough. */
async function appendText(turn: Turn, text: string): Promise<void> {
  const { draft, deps } = turn;
  const id = await openDraft(turn);
  draft.text += text;
  // Save before passing the text on, so what a client saw survives a crash.
  const now = deps.clock.now().getTime();
  if (now - draft.savedAt >= deps.settings.draftSaveIntervalMs) {
    const content = draft.text;
    await deps.store.write(() => deps.store.updateMessage(id, { content }));
    draft.savedAt = now;
  }
}

/** Saves the finished reply: its text, its calls (when it ended well), its status, error and usage. */
async function closeDraft(turn: Turn, step: ModelStep, usage: Usage): Promise<void> {
  const { draft, deps: { store } } = turn;
  const id = draft.id;
  if (id === null) return;
  const { interrupted, failure, calls } = step;
  await store.write(() =>
    store.updateMessage(id, {
      content: step.text,
      tool_calls: interrupted || failure || calls.length === 0 ? null : calls,
      status: interrupted ? "interrupted" : failure ? "error" : "complete",
      error: interrupted ? null : failure,
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
    })
  );
  draft.id = null;
}

/** Adds `add` to `total`, cache counts only when the provider reported them. */
function addUsage(total: Usage, add: Usage): void {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  if (add.cache_read_tokens) {
    total.cache_read_tokens = (total.cache_read_tokens ?? 0) +
      add.cache_read_tokens;
  }
  if (add.cache_write_tokens) {
    total.cache_write_tokens = (total.cache_write_tokens ?? 0) +
      add.cache_write_tokens;
  }
}
