/**
 * Searching past conversations and reading around a hit, each action defined
 * once with its input schema and refusals — and whose words each message is:
 * a hit or a message says where its untrusted content came from (a tool's
 * output, a guest on a channel, a turn that had read outside text, a label in
 * its text), so the way in that shows it to a model labels it. The owner's
 * own messages and hob's untainted replies are trusted.
 *
 * Knows the conversation store and provenance; nothing of any wire format,
 * nor of how a model is shown the text.
 */

import type { z } from "zod";
import { untrustedSource } from "../core/untrusted.ts";
import type { Conversation, ConversationKind, StoredMessage } from "../core/types.ts";
import type { PlacedMessage, SqliteConversationStore } from "../store/conversations.ts";
import type { MessageHit } from "../store/message_search.ts";
import { searchConversationsInput, viewConversationInput } from "../inputs/conversations.ts";
import { ActionError, checkInput } from "./errors.ts";

export { searchConversationsInput, viewConversationInput };

export type SearchConversationsInput = z.input<typeof searchConversationsInput>;
export type ViewConversationInput = z.input<typeof viewConversationInput>;

/** A search hit, and where its untrusted content came from (null: the owner's or hob's own words). */
export type ConversationHit = MessageHit & { untrusted: string | null };

/** A message read around a hit, and where its untrusted content came from. */
export type ViewedMessage = PlacedMessage & { untrusted: string | null };

/** A stretch of a conversation. */
export interface ConversationView {
  conversation: Conversation & { message_count: number };
  messages: ViewedMessage[];
}

/** The search actions. */
export interface ConversationSearchActions {
  /**
   * The messages that match best, best first. `exclude` leaves a
   * conversation out (the one asking) unless the input names it.
   */
  search(input: SearchConversationsInput, options?: { exclude?: string }): ConversationHit[];
  /** `not_found` for a conversation or a message that is not there. */
  view(input: ViewConversationInput): ConversationView;
}

/**
 * The search actions over a store.
 *
 * @example
 * ```ts
 * const { search } = createConversationSearch(store);
 * search({ q: "kyoto hotel" }, { exclude: currentConversationId });
 * ```
 */
export function createConversationSearch(
  store: SqliteConversationStore,
): ConversationSearchActions {
  return {
    search(input, options = {}) {
      const { q, conversation_id, role, limit } = checkInput(searchConversationsInput, input);
      const hits = store.searchMessages(q, {
        limit,
        role,
        conversationId: conversation_id,
        excludeConversationId: conversation_id ? undefined : options.exclude,
      });
      return hits.map((hit) => ({
        ...hit,
        title: ownTitle(hit.title, hit.kind),
        untrusted: untrustedPart({ ...hit, content: hit.snippet }),
      }));
    },
    view(input) {
      const { id, message_id, position, before, after } = checkInput(viewConversationInput, input);
      const conversation = store.getConversation(id);
      if (!conversation) {
        throw new ActionError("not_found", `Conversation '${id}' does not exist`, { field: "id" });
      }
      const window = store.messageWindow(id, { messageId: message_id, position }, before, after);
      if (!window) {
        const which = message_id !== undefined ? `message ${message_id}` : `position ${position}`;
        throw new ActionError("not_found", `Conversation '${id}' has no ${which}`, {
          field: message_id !== undefined ? "message_id" : "position",
        });
      }
      return {
        conversation: {
          ...conversation,
          title: ownTitle(conversation.title, conversation.kind),
          message_count: store.countMessages(id),
        },
        messages: window.map((message) => ({ ...message, untrusted: untrustedPart(message) })),
      };
    },
  };
}

/**
 * Where a stored message's untrusted content came from, or null when it is
 * the owner's or hob's own: a tool's output (whatever the tool), a message
 * written in a tainted turn (a guest's on a channel, a reply after reading a
 * page), text that carries a label.
 *
 * @example
 * ```ts
 * untrustedPart({ role: "tool", tool_name: "read_file", taint: null, content: "…" });
 * // "a result of read_file"
 * ```
 */
export function untrustedPart(
  message: Pick<StoredMessage, "role" | "tool_name" | "taint" | "content">,
): string | null {
  if (message.role === "tool") return `a result of ${message.tool_name ?? "a tool"}`;
  return message.taint ?? untrustedSource(message.content);
}

/**
 * The part of a title hob or the owner wrote. A channel's conversation is
 * titled `Telegram · <the chat's name>`, and the name is the platform's
 * (anyone in a group may set it): only the channel is kept.
 */
function ownTitle(title: string, kind: ConversationKind): string {
  return kind === "channel" ? title.split(" · ")[0] : title;
}
