/** The `view_conversation` tool: the messages of a conversation around one, to read on from a search hit. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

interface Viewed {
  conversation: { id: string; title: string; kind: string; message_count: number };
  messages: {
    id: number;
    position: number;
    role: string;
    tool_name: string | null;
    called: string[];
    at: string;
    content: string;
    cut: number;
  }[];
}

export default defineTool({
  name: "view_conversation",
  description:
    "Read messages of a conversation around one (e.g. a search_conversations hit): its id, and the message's id or position (default: the first message), with up to 10 messages before and after.",
  category: "conversations",
  side_effect: "none",
  untrusted_output: false,
  services: ["conversations"],
  max_output_chars: 30_000,
  parameters: z.object({
    conversation_id: z.string().min(1).max(100),
    message_id: z.number().int().min(1).optional().describe("The message to read around"),
    position: z.number().int().min(1).optional()
      .describe("Or its position in the conversation, from 1"),
    before: z.number().int().min(0).max(10).default(3).describe("Messages before it"),
    after: z.number().int().min(0).max(10).default(3).describe("Messages after it"),
  }),
  async run(args, context) {
    const { conversation, messages } = await context.services.call(
      "conversations.view",
      args,
    ) as Viewed;
    const first = messages[0]?.position ?? 0;
    const last = messages.at(-1)?.position ?? 0;
    const lines = [
      `Conversation ${conversation.id} '${conversation.title}' (${conversation.kind}), ${conversation.message_count} messages; positions ${first}-${last}:`,
    ];
    for (const message of messages) {
      const who = message.tool_name ? `${message.role} (${message.tool_name})` : message.role;
      const called = message.called.length ? `, called ${message.called.join(", ")}` : "";
      const cut = message.cut ? `\n[… ${message.cut} more characters]` : "";
      lines.push(
        `\n#${message.position}, message ${message.id}, ${who}, ${message.at}${called}:\n${message.content}${cut}`,
      );
    }
    return lines.join("\n");
  },
});
