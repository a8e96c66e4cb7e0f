/**
 * Folding a turn's events into one reply, for callers that do not stream
 * (`POST /api/chat` without SSE, `hob ask --json`).
 */

import { UNSAVED_CLAIM } from "./turn.ts";
import type { AgentEvent, TurnStatus, Usage } from "./types.ts";

/** A tool call of the turn with its result. */
export interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string;
  result: string | null;
  is_error: boolean;
  duration_ms: number | null;
}

/** A whole turn, as one object. */
export interface TurnReply {
  conversation_id: string;
  user_message_id: number;
  message_id: number | null;
  model: string;
  status: TurnStatus;
  /** The text of the turn's final answer; text the model wrote before calling tools is in the conversation's messages. */
  content: string;
  tool_calls: ReplyToolCall[];
  notices: { code: string; message: string }[];
  error: { code: string; message: string } | null;
  usage: Usage;
  /** Where untrusted content the turn read came from; null for a clean turn. */
  taint: string | null;
}

/**
 * Consumes a turn and returns it as one reply.
 *
 * @example
 * ```ts
 * const reply = await collectReply(runTurn(deps, { message: "hi" }));
 * console.log(reply.content);
 * ```
 */
export async function collectReply(
  events: AsyncIterable<AgentEvent>,
): Promise<TurnReply> {
  const reply: TurnReply = {
    conversation_id: "",
    user_message_id: 0,
    message_id: null,
    model: "",
    status: "complete",
    content: "",
    tool_calls: [],
    notices: [],
    error: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    taint: null,
  };
  let afterTools = false;
  for await (const event of events) {
    switch (event.type) {
      case "start":
        reply.conversation_id = event.conversation_id;
        reply.user_message_id = event.user_message_id;
        reply.model = event.model;
        break;
      case "text":
        // A new answer starts after tool results; keep only the last one.
        if (afterTools) {
          reply.content = "";
          afterTools = false;
        }
        reply.content += event.text;
        break;
      case "tool_call":
        reply.tool_calls.push({
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          result: null,
          is_error: false,
          duration_ms: null,
        });
        break;
      case "tool_result": {
        afterTools = true;
        const call = reply.tool_calls.find((c) => c.id === event.tool_call_id);
        if (call) {
          call.result = event.content;
          call.is_error = event.is_error;
          call.duration_ms = event.duration_ms;
        }
        break;
      }
      case "notice":
        // An answer claiming a save that did not happen was taken back: what follows replaces it.
        if (event.code === UNSAVED_CLAIM) reply.content = "";
        // A repeated taint notice still taints the reply; people were told on an earlier turn.
        if (!event.repeat) reply.notices.push({ code: event.code, message: event.message });
        if (event.code === "tainted") reply.taint ??= event.source ?? "untrusted content";
        break;
      case "error":
        reply.error = { code: event.code, message: event.message };
        break;
      case "done":
        reply.status = event.status;
        reply.message_id = event.message_id;
        reply.usage = event.usage;
        break;
    }
  }
  return reply;
}
