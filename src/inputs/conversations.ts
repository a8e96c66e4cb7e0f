/**
 * Searching past conversations and reading around a hit: the zod schemas
 * shared by the app's search actions (src/app/conversation_search.ts), which
 * parse and default them, and the tools search_conversations and
 * view_conversation, whose parameters are derived from them. Here, not in the
 * action's module, because that module loads with the first search while the
 * hob services that hand a tool's call on to it load at start. Zod only.
 */

import { z } from "zod";

/** Most hits one search returns: enough to choose from, few enough to read. */
export const MAX_CONVERSATION_HITS = 20;
/** Most messages read on either side of one: a stretch of a conversation, not all of it. */
export const MAX_WINDOW_SIDE = 10;

/** A search of past conversations. */
export const searchConversationsInput = z.strictObject({
  q: z.string().trim().min(1, "must not be empty").max(1_000).describe("Words to look for"),
  conversation_id: z.string().min(1).max(100).optional()
    .describe("Only this conversation (default: every one but the one asking)"),
  role: z.enum(["user", "assistant", "tool"]).optional()
    .describe("Only the user's messages, hob's replies or tool results"),
  limit: z.coerce.number().int().min(1).max(MAX_CONVERSATION_HITS).default(8),
});
/** Messages of a conversation around one, by id or position (default: the first). */
export const viewConversationInput = z.strictObject({
  id: z.string().min(1).max(100),
  message_id: z.coerce.number().int().min(1).optional(),
  position: z.coerce.number().int().min(1).optional(),
  before: z.coerce.number().int().min(0).max(MAX_WINDOW_SIDE).default(3),
  after: z.coerce.number().int().min(0).max(MAX_WINDOW_SIDE).default(3),
});
