/**
 * Searching past conversations and reading around a hit have one schema each
 * (src/inputs/conversations.ts): the app's search actions parse them, and
 * search_conversations' and view_conversation's parameters are derived from
 * them, so a model meets the limits a person does. The tools name two fields
 * for the model (`query`, `conversation_id`) and send the action's names.
 */

import { z } from "zod";
import { searchConversationsInput, viewConversationInput } from "../../src/inputs/conversations.ts";
import searchConversations from "../../src/builtins/search_conversations.ts";
import viewConversation from "../../src/builtins/view_conversation.ts";
import { assertEquals } from "../helpers/assert.ts";

/** A schema's properties as JSON Schema, without the words for the model, by the action's names. */
function properties(
  schema: z.ZodType,
  renamed: Record<string, string> = {},
): Record<string, Record<string, unknown>> {
  const { properties } = z.toJSONSchema(schema, { io: "input" });
  return Object.fromEntries(
    Object.entries(JSON.parse(JSON.stringify(properties))).map(([name, property]) => {
      const { description: _, ...rest } = property as Record<string, unknown>;
      return [renamed[name] ?? name, rest];
    }),
  );
}

Deno.test("search_conversations' and view_conversation's parameters are the app's inputs", () => {
  assertEquals(
    properties(searchConversations.parameters as z.ZodType, { query: "q" }),
    properties(searchConversationsInput),
  );
  assertEquals(
    properties(viewConversation.parameters as z.ZodType, { conversation_id: "id" }),
    properties(viewConversationInput),
  );
});
