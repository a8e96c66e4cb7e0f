/**
 * The `search_conversations` tool: full-text search over past conversations'
 * messages. Its parameters are the app's search input
 * (src/inputs/conversations.ts), the words to look for named `query`.
 */

import { z } from "zod";
import { searchConversationsInput } from "../inputs/conversations.ts";
import { defineTool } from "../sandbox/definition.ts";

const search = searchConversationsInput.shape;

export default defineTool({
  name: "search_conversations",
  description:
    "Search past conversations (chats, channels, tasks, sub-agents) for what was said: the user's messages, your replies and tool results. Returns hits with the conversation's id and title, the message's id and position, who wrote it, when, and a snippet; read around a hit with view_conversation. The current conversation is left out unless you name it. Memory files are searched by search_memory, not here.",
  category: "conversations",
  side_effect: "none",
  untrusted_output: false,
  services: ["conversations"],
  parameters: z.object({
    query: search.q,
    conversation_id: search.conversation_id.describe("Only this conversation"),
    role: search.role.describe("Only the user's messages, your replies, or tool results"),
    limit: search.limit,
  }),
  async run({ query, ...filters }, context) {
    const hits = await context.services.call("conversations.search", { q: query, ...filters });
    if (hits.length === 0) return `No past conversation matches '${query}'.`;
    return hits.map((hit, i) => {
      const who = hit.tool_name ? `${hit.role} (${hit.tool_name})` : hit.role;
      return `${
        i + 1
      }. conversation ${hit.conversation_id} '${hit.title}' (${hit.kind}), message ${hit.message_id} at position ${hit.position}, ${who}, ${hit.at}\n${hit.snippet}`;
    }).join("\n\n");
  },
});
