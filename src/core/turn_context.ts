/**
 * What the model reads in a turn: the system prompt, the stored history that
 * fits the context window beside it, the images sent with the message — and
 * whether any of it is untrusted, which taints the turn from its start.
 * Reads the ports; stores nothing.
 */

import { estimateTokens, estimateToolTokens, fitHistory } from "./budget.ts";
import type { AgentDeps } from "./deps.ts";
import { toChatHistory } from "./history.ts";
import type { AttachmentPort, SkillLine, ToolRegistryPort } from "./ports.ts";
import { buildSystemPrompt } from "./prompt.ts";
import { taintNotice, type Turn } from "./turn.ts";
import { offeredOf, offerSkills, selectTools, type ToolOffer } from "./tool_offer.ts";
import type { AgentEvent, Attachment, ChatMessage, ImageContent, ToolSpec } from "./types.ts";
import { placedTaint, untrustedSource } from "./untrusted.ts";

/** Tokens kept free for the pruning notice added to the system prompt. */
const NOTICE_RESERVE_TOKENS = 40;

/** The system prompt and history of a turn. */
export interface TurnContext {
  system: string;
  tools: ReturnType<ToolRegistryPort["specs"]>;
  messages: ChatMessage[];
  notice: AgentEvent | null;
  /** Untrusted content the system prompt carries (a labelled memory entry or summary). */
  taint: string | null;
  /** Untrusted content in the summary of earlier messages: read by an earlier turn. */
  summaryTaint: string | null;
  /** The tools offered, when only some are (`tools.offer: relevant`). */
  offer?: ToolOffer;
}

/**
 * Fills the turn's system prompt and messages, and its taint from where the
 * model will read untrusted content: the turn's own (a sub-agent's), an
 * upload, the history, or the prompt. Yields the history-pruned and tainted
 * notices when they apply.
 */
export async function* loadContext(turn: Turn): AsyncGenerator<AgentEvent> {
  const { deps, input, attachments } = turn;
  const context = await prepareContext(
    deps,
    turn.conversationId,
    input.message,
    input.instructions,
  );
  if (context.notice) yield context.notice;
  turn.system = context.system;
  if (context.offer) turn.offer = context.offer;
  turn.messages = context.messages;
  if (attachments) await addImages(deps.attachments!, turn.messages, attachments);
  // Untrusted content the model will read makes the turn tainted: side effects then ask.
  const latest = turn.messages.at(-1);
  const own = latest?.role === "user" ? latest.taint ?? untrustedSource(latest.content) : null;
  const earlier = historyTaint(
    latest?.role === "user" ? turn.messages.slice(0, -1) : turn.messages,
  );
  turn.tainted = input.tainted ??
    (attachments ? `the uploaded file ${attachments[0].name}` : null) ??
    own ?? earlier ?? context.taint;
  // The turn that first read it told the user; this turn's own message or upload is news.
  const told = earlier ?? context.summaryTaint;
  if (turn.tainted) yield taintNotice(turn.tainted, told !== null && !attachments);
}

/** Builds the system prompt and the history that fits beside it. */
export async function prepareContext(
  deps: AgentDeps,
  conversationId: string,
  query: string,
  instructions?: string,
): Promise<TurnContext> {
  const { settings, store } = deps;
  const [identity, memoryContext, skills] = await Promise.all([
    deps.prompt.identity(),
    deps.prompt.memoryContext(query),
    deps.prompt.skills?.() ?? [],
  ]);
  // After an auto-flush, the live history starts after the flushed messages.
  const flushed = store.getFlush(conversationId);
  const rows = store.recentMessages(conversationId, settings.maxHistoryMessages, flushed.through);
  const history = toChatHistory(rows);
  const { tools, offer, skills: listed } = toolsOffered(deps, query, history, skills);
  const parts = {
    ...identity,
    memoryContext,
    tools,
    skills: listed,
    today: deps.clock.now().toISOString().slice(0, 10),
    earlierSummary: shownSummary(conversationId, flushed.summary),
    clientInstructions: instructions,
  };
  let system = buildSystemPrompt(parts);
  const unread = rows.length < settings.maxHistoryMessages
    ? 0
    : store.countMessages(conversationId, flushed.through) - rows.length;
  const budget = settings.contextTokens - settings.maxOutputTokens -
    estimateTokens(system) - estimateToolTokens(tools) - NOTICE_RESERVE_TOKENS;
  const fitted = fitHistory(history, budget);
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
  const summaryTaint = summaryTaintOf(parts.earlierSummary);
  return {
    system,
    tools,
    messages: fitted.messages,
    notice,
    taint: promptTaint(parts),
    summaryTaint,
    ...(offer ? { offer } : {}),
  };
}

/**
 * Every tool and skill, or with `tools.offer: relevant` those chosen for the
 * message within the budget, and find_tools.
 */
function toolsOffered(
  deps: AgentDeps,
  message: string,
  history: ChatMessage[],
  skills: SkillLine[],
): { tools: ToolSpec[]; offer?: ToolOffer; skills: SkillLine[] } {
  const all = deps.tools.specs();
  const settings = deps.settings.toolOffer;
  if (settings?.mode !== "relevant") return { tools: all, skills };
  const offer = selectTools(all, { message, history, budgetTokens: settings.budgetTokens });
  const listed = offerSkills(skills, offer, all, { message, budgetTokens: settings.budgetTokens });
  return { tools: offeredOf(all, offer), offer, skills: listed };
}

/**
 * The summary of earlier messages as the system prompt shows it: hob puts it
 * into every turn by itself, so a summary that holds text from outside (of a
 * stretch that read some) is left out, with hob's words on where the
 * messages are; a turn that reads them is tainted then, and not before.
 */
function shownSummary(conversationId: string, summary: string): string {
  if (!summaryTaintOf(summary)) return summary;
  return `The earlier messages of this conversation were summarised, but the summary holds text from outside, so it is not shown here. view_conversation (conversation_id "${conversationId}") reads those messages.`;
}

/**
 * Untrusted content in the system prompt, which hob fills with trusted text
 * only (memory context.ts, shownSummary): a label that got in anyway still
 * taints the turn.
 */
function promptTaint(parts: { memoryContext: string; earlierSummary: string }): string | null {
  const memorySource = untrustedSource(parts.memoryContext);
  return memorySource
    ? placedTaint(memorySource, "in memory")
    : summaryTaintOf(parts.earlierSummary);
}

/** Untrusted content in the summary of earlier messages, or null. */
function summaryTaintOf(earlierSummary: string): string | null {
  const source = untrustedSource(earlierSummary);
  return source ? placedTaint(source, "in the summary of earlier messages") : null;
}

/**
 * Where untrusted content in the history came from, if the model will read
 * any: a labelled text, or a message written in a turn that had read some.
 */
export function historyTaint(messages: ChatMessage[]): string | null {
  for (const message of messages) {
    const source = message.taint ?? untrustedSource(message.content);
    if (source) return placedTaint(source, "earlier in this conversation");
  }
  return null;
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
