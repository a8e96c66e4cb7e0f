/**
 * The words the agent speaks: messages, tool calls, provider events and the
 * events a turn yields. Plain data only — this file must not know SQLite, HTTP
 * or any provider's wire format.
 */

import type { ModelText } from "./untrusted.ts";

/** Who wrote a message. */
export type Role = "system" | "user" | "assistant" | "tool";

/** A tool call the model asked for; `arguments` is the model's raw JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Token counts reported by a provider for one request (or summed over a turn). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens served from the provider's cache, when it says so. */
  cache_read_tokens?: number;
  /** Prompt tokens written to the provider's cache, when it says so. */
  cache_write_tokens?: number;
}

/** An image for the model, base64-encoded. */
export interface ImageContent {
  media_type: string;
  data: string;
}

/**
 * A message as the model sees it, independent of any provider's format. A
 * tool's result is {@linkcode ModelText}: outside text in it is labelled.
 * `taint` (never sent to a provider) says the message was written in a turn
 * that had read untrusted content, and from where: a turn that shows it to the
 * model is tainted too.
 */
export type ChatMessage =
  | { role: "user"; content: string; images?: ImageContent[]; taint?: string }
  | { role: "assistant"; content: string; tool_calls?: ToolCall[]; taint?: string }
  | {
    role: "tool";
    tool_call_id: string;
    name: string;
    content: ModelText;
    is_error?: boolean;
    taint?: string;
  };

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

/** What the model is told about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** Groups tools in the system prompt ("files", "time", …). */
  category?: string;
  /** Offered in every turn, even when only the relevant tools are (a task's terminal tools). */
  always?: boolean;
}

/**
 * The outcome of one tool call, fed back to the model. Tools never throw at the
 * agent. Its content is {@linkcode ModelText}: outside text in it is labelled.
 */
export interface ToolResult {
  content: ModelText;
  is_error: boolean;
  /** Ends the turn once this round of calls is answered (a background task's terminal tools). */
  stop?: boolean;
}

/**
 * What a model call is for, for the usage log; never sent to a provider. The
 * conversation's kind says the rest (a job's, a task's, a heartbeat's).
 */
export interface CallPurpose {
  /** `title`, `flush`, `skill`, `v1`, `mcp`…; unset: the conversation's kind. */
  kind?: string;
  conversation_id?: string;
  /** The tool that made the call (a skill, analyze_image). */
  tool?: string;
}

/** One request to a model. `model` is a full hob model id: `<provider>/<model>`. */
export interface LlmRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  max_output_tokens?: number;
  signal?: AbortSignal;
  /** What the call is for, for the usage log. */
  purpose?: CallPurpose;
}

/** Why a provider could not answer, in words a person can act on. */
export interface LlmFailure {
  /** Stable machine code: `provider_unreachable`, `rate_limited`, `auth_failed`, … */
  code: string;
  message: string;
  status?: number;
}

/** What a provider adapter yields while it answers. It ends with exactly one `done` or `error`. */
export type LlmEvent =
  | { type: "text"; text: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "done"; stop_reason: string }
  | { type: "error"; error: LlmFailure };

/** How a stored message ended. */
export type MessageStatus = "complete" | "streaming" | "interrupted" | "error";

/** How a turn ended. */
export type TurnStatus =
  | "complete"
  | "interrupted"
  | "error"
  | "max_iterations"
  /** The model called the caller's own tools (TurnInput.clientTools); their results come back in a later turn. */
  | "tool_calls";

/** What one agent turn yields, in order: `start`, then any mix of the middle events, then `done`. */
export type AgentEvent =
  | {
    type: "start";
    conversation_id: string;
    user_message_id: number;
    model: string;
  }
  | { type: "text"; text: string }
  | {
    type: "tool_call";
    message_id: number;
    id: string;
    name: string;
    arguments: string;
  }
  | {
    type: "tool_result";
    message_id: number;
    tool_call_id: string;
    name: string;
    content: string;
    is_error: boolean;
    duration_ms: number;
  }
  | {
    /** A tool call waits for the user's decision (POST /api/approvals/:id). */
    type: "approval_required";
    approval_id: string;
    tool_call_id: string;
    name: string;
    arguments: string;
    reason: string;
    expires_at: string;
  }
  | {
    type: "approval_resolved";
    approval_id: string;
    status: "approved" | "denied" | "expired" | "pending";
  }
  /**
   * `source` is set on a `tainted` notice: the untrusted content the turn has read. `repeat`
   * is set when the conversation had read it before this turn: programs still learn the turn
   * is tainted, but people were told on the turn that first read it and are not told again.
   */
  | { type: "notice"; code: string; message: string; source?: string; repeat?: true }
  | { type: "error"; code: string; message: string }
  /** The model named a new conversation (sent just before `done`). */
  | { type: "title"; conversation_id: string; title: string }
  | {
    type: "done";
    conversation_id: string;
    status: TurnStatus;
    /** The last assistant message of the turn, if one was stored. */
    message_id: number | null;
    /** Every message id the turn stored after the user's, in order. */
    message_ids: number[];
    usage: Usage;
  };

/** A conversation as stored. Times are ISO 8601 UTC strings. */
export interface Conversation {
  id: string;
  title: string;
  model: string | null;
  /** What it is for: the user's chats, or one hob holds for a job, heartbeat, task or sub-agent. */
  kind: ConversationKind;
  created_at: string;
  updated_at: string;
}

/** What a conversation is for. */
export type ConversationKind = "chat" | "job" | "heartbeat" | "task" | "subagent" | "channel";

/** A message as stored. */
export interface StoredMessage {
  id: number;
  conversation_id: string;
  role: Role;
  content: string;
  tool_calls: ToolCall[] | null;
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: boolean;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  status: MessageStatus;
  /** Files sent with a user message. */
  attachments: Attachment[] | null;
  /** Set when the message was written in a tainted turn: the untrusted content it read. */
  taint: string | null;
  /** Why a reply failed (status `error`): the turn's `error` event, kept for whoever reads it later. */
  error: MessageError | null;
  created_at: string;
}

/** Why a reply failed, as the turn's `error` event said it. */
export interface MessageError {
  /** Stable machine code: `provider_unreachable`, `unknown_model`, … */
  code: string;
  message: string;
}

/** A file the user sent with a message, stored under HOME/uploads. */
export interface Attachment {
  /** Relative to the hob home: `uploads/2026-11-22/3f9c…-photo.png`. */
  path: string;
  name: string;
  /** Its media type, e.g. `image/png`. */
  type: string;
  size: number;
  /** What an audio file says, heard before the turn (untrusted, as the file is). */
  transcript?: string;
  /** Why an audio file could not be heard (no speech provider, no ffmpeg…). */
  transcript_problem?: string;
}

/** The fields a caller supplies to store a message. */
export interface NewMessage {
  conversation_id: string;
  role: Role;
  content: string;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  tool_name?: string | null;
  is_error?: boolean;
  model?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  status?: MessageStatus;
  attachments?: Attachment[] | null;
  /** The turn had read untrusted content: from where. */
  taint?: string | null;
  /** Why the reply failed. */
  error?: MessageError | null;
}

/** The fields of a stored message that may change after it was written. */
export interface MessagePatch {
  content?: string;
  tool_calls?: ToolCall[] | null;
  status?: MessageStatus;
  input_tokens?: number | null;
  output_tokens?: number | null;
  /** Why the reply failed (with status `error`). */
  error?: MessageError | null;
}
