/**
 * The conversation actions — list, get, read the messages, create, rename,
 * remove, set the model, read the audit log of tool calls, check a model,
 * search them and read around a hit (conversation_search.ts) —
 * and the one that starts a chat turn, each defined once: one zod schema for
 * its input (the one the OpenAPI document shows, and for a turn the one
 * MCP's `ask_hob` shows), its defaults, and its refusals as
 * {@linkcode ActionError}s. REST, `/v1`, MCP, the page and the CLI are
 * translators over these.
 *
 * It knows the conversation store, the tool-event log and the ports it is
 * handed (the router's model check, the runtime's turn, the uploads); nothing
 * of any wire format, nor how a turn runs.
 */

import { z } from "zod";
import { ConversationNotFoundError, type TurnInput } from "../core/agent.ts";
import type {
  AgentEvent,
  Attachment,
  Conversation,
  ConversationKind,
  StoredMessage,
} from "../core/types.ts";
import type { ConversationSummary, SqliteConversationStore } from "../store/conversations.ts";
import type { SqliteToolEvents, ToolEvent } from "../store/tool_events.ts";
import type { SqliteKv } from "../store/kv.ts";
import { ActionError, checkInput } from "./errors.ts";
import type {
  ConversationHit,
  ConversationSearchActions,
  ConversationView,
  SearchConversationsInput,
  ViewConversationInput,
} from "./conversation_search.ts";

/** Longest chat message, in characters: a long paste, not a book. */
export const MAX_MESSAGE_CHARS = 500_000;
/** Longest conversation title: a line in a list. */
export const MAX_TITLE_CHARS = 200;
/** Most conversations one listing returns: a page, not all of them. */
export const MAX_CONVERSATION_LIST = 500;
/** Most messages one read returns: a long conversation in one go, not an unbounded answer. */
export const MAX_MESSAGE_PAGE = 5_000;
/** Most files one message carries. */
const MAX_ATTACHMENTS = 20;

/** Every kind a listing can filter by; `all` for every kind. */
export const CONVERSATION_KINDS = [
  "chat",
  "job",
  "heartbeat",
  "task",
  "subagent",
  "channel",
  "all",
] as const satisfies readonly (ConversationKind | "all")[];

// Its form is checked with the model itself (`usable`), in words that say what to write.
const modelId = z.string().min(1, "must not be empty").max(200);
const conversationId = z.string().min(1);

/** One chat message to answer: `POST /api/chat`'s body. */
export const chatInput = z.strictObject({
  message: z.string().min(1, "must not be empty").max(MAX_MESSAGE_CHARS)
    .describe("What to ask hob"),
  conversation_id: z.string().min(1).max(100).optional()
    .describe("Continue this conversation (default: start a new one)"),
  model: modelId.optional().describe("The model for this turn, as `<provider>/<model>`"),
  attachments: z.array(z.string().min(1).max(300)).max(MAX_ATTACHMENTS).optional()
    .describe("Paths of files sent to /api/uploads first"),
});
/** The part of a turn's input another agent may send (MCP's `ask_hob`). */
export const askInput = chatInput.pick({ message: true, conversation_id: true });
/** A listing, most recent first; numbers may come as a query string's digits. */
export const listConversationsInput = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_CONVERSATION_LIST).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  q: z.string().max(MAX_TITLE_CHARS).optional(),
  kind: z.enum(CONVERSATION_KINDS).default("chat"),
});
/** One conversation, by id. */
export const conversationIdInput = z.object({ id: conversationId });
/** A page of a conversation's messages: those after message `after`, oldest first. */
export const messagesQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_MESSAGE_PAGE).default(1_000),
});
/** A conversation's messages. */
export const listMessagesInput = messagesQuery.extend({ id: conversationId });
/** A new conversation. */
export const newConversationInput = z.strictObject({
  // Trimmed as a rename's is; a blank one is no title (the first turn names it).
  title: z.string().trim().max(MAX_TITLE_CHARS).optional(),
  model: modelId.optional(),
});
/** What renaming takes beyond the id. */
export const renameBody = z.strictObject({
  title: z.string().trim().min(1, "must not be empty").max(MAX_TITLE_CHARS),
});
/** A conversation to rename. */
export const renameInput = renameBody.extend({ id: conversationId });
/** What setting the model takes beyond the id: `null` for the default. */
export const modelBody = z.strictObject({ model: modelId.nullable() });
/** A conversation whose model to set. */
export const setModelInput = modelBody.extend({ id: conversationId });
/** A model to check. */
export const checkModelInput = z.object({ model: modelId });

export type ChatInput = z.input<typeof chatInput>;
export type AskInput = z.input<typeof askInput>;
export type ListConversationsInput = z.input<typeof listConversationsInput>;
export type ConversationIdInput = z.input<typeof conversationIdInput>;
export type ListMessagesInput = z.input<typeof listMessagesInput>;
export type NewConversationInput = z.input<typeof newConversationInput>;
export type RenameInput = z.input<typeof renameInput>;
export type SetModelInput = z.input<typeof setModelInput>;
export type CheckModelInput = z.input<typeof checkModelInput>;

/**
 * What a way in adds to a turn beyond its input, none of which a person
 * types: the abort signal, a stateless API's instructions, tools and
 * history (`/v1`), and where the message came from when someone other than
 * the owner wrote it (a guest on a channel): the turn starts tainted.
 */
export type TurnOptions = Pick<
  TurnInput,
  "signal" | "instructions" | "clientTools" | "seed" | "resume" | "tainted" | "origin"
>;

/** What the conversation actions work on. */
export interface ConversationDeps {
  store: SqliteConversationStore;
  toolEvents: SqliteToolEvents;
  /** Why a model cannot be used, or null (the provider router's check). */
  checkModel(model: string): string | null;
  /** Runs one turn (the runtime's, which close() can interrupt). */
  turn(input: TurnInput): AsyncGenerator<AgentEvent>;
  /** An earlier upload by its home-relative path; throws, saying why, when it is not one. */
  findUpload(path: string): Promise<Attachment>;
  /** The attachments with what each audio file says filled in (src/app/speech.ts). */
  hear?(attachments: Attachment[], signal?: AbortSignal): Promise<Attachment[]>;
  /** Where the conversations an OpenAI-style client continues are remembered. */
  kv: SqliteKv;
}

/** The kv key of a client's history, by its digest (`/v1`): the conversation it continues. */
const THREAD_KEY = "v1:history:";

/**
 * The conversation actions, and searching them (conversation_search.ts).
 * Each checks its input and refuses with an {@linkcode ActionError}.
 */
export interface ConversationActions {
  /** {@linkcode ConversationSearchActions.search}, loaded with the first search or view. */
  search(
    input: SearchConversationsInput,
    options?: { exclude?: string },
  ): Promise<ConversationHit[]>;
  /** {@linkcode ConversationSearchActions.view}, loaded with the first search or view. */
  view(input: ViewConversationInput): Promise<ConversationView>;
  list(input?: ListConversationsInput): ConversationSummary[];
  /** With its message count; `not_found` when there is no such conversation. */
  get(input: ConversationIdInput): ConversationSummary;
  messages(input: ListMessagesInput): StoredMessage[];
  /** `invalid` (field `model`) when no provider serves the model. */
  create(input?: NewConversationInput): ConversationSummary;
  rename(input: RenameInput): Conversation;
  remove(input: ConversationIdInput): void;
  setModel(input: SetModelInput): Conversation;
  /** Every tool call of the conversation, for audit. */
  toolEvents(input: ConversationIdInput): ToolEvent[];
  /**
   * Refuses a model no provider serves (`invalid`, field `model`) and
   * returns it: the check a turn and a conversation's model go through, for
   * a way in that refuses a flag before any turn.
   */
  checkModel(input: CheckModelInput): string;
  /**
   * Starts a turn: checks the input, the conversation (`not_found`), the
   * model and the attachments (`invalid`, `attachments.N`) before anything
   * is stored, then streams the turn's events. A conversation deleted after
   * the check is a `not_found` thrown by the stream.
   */
  turn(input: ChatInput, options?: TurnOptions): Promise<AsyncGenerator<AgentEvent>>;
  /**
   * {@linkcode ConversationActions.turn} for another agent (MCP's `ask_hob`):
   * only the fields of {@linkcode askInput}, any other refused as unknown.
   */
  ask(input: AskInput, options?: TurnOptions): Promise<AsyncGenerator<AgentEvent>>;
  /**
   * The conversation a stateless client's history continues (`/v1`: a client
   * sends the whole history each time), by the history's digest; undefined
   * when none does or it was deleted since.
   */
  threadOf(digest: string): string | undefined;
  /** Remembers that the history with `digest` continues `conversationId`. */
  keepThread(digest: string, conversationId: string): void;
}

/**
 * The conversation actions over a store and a turn.
 *
 * @example
 * ```ts
 * const conversations = createConversationActions({ store, toolEvents, checkModel, turn, findUpload });
 * const events = await conversations.turn({ message: "Hi" });
 * for await (const event of events) console.log(event.type);
 * ```
 */
export function createConversationActions(deps: ConversationDeps): ConversationActions {
  const { store } = deps;
  const find = (id: string, field = "id") => {
    const conversation = store.getConversation(id);
    if (!conversation) throw missing(id, field);
    return conversation;
  };
  const usable = (model: string | null | undefined) => {
    const problem = model ? deps.checkModel(model) : null;
    if (problem) throw new ActionError("invalid", problem, { field: "model" });
  };
  return {
    ...searchOnFirstUse(store),
    list(input = {}) {
      const { limit, offset, q, kind } = checkInput(listConversationsInput, input);
      return store.listConversations({ limit, offset, query: q, kind });
    },
    get(input) {
      const conversation = find(checkInput(conversationIdInput, input).id);
      return { ...conversation, message_count: store.countMessages(conversation.id) };
    },
    messages(input) {
      const { id, after, limit } = checkInput(listMessagesInput, input);
      return store.listMessages(find(id).id, { after, limit });
    },
    create(input = {}) {
      const { title, model } = checkInput(newConversationInput, input);
      usable(model);
      const conversation = store.createConversation({ title: title ?? "", model: model ?? null });
      return { ...conversation, message_count: 0 };
    },
    rename(input) {
      const { id, title } = checkInput(renameInput, input);
      store.setConversationTitle(find(id).id, title);
      return find(id);
    },
    remove(input) {
      const { id } = checkInput(conversationIdInput, input);
      if (!store.deleteConversation(id)) throw missing(id, "id");
    },
    setModel(input) {
      const { id, model } = checkInput(setModelInput, input);
      find(id);
      usable(model);
      store.setConversationModel(id, model);
      return find(id);
    },
    toolEvents(input) {
      return deps.toolEvents.list(find(checkInput(conversationIdInput, input).id).id);
    },
    checkModel(input) {
      const { model } = checkInput(checkModelInput, input);
      usable(model);
      return model;
    },
    turn: (input, options) => startTurn(checkInput(chatInput, input), options),
    ask: (input, options) => startTurn(checkInput(askInput, input), options),
    threadOf(digest) {
      const known = deps.kv.read<string>(THREAD_KEY + digest);
      return known && store.getConversation(known) ? known : undefined;
    },
    keepThread(digest, conversationId) {
      deps.kv.write(THREAD_KEY + digest, conversationId);
    },
  };

  /** A checked turn's conversation, model and attachments, then the turn itself. */
  async function startTurn(
    { message, conversation_id, model, attachments }: z.output<typeof chatInput>,
    options: TurnOptions = {},
  ): Promise<AsyncGenerator<AgentEvent>> {
    if (conversation_id) find(conversation_id, "conversation_id");
    usable(model);
    const found = await findAttachments(deps, attachments ?? []);
    // Audio sent with the message is heard before the turn, so the model reads what it says.
    const files = deps.hear && found.length ? await deps.hear(found, options.signal) : found;
    const events = deps.turn({ message, conversation_id, model, attachments: files, ...options });
    return refusingMissing(events);
  }
}

/**
 * The search actions, their module loaded by the first search or view and
 * kept: a chat turn or a start needs neither.
 */
function searchOnFirstUse(
  store: SqliteConversationStore,
): Pick<ConversationActions, "search" | "view"> {
  let loading: Promise<ConversationSearchActions> | undefined;
  const actions = () =>
    loading ??= import("./conversation_search.ts").then(({ createConversationSearch }) =>
      createConversationSearch(store)
    );
  return {
    search: async (input, options) => (await actions()).search(input, options),
    view: async (input) => (await actions()).view(input),
  };
}

/** The refusal for a conversation that is not there. */
function missing(id: string, field: string, cause?: unknown): ActionError {
  return new ActionError("not_found", `Conversation '${id}' does not exist`, { field, cause });
}

/** The uploads a message names, in order; the first that is none is refused by its index. */
async function findAttachments(deps: ConversationDeps, paths: string[]): Promise<Attachment[]> {
  const found: Attachment[] = [];
  for (const [index, path] of paths.entries()) {
    try {
      found.push(await deps.findUpload(path));
    } catch (error) {
      throw new ActionError("invalid", (error as Error).message, {
        field: `attachments.${index}`,
        cause: error,
      });
    }
  }
  return found;
}

/** A turn's events, with a conversation deleted after the check refused as one never there. */
async function* refusingMissing(events: AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
  try {
    yield* events;
  } catch (error) {
    if (!(error instanceof ConversationNotFoundError)) throw error;
    throw missing(error.conversationId, "conversation_id", error);
  }
}
