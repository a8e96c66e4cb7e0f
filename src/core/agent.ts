/**
 * The agent loop: one user message in, a stream of events out. Stores the
 * message, builds the prompt, streams the model, runs the tools it asks for and
 * loops until it answers — committing every message as soon as it is complete
 * and saving partial replies as it goes, so a crash or an abort loses nothing.
 * Knows only the ports; never imports an adapter.
 */

import { estimateTokens, estimateToolTokens, fitHistory } from "./budget.ts";
import { toChatHistory } from "./history.ts";
import { buildSystemPrompt } from "./prompt.ts";
import { flushIfNeeded, type FlushSettings } from "./flush.ts";
import { nameConversation } from "./title.ts";
import { withTimeout } from "./timeout.ts";
import { hobWrote, untrustedSource } from "./untrusted.ts";
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
import type {
  AgentEvent,
  Attachment,
  ChatMessage,
  ImageContent,
  ToolCall,
  ToolResult,
  ToolSpec,
  TurnStatus,
  Usage,
} from "./types.ts";

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
   * @default {250}
   */
  flushIntervalMs: number;
  /** Auto-flush of long conversations into the daily log; off without it. */
  flush?: FlushSettings;
  /** Let the model title a new conversation from its first message (one small request). */
  autoTitle?: boolean;
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

/** One user message to answer. */
export interface TurnInput {
  message: string;
  /** Continue this conversation; a new one is created when absent. */
  conversation_id?: string;
  /** Use this model for this turn instead of the conversation's. */
  model?: string;
  /** Aborting stops the model and the tools and saves what was produced. */
  signal?: AbortSignal;
  /** Files sent with the message (already stored under HOME/uploads). Images go to the model as images. */
  attachments?: Attachment[];
  /** How deep in spawned sub-agents this turn runs; 0 for the user's own. */
  depth?: number;
  /** The caller's instructions (an OpenAI client's system messages), added to the system prompt. */
  instructions?: string;
  /**
   * The caller's own tools, offered beside hob's (replacing any of the same
   * name). hob does not run them: a call ends the turn with status
   * `tool_calls`, and the caller sends the results in a later turn.
   */
  clientTools?: ToolSpec[];
  /** Messages stored before this turn's own, in order (history a stateless caller sends). */
  seed?: ChatMessage[];
  /** Store no new user message: answer the history as it stands (after `seed`'s tool results). */
  resume?: boolean;
  /** The turn starts tainted, by untrusted content from there (a sub-agent of a tainted turn). */
  tainted?: string;
}

/** Raised before anything is stored when a turn names a conversation that does not exist. */
export class ConversationNotFoundError extends Error {
  override name = "ConversationNotFoundError";
  readonly conversationId: string;
  constructor(conversationId: string) {
    super(`Conversation '${conversationId}' does not exist`);
    this.conversationId = conversationId;
  }
}

/** How long the end of a turn waits for the model's title of a new conversation. */
const TITLE_WAIT_MS = 5_000;
/** Longest automatic title taken from a conversation's first message. */
const TITLE_MAX_CHARS = 60;
/** Tokens kept free for the pruning notice added to the system prompt. */
const NOTICE_RESERVE_TOKENS = 40;

/**
 * Runs one turn. Yields `start` first and `done` last; in between `text`,
 * `tool_call`, `tool_result`, `notice` and `error` events as they happen.
 * Stopping the iteration early (a client that goes away) marks a reply in
 * progress as interrupted, exactly like aborting `input.signal`.
 *
 * @example
 * ```ts
 * for await (const event of runTurn(deps, { message: "What time is it?" })) {
 *   if (event.type === "text") Deno.stdout.writeSync(new TextEncoder().encode(event.text));
 * }
 * ```
 */
export async function* runTurn(
  deps: AgentDeps,
  input: TurnInput,
): AsyncGenerator<AgentEvent> {
  const { store, settings } = deps;
  let conversation = input.conversation_id
    ? store.getConversation(input.conversation_id)
    : undefined;
  if (input.conversation_id && !conversation) {
    throw new ConversationNotFoundError(input.conversation_id);
  }
  conversation ??= store.createConversation({ model: input.model ?? null });
  const conversationId = conversation.id;
  const model = input.model ?? conversation.model ?? settings.defaultModel;

  const attachments = input.attachments?.length ? input.attachments : undefined;
  if (attachments && !deps.attachments) throw new Error("This hob cannot take files with messages");
  let lastSeedId = 0;
  for (const message of input.seed ?? []) {
    lastSeedId = store.addMessage({
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
  const userRow = input.resume ? { id: lastSeedId } : store.addMessage({
    conversation_id: conversationId,
    role: "user",
    content: attachments
      ? `${input.message}\n\n${deps.attachments!.note(attachments)}`
      : input.message,
    attachments,
    // A message made from untrusted content (a task a tainted turn created) carries its taint.
    taint: input.tainted ?? null,
  });
  let naming: Promise<string | null> | undefined;
  if (!conversation.title && !input.resume) {
    const provisional = titleFrom(input.message);
    store.setConversationTitle(conversationId, provisional);
    // The model names the conversation while it replies; the first line stands until then.
    if (
      settings.autoTitle && (conversation.kind ?? "chat") === "chat" &&
      !deps.commands?.match(input.message)
    ) {
      naming = nameConversation(deps.llm, model, input.message, input.signal).then((title) => {
        if (!title || store.getConversation(conversationId)?.title !== provisional) return null;
        store.setConversationTitle(conversationId, title);
        return title;
      });
    }
  }
  yield {
    type: "start",
    conversation_id: conversationId,
    user_message_id: userRow.id,
    model,
  };

  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  const messageIds: number[] = [];
  let lastAssistantId: number | null = null;
  let status: TurnStatus = "complete";
  // The reply being streamed; `finally` saves it if the turn ends early.
  const draft: { id: number | null; text: string } = { id: null, text: "" };

  const command = deps.commands?.match(input.message);
  if (command) {
    yield* runCommand(deps, command, { conversationId, model, input, messageIds });
    return;
  }

  try {
    const context = await prepareContext(deps, conversationId, input.message, input.instructions);
    const clientTools = input.clientTools ?? [];
    const clientNames = new Set(clientTools.map((tool) => tool.name));
    const offered = (): ToolSpec[] =>
      clientTools.length === 0
        ? deps.tools.specs()
        : [...deps.tools.specs().filter((tool) => !clientNames.has(tool.name)), ...clientTools];
    if (context.notice) yield context.notice;
    const messages = context.messages;
    if (attachments) await addImages(deps.attachments!, messages, attachments);
    // Untrusted content the model will read makes the turn tainted: side effects then ask.
    let tainted: string | null = input.tainted ??
      (attachments ? `the uploaded file ${attachments[0].name}` : null) ??
      historyTaint(messages) ?? context.taint;
    if (tainted) yield taintNotice(tainted);

    for (let iteration = 1;; iteration++) {
      draft.text = "";
      const calls: ToolCall[] = [];
      const stepUsage: Usage = { input_tokens: 0, output_tokens: 0 };
      let failure: { code: string; message: string } | null = null;
      let lastFlush = Number.NEGATIVE_INFINITY; // the first text is saved at once

      const openDraft = (): number => {
        if (draft.id === null) {
          draft.id = store.addMessage({
            conversation_id: conversationId,
            role: "assistant",
            content: "",
            model,
            status: "streaming",
            // What the model writes after reading untrusted content is derived from it.
            taint: tainted,
          }).id;
          messageIds.push(draft.id);
          lastAssistantId = draft.id;
        }
        return draft.id;
      };

      for await (
        const event of deps.llm.stream({
          model,
          system: context.system,
          messages,
          // Read each time: a tool built during the turn is offered at once.
          tools: offered(),
          max_output_tokens: settings.maxOutputTokens,
          signal: input.signal,
        })
      ) {
        if (input.signal?.aborted) break;
        if (event.type === "text") {
          if (!event.text) continue;
          const id = openDraft();
          draft.text += event.text;
          // Save before passing the text on, so what a client saw survives a crash.
          const now = deps.clock.now().getTime();
          if (now - lastFlush >= settings.flushIntervalMs) {
            store.updateMessage(id, { content: draft.text });
            lastFlush = now;
          }
          yield { type: "text", text: event.text };
        } else if (event.type === "tool_call") {
          const id = openDraft();
          calls.push(event.call);
          yield {
            type: "tool_call",
            message_id: id,
            id: event.call.id,
            name: event.call.name,
            arguments: event.call.arguments,
          };
        } else if (event.type === "usage") {
          addUsage(stepUsage, event.usage);
        } else if (event.type === "error") {
          failure = event.error;
          break;
        } else if (event.type === "done") {
          break;
        }
      }
      addUsage(usage, stepUsage);

      const interrupted = input.signal?.aborted ?? false;
      const text = draft.text;
      if (draft.id !== null) {
        store.updateMessage(draft.id, {
          content: text,
          tool_calls: interrupted || failure || calls.length === 0 ? null : calls,
          status: interrupted ? "interrupted" : failure ? "error" : "complete",
          input_tokens: stepUsage.input_tokens,
          output_tokens: stepUsage.output_tokens,
        });
        draft.id = null;
      }
      if (interrupted) {
        status = "interrupted";
        break;
      }
      if (failure) {
        status = "error";
        yield { type: "error", code: failure.code, message: failure.message };
        break;
      }
      if (calls.length === 0) break;

      messages.push({
        role: "assistant",
        content: text,
        tool_calls: calls,
        ...(tainted ? { taint: tainted } : {}),
      });
      const limitReached = iteration >= settings.maxToolIterations;
      let stop = false;
      const forClient = calls.filter((call) => clientNames.has(call.name));
      for (const call of calls) {
        // The caller runs its own tools; their results come in its next request.
        if (clientNames.has(call.name)) continue;
        const started = performance.now();
        let result: ToolResult;
        if (limitReached) {
          result = {
            content: hobWrote(
              `Not run: the limit of ${settings.maxToolIterations} model calls per turn was reached.`,
            ),
            is_error: true,
          };
        } else {
          // Events the call raises (approval requests) stream out while it runs.
          const channel = eventChannel();
          const running = deps.tools.execute(call, {
            conversation_id: conversationId,
            signal: input.signal,
            emit: channel.push,
            depth: input.depth ?? 0,
            model,
            tainted: tainted ?? undefined,
          }).finally(channel.close);
          yield* channel.drain();
          result = await running;
          if (result.stop) stop = true;
        }
        const duration = Math.round(performance.now() - started);
        const source = tainted ? null : untrustedSource(result.content);
        if (source) {
          // The registry's labels name the tool already ("read_file: notes.txt").
          tainted = source.startsWith(call.name) ? source : `${source}, read by ${call.name}`;
        }
        const toolRow = store.addMessage({
          conversation_id: conversationId,
          role: "tool",
          content: result.content,
          tool_call_id: call.id,
          tool_name: call.name,
          is_error: result.is_error,
          taint: tainted,
        });
        messageIds.push(toolRow.id);
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          name: call.name,
          content: result.content,
          is_error: result.is_error,
          ...(tainted ? { taint: tainted } : {}),
        });
        if (source) yield taintNotice(tainted!);
        yield {
          type: "tool_result",
          message_id: toolRow.id,
          tool_call_id: call.id,
          name: call.name,
          content: result.content,
          is_error: result.is_error,
          duration_ms: duration,
        };
        if (input.signal?.aborted) break;
      }
      if (input.signal?.aborted) {
        status = "interrupted";
        break;
      }
      if (stop) break;
      if (forClient.length > 0) {
        status = "tool_calls";
        break;
      }
      if (limitReached) {
        status = "max_iterations";
        yield {
          type: "notice",
          code: "max_iterations",
          message:
            `Stopped after ${settings.maxToolIterations} model calls in one turn; ask again to continue.`,
        };
        break;
      }
    }
  } finally {
    // The consumer stopped iterating mid-reply, or something threw: keep the text.
    if (draft.id !== null) {
      store.updateMessage(draft.id, { content: draft.text, status: "interrupted" });
      status = "interrupted";
    }
  }

  if (status === "complete") {
    try {
      yield* flushIfNeeded(deps, conversationId, model, input.signal);
    } catch (error) {
      yield {
        type: "notice",
        code: "memory_flush_failed",
        message: `Auto-flush failed: ${(error as Error).message}`,
      };
    }
  }

  if (naming) {
    const title = await withTimeout(naming, TITLE_WAIT_MS);
    if (title) yield { type: "title", conversation_id: conversationId, title };
  }

  yield {
    type: "done",
    conversation_id: conversationId,
    status,
    message_id: lastAssistantId,
    message_ids: messageIds,
    usage,
  };
}

/** A `/command` turn: the command's output is the reply; no model call. */
async function* runCommand(
  deps: AgentDeps,
  command: { name: string; input: string },
  turn: { conversationId: string; model: string; input: TurnInput; messageIds: number[] },
): AsyncGenerator<AgentEvent> {
  const channel = eventChannel();
  let reply = "";
  let failure: string | null = null;
  const running = deps.commands!.run(command.name, command.input, {
    conversation_id: turn.conversationId,
    signal: turn.input.signal,
    emit: channel.push,
    depth: turn.input.depth ?? 0,
    model: turn.model,
  }).then((text) => reply = text, (error) => failure = (error as Error).message).finally(
    channel.close,
  );
  yield* channel.drain();
  await running;
  const interrupted = turn.input.signal?.aborted ?? false;
  const content = failure ? `/${command.name} failed: ${failure}` : reply;
  const row = deps.store.addMessage({
    conversation_id: turn.conversationId,
    role: "assistant",
    content,
    model: `skill/${command.name}`,
    status: interrupted ? "interrupted" : failure ? "error" : "complete",
    // A skill's reply made from untrusted content taints the turns that read it.
    taint: untrustedSource(content),
  });
  turn.messageIds.push(row.id);
  if (failure) yield { type: "error", code: "command_failed", message: content };
  else if (content) yield { type: "text", text: content };
  yield {
    type: "done",
    conversation_id: turn.conversationId,
    status: interrupted ? "interrupted" : failure ? "error" : "complete",
    message_id: row.id,
    message_ids: turn.messageIds,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

interface TurnContext {
  system: string;
  tools: ReturnType<ToolRegistryPort["specs"]>;
  messages: ChatMessage[];
  notice: AgentEvent | null;
  /** Untrusted content the system prompt carries (a labelled memory entry or summary). */
  taint: string | null;
}

/** Builds the system prompt and the history that fits beside it. */
async function prepareContext(
  deps: AgentDeps,
  conversationId: string,
  query: string,
  instructions?: string,
): Promise<TurnContext> {
  const { settings, store } = deps;
  const [identity, memoryContext] = await Promise.all([
    deps.prompt.identity(),
    deps.prompt.memoryContext(query),
  ]);
  const tools = deps.tools.specs();
  const parts = {
    ...identity,
    memoryContext,
    tools,
    today: deps.clock.now().toISOString().slice(0, 10),
    earlierSummary: deps.store.getFlush(conversationId).summary,
    clientInstructions: instructions,
  };
  let system = buildSystemPrompt(parts);

  // After an auto-flush, the live history starts after the flushed messages.
  const flushed = store.getFlush(conversationId);
  const rows = store.recentMessages(conversationId, settings.maxHistoryMessages, flushed.through);
  const unread = rows.length < settings.maxHistoryMessages
    ? 0
    : store.countMessages(conversationId, flushed.through) - rows.length;
  const budget = settings.contextTokens - settings.maxOutputTokens -
    estimateTokens(system) - estimateToolTokens(tools) - NOTICE_RESERVE_TOKENS;
  const fitted = fitHistory(toChatHistory(rows), budget);
  const omitted = unread + fitted.dropped;
  let notice: AgentEvent | null = null;
  if (omitted > 0) {
    const text =
      `Note: the ${omitted} oldest messages of this conversation were left out to fit the context window. Ask the user if you need something from them.`;
    system = buildSystemPrompt({ ...parts, prunedNotice: text });
    notice = {
      type: "notice",
      code: "history_pruned",
      message: `${omitted} older messages were left out to fit the context window.`,
    };
  }
  const memorySource = untrustedSource(memoryContext);
  const summarySource = untrustedSource(parts.earlierSummary);
  const taint = memorySource
    ? `${memorySource}, in memory`
    : summarySource
    ? `${summarySource}, in the summary of earlier messages`
    : null;
  return { system, tools, messages: fitted.messages, notice, taint };
}

/**
 * Where untrusted content in the history came from, if the model will read
 * any: a labelled text, or a message written in a turn that had read some.
 */
function historyTaint(messages: ChatMessage[]): string | null {
  for (const message of messages) {
    const source = message.taint ?? untrustedSource(message.content);
    if (source) {
      return `${
        source.replace(/, earlier in this conversation$/, "")
      }, earlier in this conversation`;
    }
  }
  return null;
}

/** Tells the user (and the page) that side effects now need their approval. */
function taintNotice(source: string): AgentEvent {
  return {
    type: "notice",
    code: "tainted",
    source,
    message:
      `This turn has read untrusted content (${source}); tools with side effects now ask before they run.`,
  };
}

/** A queue of events pushed by a callback and drained by the generator. */
function eventChannel() {
  const queue: AgentEvent[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  return {
    push(event: AgentEvent) {
      queue.push(event);
      poke();
    },
    close() {
      closed = true;
      poke();
    },
    async *drain(): AsyncGenerator<AgentEvent> {
      while (true) {
        if (queue.length > 0) {
          yield queue.shift()!;
        } else if (closed) {
          return;
        } else {
          await new Promise<void>((resolve) => wake = resolve);
        }
      }
    },
  };
}

function addUsage(total: Usage, add: Usage): void {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  if (add.cache_read_tokens) {
    total.cache_read_tokens = (total.cache_read_tokens ?? 0) +
      add.cache_read_tokens;
  }
  if (add.cache_write_tokens) {
    total.cache_write_tokens = (total.cache_write_tokens ?? 0) +
      add.cache_write_tokens;
  }
}

/** Gives the turn's own message (the last user message) the images sent with it. */
async function addImages(
  port: AttachmentPort,
  messages: ChatMessage[],
  attachments: Attachment[],
): Promise<void> {
  const images = (await Promise.all(
    attachments.filter((a) => a.type.startsWith("image/")).map((a) => port.image(a)),
  )).filter((image): image is ImageContent => image !== null);
  if (images.length === 0) return;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === "user") {
      messages[i] = { ...message, images };
      return;
    }
  }
}

/** A title from the first message: its first line, cut at a word near the limit. */
export function titleFrom(message: string): string {
  const line = message.trim().split("\n")[0].replace(/\s+/g, " ");
  if (line.length <= TITLE_MAX_CHARS) return line || "New conversation";
  const cut = line.slice(0, TITLE_MAX_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${space > 20 ? cut.slice(0, space) : cut}…`;
}
