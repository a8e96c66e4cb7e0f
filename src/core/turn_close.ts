/**
 * Closing a turn: a complete turn may flush a long conversation into memory,
 * a new conversation gets the model's title if it comes in time, and `done`
 * reports the status, the stored messages and the usage. Stores nothing of
 * its own; knows nothing of how the reply was made.
 */

import { flushIfNeeded } from "./flush.ts";
import { withTimeout } from "./timeout.ts";
import type { Turn } from "./turn.ts";
import type { AgentEvent } from "./types.ts";

/** How long the end of a turn waits for the model's title of a new conversation. */
const TITLE_WAIT_MS = 5_000;

/**
 * Yields the turn's last events: auto-flush notices (a failed flush is a
 * notice, not an error), the title, and `done`.
 *
 * @example
 * ```ts
 * yield* closeTurn(turn);
 * ```
 */
export async function* closeTurn(turn: Turn): AsyncGenerator<AgentEvent> {
  const { deps, input, conversationId } = turn;
  if (turn.status === "complete") {
    try {
      yield* flushIfNeeded(deps, conversationId, turn.model, input.signal);
    } catch (error) {
      yield {
        type: "notice",
        code: "memory_flush_failed",
        message: `Auto-flush failed: ${(error as Error).message}`,
      };
    }
  }

  if (turn.naming) {
    const title = await withTimeout(turn.naming, TITLE_WAIT_MS);
    if (title) yield { type: "title", conversation_id: conversationId, title };
  }

  yield {
    type: "done",
    conversation_id: conversationId,
    status: turn.status,
    message_id: turn.lastAssistantId,
    message_ids: turn.messageIds,
    usage: turn.usage,
  };
}
