/**
 * Opening a turn: the conversation found or created, the model chosen, the
 * caller's seed history and the user's message stored, and a new
 * conversation given a provisional title while the model names it — all in
 * one write of the store, before anything is streamed, so it is stored whole
 * or not at all. Knows nothing of the reply.
 */

import type { AgentDeps } from "./deps.ts";
import { nameConversation, titleFrom } from "./title.ts";
import { newTurn, type Turn, type TurnInput } from "./turn.ts";
import type { ChatMessage, Conversation } from "./types.ts";

/** Raised before anything is stored when a turn names a conversation that does not exist. */
export class ConversationNotFoundError extends Error {
  override name = "ConversationNotFoundError";
  readonly conversationId: string;
  constructor(conversationId: string) {
    super(`Conversation '${conversationId}' does not exist`);
    this.conversationId = conversationId;
  }
}

/**
 * Opens a turn: stores what the caller sent, in one write of the store (which
 * waits while another program holds the database), and returns the turn's
 * state. Throws {@linkcode ConversationNotFoundError} for an unknown
 * conversation and an Error when files come to a hob that takes none, with
 * nothing stored.
 *
 * @example
 * ```ts
 * const turn = await openTurn(deps, { message: "Hi" });
 * turn.conversationId; // a new conversation's id
 * ```
 */
export function openTurn(deps: AgentDeps, input: TurnInput): Promise<Turn> {
  return deps.store.write(() => storeOpening(deps, input));
}

/** What opening a turn writes, inside the store's write. */
function storeOpening(deps: AgentDeps, input: TurnInput): Turn {
  const { store, settings } = deps;
  let conversation = input.conversation_id
    ? store.getConversation(input.conversation_id)
    : undefined;
  if (input.conversation_id && !conversation) {
    throw new ConversationNotFoundError(input.conversation_id);
  }
  conversation ??= store.createConversation({ model: input.model ?? null });
  const model = input.model ?? conversation.model ?? settings.defaultModel;

  const attachments = input.attachments?.length ? input.attachments : undefined;
  if (attachments && !deps.attachments) throw new Error("This hob cannot take files with messages");
  const lastSeedId = storeSeed(deps, conversation.id, input.seed ?? []);
  const userMessageId = input.resume ? lastSeedId : store.addMessage({
    conversation_id: conversation.id,
    role: "user",
    content: attachments
      ? `${input.message}\n\n${deps.attachments!.note(attachments)}`
      : input.message,
    attachments,
    // A message made from untrusted content (a task a tainted turn created) carries its taint.
    taint: input.tainted ?? null,
  }).id;
  const naming = titleNewConversation(deps, conversation, model, input);
  return newTurn({
    deps,
    input,
    conversationId: conversation.id,
    model,
    attachments,
    userMessageId,
    naming,
  });
}

/** Stores the caller's history before the turn's own message; returns the last id (0 for none). */
function storeSeed(deps: AgentDeps, conversationId: string, seed: ChatMessage[]): number {
  let lastSeedId = 0;
  for (const message of seed) {
    lastSeedId = deps.store.addMessage({
      conversation_id: conversationId,
      role: message.role,
      content: message.content,
      tool_calls: message.role === "assistant" ? message.tool_calls ?? null : null,
      tool_call_id: message.role === "tool" ? message.tool_call_id : null,
      tool_name: message.role === "tool" ? message.name : null,
      is_error: message.role === "tool" ? message.is_error ?? false : false,
      taint: message.taint ?? null,
    }).id;
  }
  return lastSeedId;
}

/**
 * Gives an untitled conversation its first line as a title, and (for a chat,
 * when enabled) asks the model for a better one. Resolves with the model's
 * title once it is set; null when it failed or the user renamed meanwhile.
 */
function titleNewConversation(
  deps: AgentDeps,
  conversation: Conversation,
  model: string,
  input: TurnInput,
): Promise<string | null> | undefined {
  if (conversation.title || input.resume) return undefined;
  const { store } = deps;
  const provisional = titleFrom(input.message);
  store.setConversationTitle(conversation.id, provisional);
  // The model names the conversation while it replies; the first line stands until then.
  if (
    !deps.settings.autoTitle || (conversation.kind ?? "chat") !== "chat" ||
    deps.commands?.match(input.message)
  ) return undefined;
  return nameConversation(deps.llm, model, input.message, input.signal, conversation.id).then(
    (title) =>
      title
        ? store.write(() => {
          // The user renamed it meanwhile: their title stays.
          if (store.getConversation(conversation.id)?.title !== provisional) return null;
          store.setConversationTitle(conversation.id, title);
          return title;
        }).catch(() => null) // a title is not worth failing the turn for
        : null,
  );
}
