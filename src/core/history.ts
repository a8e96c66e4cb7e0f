/**
 * Turning stored messages into the history a model is shown. Stored history can
 * be ragged — a crash between a tool call and its result, a reply cut off by
 * Ctrl-C — and providers reject ragged histories, so this repairs them.
 */

import type { ChatMessage, StoredMessage, ToolCall } from "./types.ts";
import { hobWrote, storedText } from "./untrusted.ts";

/** What the model is told when a tool call has no stored result. */
export const MISSING_TOOL_RESULT = hobWrote(
  "No result: the tool run was interrupted before it finished.",
);

/** Appended to a reply that was cut off (stopped, crashed or failed), so the model knows it did not finish. */
export const INTERRUPTED_MARKER = "[reply interrupted]";

/**
 * Converts stored rows to chat messages: drops system rows and failed replies
 * with no text (a failure's error is for the reader, never the model's words),
 * marks interrupted and failed replies that have text, gives every tool call
 * exactly one result (a synthetic error when none was stored) and drops
 * results of unknown calls.
 *
 * @example
 * ```ts
 * const messages = toChatHistory(store.recentMessages(id, 200));
 * ```
 */
export function toChatHistory(rows: StoredMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  // Calls of the latest assistant message still waiting for their results.
  let pending: ToolCall[] = [];

  const closePending = () => {
    for (const call of pending) {
      out.push({
        role: "tool",
        tool_call_id: call.id,
        name: call.name,
        content: MISSING_TOOL_RESULT,
        is_error: true,
      });
    }
    pending = [];
  };

  for (const row of rows) {
    if (row.role === "tool") {
      const index = pending.findIndex((c) => c.id === row.tool_call_id);
      if (index < 0) continue;
      const [call] = pending.splice(index, 1);
      out.push({
        role: "tool",
        tool_call_id: call.id,
        name: row.tool_name ?? call.name,
        // Labelled when it was stored (the registry labels outside text).
        content: storedText(row.content),
        is_error: row.is_error,
        ...taintOf(row),
      });
      continue;
    }
    closePending();
    if (row.role === "user") {
      out.push({ role: "user", content: row.content, ...taintOf(row) });
    } else if (row.role === "assistant") {
      const calls = row.tool_calls ?? [];
      let content = row.content;
      if (row.status !== "complete") {
        content = content ? `${content}\n\n${INTERRUPTED_MARKER}` : "";
      }
      if (!content && calls.length === 0) continue;
      out.push(
        calls.length > 0
          ? { role: "assistant", content, tool_calls: calls, ...taintOf(row) }
          : { role: "assistant", content, ...taintOf(row) },
      );
      pending = [...calls];
    }
  }
  closePending();
  return out;
}

/** A row's taint as a message field, absent when it has none. */
function taintOf(row: StoredMessage): { taint?: string } {
  return row.taint ? { taint: row.taint } : {};
}
