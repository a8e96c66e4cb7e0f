/**
 * The `view_conversation` tool: the messages of a conversation around one, to
 * read on from a search hit. Its parameters are the app's view input
 * (src/inputs/conversations.ts), the conversation named `conversation_id`.
 */

import { z } from "zod";
import { viewConversationInput } from "../inputs/conversations.ts";
import { defineTool } from "../sandbox/definition.ts";

const view = viewConversationInput.shape;

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
    conversation_id: view.id,
    message_id: view.message_id.describe("The message to read around"),
    position: view.position.describe("Or its position in the conversation, from 1"),
    before: view.before.describe("Messages before it"),
    after: view.after.describe("Messages after it"),
  }),
  async run({ conversation_id, ...around }, context) {
    const { conversation, messages } = await context.services.call(
      "conversations.view",
      { id: conversation_id, ...around },
    );
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
