/**
 * One model step of a turn: the model streams a reply, and this step owns the
 * draft of it — stored at its first text or tool call (or at the provider's
 * error, so a failed turn keeps a reply saying why), saved as it grows and
 * passed on only once saved, so what a client was shown survives a crash, and
 * closed as complete, error or interrupted with its tool calls, its error and
 * token usage. Each save waits (without blocking) while another program
 * holds the database, so the stream pauses rather than passing on text that
 * is not saved. Knows nothing of running the tools.
 */

import { withTimeout } from "./timeout.ts";
import { offeredOf } from "./tool_offer.ts";
import type { Turn } from "./turn.ts";
import type { AgentEvent, LlmEvent, ToolCall, ToolSpec, Usage } from "./types.ts";

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
 * they come, and returns how it ended. Text is yielded once saved: at most
 * every `draftSaveIntervalMs` (text that comes sooner waits for that save, in
 * one event), so the stored reply never lags what was passed on, without a
 * write per token. The reply's message is final when this returns; if the
 * consumer stops iterating first, {@linkcode interruptDraft} saves it.
 *
 * @example
 * ```ts
 * const step = yield* modelStep(turn);
 * if (step.calls.length === 0) return;
 * ```
 */
export async function* modelStep(turn: Turn): AsyncGenerator<AgentEvent, ModelStep> {
  const { input, draft } = turn;
  Object.assign(draft, { text: "", shown: 0, savedAt: Number.NEGATIVE_INFINITY });
  const calls: ToolCall[] = [];
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let failure: ModelStep["failure"] = null;
  for await (const event of savedText(turn)) {
    if (event.type === "text") {
      yield event;
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
  // Held text goes out after the close saved it.
  const held = draft.text.slice(draft.shown);
  await closeDraft(turn, step, usage);
  if (held && !step.interrupted) yield { type: "text", text: held };
  return step;
}

/**
 * The model's events, its text added to the draft and let out only as the
 * draft is saved: at once when the last save is old enough, else when it is
 * (or before a tool call, so the order holds). Text still held when the reply
 * ends is left to the step's close, which saves it anyway. The provider's
 * stream stops when the consumer does, without waiting for the provider.
 */
async function* savedText(turn: Turn): AsyncGenerator<LlmEvent> {
  const { deps, input } = turn;
  const events = deps.llm.stream({
    model: turn.model,
    system: turn.system,
    messages: turn.messages,
    // Read each time: a tool built during the turn is offered at once.
    tools: offeredTools(turn),
    max_output_tokens: deps.settings.maxOutputTokens,
    signal: input.signal,
    purpose: { kind: input.origin, conversation_id: turn.conversationId },
  })[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<LlmEvent>> | undefined;
  try {
    for (;;) {
      pending ??= events.next();
      const due = heldFor(turn);
      const next = due === null ? await pending : await withTimeout(pending, due);
      if (next === undefined) {
        yield await saveHeld(turn);
        continue;
      }
      pending = undefined;
      if (next.done || input.signal?.aborted) return;
      const event = next.value;
      if (event.type === "text") {
        if (!event.text) continue;
        await appendText(turn, event.text);
        if (heldFor(turn) === 0) yield await saveHeld(turn);
        continue;
      }
      if (event.type === "tool_call" && heldFor(turn) !== null) yield await saveHeld(turn);
      yield event;
      if (event.type === "done" || event.type === "error") return;
    }
  } finally {
    // A read still waiting would hold up the stream's end: let it end when the provider does.
    if (pending) {
      pending.catch(() => {/* nobody waits for it any more */});
      events.return?.().catch(() => {});
    } else await events.return?.();
  }
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

/** Adds streamed text to the reply; it is held until it is saved. */
async function appendText(turn: Turn, text: string): Promise<void> {
  await openDraft(turn);
  turn.draft.text += text;
}

/** Milliseconds until the held text is due to be saved and let out; null when none is held. */
function heldFor(turn: Turn): number | null {
  const { draft, deps } = turn;
  if (draft.shown === draft.text.length) return null;
  const since = deps.clock.now().getTime() - draft.savedAt;
  return Math.max(0, deps.settings.draftSaveIntervalMs - since);
}

/** Saves the reply so far, then lets out the text held: what a client sees is always saved. */
async function saveHeld(turn: Turn): Promise<LlmEvent> {
  const { draft, deps: { store, clock } } = turn;
  const id = draft.id!;
  const content = draft.text;
  await store.write(() => store.updateMessage(id, { content }));
  draft.savedAt = clock.now().getTime();
  const text = content.slice(draft.shown);
  draft.shown = content.length;
  return { type: "text", text };
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
