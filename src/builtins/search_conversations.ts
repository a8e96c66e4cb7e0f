/** The `search_conversations` tool: full-text search over past conversations' messages. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "search_conversations",
  description:
    "Search past conversations (chats, channels, tasks, sub-agents) for what was said: the user's messages, your replies and tool results. Returns hits with the conversation's id and title, the message's id and position, who wrote it, when, and a snippet; read around a hit with view_conversation. The current conversation is left out unless you name it. Memory files are searched by search_memory, not here.",
  category: "conversations",
  side_effect: "none",
  untrusted_output: false,
  services: ["conversations"],
  parameters: z.object({
    query: z.string().min(1).max(1_000).describe("Words to look for"),
    conversation_id: z.string().min(1).max(100).optional()
      .describe("Only this conversation"),
    role: z.enum(["user", "assistant", "tool"]).optional()
      .describe("Only the user's messages, your replies, or tool results"),
    limit: z.number().int().min(1).max(20).default(8),
  }),
  async run(args, context) {
    const hits = await context.services.call("conversations.search", args) as {
      conversation_id: string;
      title: string;
      kind: string;
      message_id: number;
      position: number;
      role: string;
      tool_name: string | null;
      at: string;
      snippet: string;
    }[];
    if (hits.length === 0) return `No past conversation matches '${args.query}'.`;
    return hits.map((hit, i) => {
      const who = hit.tool_name ? `${hit.role} (${hit.tool_name})` : hit.role;
      return `${
        i + 1
      }. conversation ${hit.conversation_id} '${hit.title}' (${hit.kind}), message ${hit.message_id} at position ${hit.position}, ${who}, ${hit.at}\n${hit.snippet}`;
    }).join("\n\n");
  },
});
