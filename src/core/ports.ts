/**
 * The contracts the core needs from the world. Adapters (src/llm, src/store,
 * src/tools, …) implement them; the core imports nothing but this folder, so it
 * runs as well against a scripted fake as against a real provider and database.
 */

import type {
  AgentEvent,
  Attachment,
  ChatMessage,
  Conversation,
  ConversationKind,
  ImageContent,
  LlmEvent,
  LlmRequest,
  MessagePatch,
  NewMessage,
  StoredMessage,
  ToolCall,
  ToolResult,
  ToolSpec,
} from "./types.ts";
import type { ModelText } from "./untrusted.ts";

/** A language model behind any provider. */
export interface LlmPort {
  /**
   * Streams one answer. Must never throw for provider trouble: a provider that
   * is down, rate limited or rejects the request ends the stream with one
   * `error` event whose message says what to do. Aborting `request.signal`
   * stops the stream promptly (it may then end without `done`).
   */
  stream(request: LlmRequest): AsyncIterable<LlmEvent>;
}

/**
 * Where conversations and their messages live. Every write is durable when it
 * returns. The loop makes its writes inside {@linkcode ConversationStore.write},
 * so another program holding the database never stops the process.
 */
export interface ConversationStore {
  /**
   * Runs `work` — writes to this store, synchronous — as one transaction once
   * the store can be written, and resolves with what it returned. While
   * another program holds the database's write lock it waits without
   * blocking, as long as unattended work may (minutes); then it rejects with
   * an error that says the store is busy. `work` runs once, or not at all.
   */
  write<T>(work: () => T): Promise<T>;
  getConversation(id: string): Conversation | undefined;
  /** Creates a conversation; `id` defaults to a fresh random id. */
  createConversation(
    init?: { id?: string; title?: string; model?: string | null; kind?: ConversationKind },
  ): Conversation;
  setConversationTitle(id: string, title: string): void;
  /** Stores one message and touches its conversation's `updated_at`. */
  addMessage(message: NewMessage): StoredMessage;
  updateMessage(id: number, patch: MessagePatch): void;
  /** The newest `limit` messages of a conversation with ids above `afterId`, oldest first. */
  recentMessages(conversationId: string, limit: number, afterId?: number): StoredMessage[];
  /** Messages with ids above `afterId`. */
  countMessages(conversationId: string, afterId?: number): number;
  /** Characters of content (and tool calls) in the messages with ids above `afterId`. */
  contentSize(conversationId: string, afterId?: number): number;
  /** Where the live history starts after an auto-flush, and the summary of what came before. */
  getFlush(conversationId: string): { through: number; summary: string };
  setFlush(conversationId: string, through: number, summary: string): void;
}

/** Writing to the user's memory files, for the auto-flush. */
export interface MemoryPort {
  /**
   * Appends to today's log under a heading; returns the file's path,
   * relative to memory/. `from` is the conversation summarised, for the
   * file's history.
   */
  logNote(text: string, heading: string, from: WrittenFrom): Promise<string>;
}

/** The conversation a write to memory came from, and whether it had read untrusted content. */
export interface WrittenFrom {
  conversation_id: string;
  /** Where the untrusted content came from; null for a clean conversation. */
  taint: string | null;
}

/** Context the tools get for one call. */
export interface ToolCallContext {
  /** The conversation the call belongs to; null when the owner calls a tool directly. */
  conversation_id: string | null;
  signal?: AbortSignal;
  /** Puts an event (an approval request) into the turn's stream while the call runs. */
  emit?(event: AgentEvent): void;
  /** Who calls: the agent's turn (the default) or a skill. */
  source?: "agent" | "skill";
  /** How deep in spawned sub-agents this turn runs; 0 for the user's own. */
  depth?: number;
  /** The model of the turn, for tools that ask it something (analyze_image, skills). */
  model?: string;
  /**
   * Set once the turn has read untrusted content: where it came from. Tools with side
   * effects then need the user's approval.
   */
  tainted?: string;
  /**
   * What the model had read when it made the call. In a tainted turn, a tool that
   * reaches an address goes unasked only to one the turn was pointed at here.
   */
  seen?: ModelView;
  /**
   * The Agent Skills whose instructions this turn read while nothing else
   * untrusted was read: the tools their owner granted them run unasked.
   */
  skills?: string[];
}

/** What a model reads in a turn: the system prompt and the messages, in order. */
export interface ModelView {
  system: string;
  messages: readonly ChatMessage[];
}

/** Commands a user types in chat instead of a message: `/name input` runs a skill. */
export interface CommandPort {
  /** The command a message invokes, or null for an ordinary message. */
  match(message: string): { name: string; input: string } | null;
  /** Runs it and returns the reply; throws an Error whose message the user reads. */
  run(name: string, input: string, context: ToolCallContext): Promise<string>;
}

/** The tools the model may call. */
export interface ToolRegistryPort {
  /** The tools offered to the model this turn. */
  specs(): ToolSpec[];
  /**
   * Runs one call. Never throws: unknown tools, invalid arguments, timeouts and
   * failures come back as `{ is_error: true }` with a message the model can act on.
   */
  execute(call: ToolCall, context: ToolCallContext): Promise<ToolResult>;
}

/** The texts the system prompt is built from. */
export interface PromptSources {
  /** SOUL.md and USER.md, read fresh each turn so edits apply at once. */
  identity(): Promise<{ soul: string; user: string }>;
  /** Memory relevant to the user's message; empty when there is none. */
  memoryContext(query: string): Promise<string>;
  /** The Agent Skills a model may use now, each its name and its labelled description. */
  skills?(): Promise<SkillLine[]>;
}

/** One skill as every turn lists it: the model asks for the rest with `use_skill`. */
export interface SkillLine {
  name: string;
  /** The author's description, inside an approved label (the owner accepted it). */
  description: ModelText;
}

/** Files sent with messages: how the model is told of them, and the images it sees. */
export interface AttachmentPort {
  /** Lines added to the user's message naming the files (where the agent's tools can read them). */
  note(attachments: Attachment[]): string;
  /** An image attachment's content for the model; null when it cannot be read. */
  image(attachment: Attachment): Promise<ImageContent | null>;
}

/** The time, so tests can fix it. */
export interface Clock {
  now(): Date;
}
