/**
 * One turn's input and its state: everything the steps of a turn (opening,
 * the model steps, the tool calls, closing) read and change, in one object
 * instead of loose locals. Types, the state's constructor and the notice two
 * steps raise; nothing here calls a port.
 */

import type { AgentDeps } from "./deps.ts";
import type { ToolOffer } from "./tool_offer.ts";
import type { AgentEvent, Attachment, ChatMessage, ToolSpec, TurnStatus, Usage } from "./types.ts";

/** One user message to answer. */
export interface TurnInput {
  message: string;
  /** Continue this conversation; a new one is created when absent. */
  conversation_id?: string;
  /** Use this model for this turn instead of the conversation's. */
  model?: string;
  /** Aborting stops the model and the tools and saves what was produced. */
  signal?: AbortSignal;
  /** Files sent with the message (already stored under HOME/uploads). Images go to the model as images. */
  attachments?: Attachment[];
  /** How deep in spawned sub-agents this turn runs; 0 for the user's own. */
  depth?: number;
  /** The caller's instructions (an OpenAI client's system messages), added to the system prompt. */
  instructions?: string;
  /**
   * The caller's own tools, offered beside hob's (replacing any of the same
   * name). hob does not run them: a call ends the turn with status
   * `tool_calls`, and the caller sends the results in a later turn.
   */
  clientTools?: ToolSpec[];
  /** Messages stored before this turn's own, in order (history a stateless caller sends). */
  seed?: ChatMessage[];
  /** Store no new user message: answer the history as it stands (after `seed`'s tool results). */
  resume?: boolean;
  /** The turn starts tainted, by untrusted content from there (a sub-agent of a tainted turn). */
  tainted?: string;
  /** Which way in asked (`v1`, `mcp`), for the usage log; unset: the conversation's kind. */
  origin?: string;
}

/**
 * The reply being streamed: saved as it grows, and passed on only once saved;
 * the turn's end saves it if it ends early.
 */
export interface Draft {
  /** Its stored message, once its first text or tool call arrived; null between replies. */
  id: number | null;
  text: string;
  /** How much of `text` has been passed on (saved first); the rest is held until the next save. */
  shown: number;
  /** When its text was last saved (clock ms); the first text is saved at once. */
  savedAt: number;
}

/** A turn in progress. */
export interface Turn {
  readonly deps: AgentDeps;
  readonly input: TurnInput;
  readonly conversationId: string;
  readonly model: string;
  /** The files sent with the message, when there are any. */
  readonly attachments?: Attachment[];
  /** The user message stored (or the last seeded one, when resuming). */
  readonly userMessageId: number;
  /** The model's title of a new conversation, on its way. */
  readonly naming?: Promise<string | null>;
  /** The system prompt, once built. */
  system: string;
  /** The tools offered, when only some are (`tools.offer: relevant`); every tool without it. */
  offer?: ToolOffer;
  /** What the model reads: the fitted history, then this turn's messages. */
  messages: ChatMessage[];
  /** Where untrusted content the model has read came from; null while it has read none. */
  tainted: string | null;
  /**
   * The Agent Skills whose instructions the turn read (`use_skill`), and
   * whether they are all the untrusted content it read: only then do the
   * tools their owner granted run unasked. A turn tainted before, or after by
   * anything else, keeps asking.
   */
  skills: { names: string[]; alone: boolean };
  usage: Usage;
  /** Every message the turn stored after the user's, in order. */
  messageIds: number[];
  lastAssistantId: number | null;
  status: TurnStatus;
  draft: Draft;
}

/** A turn's state as it is opened: nothing read, nothing answered. */
export function newTurn(
  opened: Pick<
    Turn,
    "deps" | "input" | "conversationId" | "model" | "attachments" | "userMessageId" | "naming"
  >,
): Turn {
  return {
    ...opened,
    system: "",
    messages: [],
    tainted: null,
    skills: { names: [], alone: true },
    usage: { input_tokens: 0, output_tokens: 0 },
    messageIds: [],
    lastAssistantId: null,
    status: "complete",
    draft: { id: null, text: "", shown: 0, savedAt: Number.NEGATIVE_INFINITY },
  };
}

/**
 * The code of the notice that an answer claiming a save no memory tool made
 * was taken back (save_claim.ts): what the model says next replaces it.
 */
export const UNSAVED_CLAIM = "unsaved_claim";

/**
 * Tells the user (and the page) that side effects now need their approval;
 * `repeat` when an earlier turn of the conversation told them already.
 *
 * @example
 * ```ts
 * taintNotice("fetch_url: https://example.com"); // { type: "notice", code: "tainted", … }
 * ```
 */
export function taintNotice(source: string, repeat = false): AgentEvent {
  return {
    type: "notice",
    code: "tainted",
    source,
    message:
      `This turn has read untrusted content (${source}); tools with side effects now ask before they run.`,
    ...(repeat ? { repeat: true as const } : {}),
  };
}
