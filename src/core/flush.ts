/**
 * Auto-flush: when a conversation's live history grows past a threshold, the
 * model first gets a silent turn to save what must last (remember_this,
 * log_note), then summarises the older messages into today's log; those
 * messages leave the live context (they stay stored) and the summary stands in
 * for them. When the model cannot summarise, an extractive summary is written.
 */

import { completeText } from "./complete.ts";
import type { AgentDeps } from "./deps.ts";
import type { AgentEvent, ChatMessage, StoredMessage } from "./types.ts";
import { derivedText, excerpt, hobWrote, untrustedSource } from "./untrusted.ts";

/** The tools the silent save turn may call. */
const SAVE_TOOLS = new Set(["remember_this", "log_note"]);
/** Model calls the save turn may make. */
const SAVE_ROUNDS = 3;
/** Tokens of one save-turn answer: a few tool calls. */
const SAVE_MAX_TOKENS = 1_024;
/** Tokens of the summary: eight short bullet points. */
const SUMMARY_MAX_TOKENS = 800;
/** Characters of one message shown to the summariser. */
const MESSAGE_CHARS = 1_500;
/** Longest summary kept in the live context across several flushes. */
const SUMMARY_KEEP_CHARS = 3_000;
/** Messages read when deciding what to flush. */
const MAX_LIVE_ROWS = 5_000;
const CHARS_PER_TOKEN = 4;

const SAVE_PROMPT =
  `You are reviewing an older part of your conversation with the user before it leaves your working memory.
Save what must last: facts about the user and the people and things in their life, preferences, decisions, promises and open tasks.
Use remember_this for lasting facts and instructions, log_note for today's events. Save nothing that is already saved or trivial.
Do not answer the user. When done (or if nothing needs saving), reply only: DONE`;

const SUMMARY_PROMPT =
  `Summarise this conversation excerpt for the user's daily log, in at most 8 short Markdown bullet points:
what was asked, what was decided or done, facts learned, and anything left open. No preamble.`;

/**
 * Flushes the conversation's older messages if its live history is over the
 * threshold. Yields notices for the turn's stream.
 */
export async function* flushIfNeeded(
  deps: AgentDeps,
  conversationId: string,
  model: string,
  signal?: AbortSignal,
): AsyncGenerator<AgentEvent> {
  const flush = deps.settings.flush;
  const memory = deps.memory;
  if (!flush?.enabled || !memory) return;
  const { store } = deps;
  const mark = store.getFlush(conversationId);
  const tokens = Math.ceil(store.contentSize(conversationId, mark.through) / CHARS_PER_TOKEN);
  if (tokens <= flush.thresholdTokens) return;

  const live = store.recentMessages(conversationId, MAX_LIVE_ROWS, mark.through);
  // Keep the newest messages, starting the kept part at a user message.
  let cut = Math.max(0, live.length - flush.keepMessages);
  while (cut > 0 && live[cut]?.role !== "user") cut--;
  if (cut <= 0) return;
  const older = live.slice(0, cut);
  const through = older[older.length - 1].id;
  const budgetChars = (deps.settings.contextTokens - deps.settings.maxOutputTokens) *
    CHARS_PER_TOKEN * 0.8;
  const transcript = renderTranscript(older, mark.summary, budgetChars);
  // What the model makes of untrusted content is untrusted: the summary keeps the label.
  const taint = transcriptTaint(older, mark.summary);

  yield {
    type: "notice",
    code: "memory_flush",
    message: `Saving ${older.length} older messages to memory…`,
  };
  // The silent save turn writes lasting memory with no one watching: never from a tainted part.
  if (!taint) {
    await saveTurn(deps, transcript, model, conversationId, signal).catch(
      () => {/* the summary still follows */},
    );
  }
  let text = await summarize(deps, transcript, model, conversationId, signal).catch(() => "");
  if (!text.trim()) text = extractiveSummary(older);
  const summary: string = derivedText(text, taint, "a summary of messages");
  const title = store.getConversation(conversationId)?.title || "a conversation";
  let path: string;
  try {
    path = await memory.logNote(summary, `Summary of "${title}"`, {
      conversation_id: conversationId,
      taint,
    });
  } catch (error) {
    yield {
      type: "notice",
      code: "memory_flush_failed",
      message: `Could not write the summary: ${(error as Error).message}`,
    };
    return;
  }
  const all = `${mark.summary ? `${mark.summary}\n\n` : ""}${summary}`;
  // Cut with its labels whole, so a summary of untrusted content stays labelled.
  const kept = excerpt(all, Math.max(0, all.length - SUMMARY_KEEP_CHARS));
  await store.write(() => store.setFlush(conversationId, through, kept));
  yield {
    type: "notice",
    code: "memory_flushed",
    message:
      `${older.length} older messages were summarised into memory/${path} and left out of the live context.`,
  };
}

/** The silent turn: the model may call remember_this and log_note; nothing is stored in the conversation. */
async function saveTurn(
  deps: AgentDeps,
  transcript: string,
  model: string,
  conversationId: string,
  signal?: AbortSignal,
): Promise<void> {
  const tools = deps.tools.specs().filter((tool) => SAVE_TOOLS.has(tool.name));
  if (tools.length === 0) return;
  const messages: ChatMessage[] = [{ role: "user", content: transcript }];
  for (let round = 0; round < SAVE_ROUNDS; round++) {
    const { text, toolCalls: calls, error } = await completeText(deps.llm, {
      model,
      system: SAVE_PROMPT,
      prompt: messages,
      tools,
      maxOutputTokens: SAVE_MAX_TOKENS,
      signal,
      purpose: { kind: "flush", conversation_id: conversationId },
    });
    if (error || calls.length === 0) return;
    messages.push({ role: "assistant", content: text, tool_calls: calls });
    for (const call of calls) {
      const result = SAVE_TOOLS.has(call.name)
        ? await deps.tools.execute(call, { conversation_id: conversationId, signal })
        : {
          content: hobWrote(`Only ${[...SAVE_TOOLS].join(" and ")} may be used now.`),
          is_error: true,
        };
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        name: call.name,
        content: result.content,
        is_error: result.is_error,
      });
    }
  }
}

async function summarize(
  deps: AgentDeps,
  transcript: string,
  model: string,
  conversationId: string,
  signal?: AbortSignal,
): Promise<string> {
  const { text, error } = await completeText(deps.llm, {
    model,
    system: SUMMARY_PROMPT,
    prompt: transcript,
    maxOutputTokens: SUMMARY_MAX_TOKENS,
    signal,
    purpose: { kind: "flush", conversation_id: conversationId },
  });
  if (error) throw new Error(error.message);
  return text.trim();
}

/**
 * Where untrusted content in the messages to flush came from, or null when
 * they are clean: a labelled text, a message written in a tainted turn, or a
 * labelled earlier summary.
 */
export function transcriptTaint(rows: StoredMessage[], earlierSummary: string): string | null {
  for (const row of rows) {
    const source = row.taint ?? untrustedSource(row.content);
    if (source) return source;
  }
  return untrustedSource(earlierSummary);
}

/** The older messages as a transcript, newest kept when it must be cut. */
export function renderTranscript(
  rows: StoredMessage[],
  earlierSummary: string,
  budgetChars: number,
): string {
  const lines: string[] = [];
  for (const row of rows) {
    const content = row.content.length > MESSAGE_CHARS
      ? `${row.content.slice(0, MESSAGE_CHARS)}…`
      : row.content;
    if (row.role === "user") lines.push(`User: ${content}`);
    else if (row.role === "assistant") {
      const calls = (row.tool_calls ?? []).map((call) =>
        `[called ${call.name} ${call.arguments.slice(0, 200)}]`
      );
      lines.push(`Assistant: ${[content, ...calls].filter(Boolean).join(" ")}`);
    } else if (row.role === "tool") {
      lines.push(`[${row.tool_name ?? "tool"} result: ${content.slice(0, 300)}]`);
    }
  }
  let text = lines.join("\n\n");
  if (text.length > budgetChars) text = `(earlier messages omitted)\n\n${text.slice(-budgetChars)}`;
  return earlierSummary
    ? `Summary of what came before:\n${earlierSummary}\n\n---\n\n${text}`
    : text;
}

/**
 * A summary without a model: the first sentence of each of the user's
 * messages and of each final reply.
 */
export function extractiveSummary(rows: StoredMessage[]): string {
  const firstSentence = (text: string) => {
    const flat = text.replace(/\s+/g, " ").trim();
    const end = flat.search(/[.!?](\s|$)/);
    const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
    return sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence;
  };
  const bullets: string[] = [];
  for (const row of rows) {
    if (!row.content.trim()) continue;
    if (row.role === "user") bullets.push(`- Asked: ${firstSentence(row.content)}`);
    else if (row.role === "assistant" && !row.tool_calls?.length) {
      bullets.push(`- Answered: ${firstSentence(row.content)}`);
    }
  }
  const kept = bullets.length > 20
    ? [...bullets.slice(0, 10), "- …", ...bullets.slice(-9)]
    : bullets;
  return `(extractive summary; the model could not summarise)\n${kept.join("\n")}`;
}
