/**
 * What the agent loop runs on: its ports and its settings. Types only, so the
 * loop (agent.ts) and the auto-flush (flush.ts) can both take them without
 * importing each other.
 */

import type {
  AttachmentPort,
  Clock,
  CommandPort,
  ConversationStore,
  LlmPort,
  MemoryPort,
  PromptSources,
  ToolRegistryPort,
} from "./ports.ts";
import type { ToolOfferSettings } from "./tool_offer.ts";

/** When and how much to flush. */
export interface FlushSettings {
  enabled: boolean;
  /** Live history above this many (estimated) tokens is flushed. */
  thresholdTokens: number;
  /** The newest messages that stay live. */
  keepMessages: number;
}

/** How the loop behaves; every field comes from config. */
export interface AgentSettings {
  /** The model used when neither the turn nor the conversation names one. */
  defaultModel: string;
  /**
   * Model calls per turn before the loop stops.
   * @default {10}
   */
  maxToolIterations: number;
  /** The model's context window, in tokens. */
  contextTokens: number;
  /** Tokens reserved for the reply, out of `contextTokens`. */
  maxOutputTokens: number;
  /** Messages read from the store per turn before fitting the budget. */
  maxHistoryMessages: number;
  /**
   * How often a streaming reply's partial text is saved, so a crash keeps it.
   * Text is passed on as it is saved, so this is also how often a reply's
   * text reaches the screen after its first words.
   * @default {250}
   */
  draftSaveIntervalMs: number;
  /** Auto-flush of long conversations into the daily log; off without it. */
  flush?: FlushSettings;
  /** Let the model title a new conversation from its first message (one small request). */
  autoTitle?: boolean;
  /** Which tools a turn offers; every tool without it. */
  toolOffer?: ToolOfferSettings;
}

/** What the loop runs on. */
export interface AgentDeps {
  llm: LlmPort;
  store: ConversationStore;
  tools: ToolRegistryPort;
  prompt: PromptSources;
  clock: Clock;
  settings: AgentSettings;
  /** Chat commands (`/skill input`); without it every message goes to the model. */
  commands?: CommandPort;
  /** Where auto-flush writes its summaries. */
  memory?: MemoryPort;
  /** Files sent with messages; without it attachments are refused. */
  attachments?: AttachmentPort;
}
