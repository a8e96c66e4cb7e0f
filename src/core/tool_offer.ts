/**
 * Which tools a turn offers the model. With `tools.offer: relevant`: the core
 * tools, those the conversation called lately and those whose name, category
 * and description share words with the message, within a token budget — and
 * `find_tools`, with which the model asks for more. It is answered here, not
 * by the registry, because what it changes is the turn's offer. Pure scoring
 * over tool specs: no embedding model, nothing a person cannot follow.
 */

import { estimateTokens, estimateToolTokens } from "./budget.ts";
import type { SkillLine } from "./ports.ts";
import type { ChatMessage, ToolCall, ToolResult, ToolSpec } from "./types.ts";
import { displayParts, firstLine, hobWrote, type ModelText } from "./untrusted.ts";

/** Offered every turn: the time, and memory, which most answers may need. */
export const CORE_TOOLS: readonly string[] = ["get_time", "search_memory", "remember_this"];
/** The tool the model asks for more tools with. */
export const FIND_TOOLS = "find_tools";
/** Tools called in this many earlier turns stay offered: a follow-up often needs them again. */
const RECENT_TURNS = 3;
/** Tools one find_tools call offers at most: enough to choose from, a few hundred tokens. */
const FOUND_LIMIT = 6;
/** Weights of a word of the message found in a tool's name, category and description. */
const WEIGHTS = { name: 3, category: 2, description: 1 };
/** Words too common to say anything about a tool. */
const STOP_WORDS = new Set(
  ("the and for with from that this what which into your you are can how not its use any all " +
    "one get set has have was were will would could should please about them they then").split(" "),
);

/** How a turn chooses its tools; from `tools.offer` and `tools.offer_tokens`. */
export interface ToolOfferSettings {
  mode: "all" | "relevant";
  /** The most (estimated) tokens of tool schemas offered up front, core and recent tools included (they are offered even past it). */
  budgetTokens: number;
}

/** A turn's offer: the names offered (it grows as find_tools finds more) and every tool known when it was made. */
export interface ToolOffer {
  names: Set<string>;
  known: Set<string>;
}

/** What `find_tools` looks like to the model. */
export const FIND_TOOLS_SPEC: ToolSpec = {
  name: FIND_TOOLS,
  description:
    "Only some of hob's tools are offered now. Describe what you need to do (e.g. 'read a CSV file', 'send an email') to get the names and descriptions of matching tools; they are then offered for the rest of this turn.",
  category: "tools",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "What the tool should do, in words." } },
    required: ["query"],
  },
};

/**
 * The tools to offer for `message`: core tools and those marked `always`,
 * recent ones, then the best scoring while they fit `budgetTokens`.
 *
 * @example
 * ```ts
 * const offer = selectTools(registry.specs(), { message: "read notes.txt", history, budgetTokens: 1200 });
 * offer.names.has("read_file"); // true
 * ```
 */
export function selectTools(
  tools: ToolSpec[],
  options: { message: string; history: ChatMessage[]; budgetTokens: number },
): ToolOffer {
  const known = new Set(tools.map((tool) => tool.name));
  const always = tools.filter((tool) => tool.always).map((tool) => tool.name);
  const names = new Set([...CORE_TOOLS, ...always, ...recentTools(options.history)]);
  let used = estimateToolTokens(tools.filter((tool) => names.has(tool.name)));
  for (const { tool } of ranked(tools, options.message)) {
    if (names.has(tool.name)) continue;
    const cost = estimateToolTokens([tool]);
    if (used + cost > options.budgetTokens) continue;
    names.add(tool.name);
    used += cost;
  }
  return { names, known };
}

/** The tools a turn needs to take up a skill: offered whenever a skill is listed. */
export const SKILL_TOOLS: readonly string[] = ["use_skill", "read_skill_file", "run_skill_script"];

/**
 * The skills a turn lists with `tools.offer: relevant`: those whose name and
 * description share words with the message, best first, while their lines fit
 * what the budget has left after the tools offered. When any is listed, the
 * tools to take one up join the offer (`offer` changes).
 *
 * @example
 * ```ts
 * const listed = offerSkills(skills, offer, registry.specs(), { message: "fill this PDF form", budgetTokens: 1200 });
 * ```
 */
export function offerSkills(
  skills: SkillLine[],
  offer: ToolOffer,
  all: ToolSpec[],
  options: { message: string; budgetTokens: number },
): SkillLine[] {
  const asSpecs = skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    category: "skill",
    parameters: { type: "object" as const, properties: {} },
  }));
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  let used = estimateToolTokens(all.filter((tool) => offer.names.has(tool.name)));
  const listed: SkillLine[] = [];
  for (const { tool } of ranked(asSpecs, options.message)) {
    const cost = estimateTokens(`- ${tool.name}: ${tool.description}`);
    if (used + cost > options.budgetTokens) continue;
    listed.push(byName.get(tool.name)!);
    used += cost;
  }
  if (listed.length > 0) { for (const name of SKILL_TOOLS) offer.names.add(name); }
  return listed;
}

/**
 * The tools of `all` in `offer`, then find_tools. A tool that was not known
 * when the offer was made (built during the turn) is offered too.
 */
export function offeredOf(all: ToolSpec[], offer: ToolOffer): ToolSpec[] {
  const offered = all.filter((tool) => offer.names.has(tool.name) || !offer.known.has(tool.name));
  return [...offered, FIND_TOOLS_SPEC];
}

/**
 * Answers a `find_tools` call: the best matches not yet offered, which join
 * the offer; with none, the names of every tool not offered. Descriptions are
 * quoted as the specs have them: a third party's inside its label (approved,
 * so quoting it does not taint the turn).
 */
export function findTools(tools: ToolSpec[], offer: ToolOffer, query: string): ModelText {
  const waiting = tools.filter((tool) => !offer.names.has(tool.name));
  const found = ranked(waiting, query).slice(0, FOUND_LIMIT).map(({ tool }) => tool);
  if (found.length === 0) {
    return hobWrote(
      `No tool matches '${query}'. Tools not offered yet: ${
        waiting.map((tool) => tool.name).join(", ") || "none"
      }. Ask again with one of these names.`,
    );
  }
  for (const tool of found) offer.names.add(tool.name);
  const lines = found.map((tool) =>
    `- ${tool.name} (${tool.category ?? "general"}): ${firstLine(tool.description.trim())}`
  );
  return hobWrote(`These tools are now offered for the rest of this turn:\n${lines.join("\n")}`);
}

/**
 * The result of a call the offer answers itself: `find_tools`, or a call of a
 * tool hob has but did not offer (refused, never run — the model is told how
 * to ask for it). Null for a call the registry should run.
 */
export function answerOfTheOffer(
  tools: ToolSpec[],
  offer: ToolOffer,
  call: ToolCall,
): ToolResult | null {
  if (call.name === FIND_TOOLS) {
    const query = queryOf(call.arguments);
    if (query === null) {
      return {
        content: hobWrote(`${FIND_TOOLS} needs {"query": "what the tool should do"}.`),
        is_error: true,
      };
    }
    return { content: findTools(tools, offer, query), is_error: false };
  }
  if (!offer.known.has(call.name) || offer.names.has(call.name)) return null;
  return {
    content: hobWrote(
      `Not run: '${call.name}' was not offered in this turn. Call ${FIND_TOOLS} with what you need to do, and it will be offered.`,
    ),
    is_error: true,
  };
}

/** The `query` of find_tools' arguments, or null when there is none. */
function queryOf(text: string): string | null {
  try {
    const { query } = JSON.parse(text);
    return typeof query === "string" && query.trim() ? query.trim() : null;
  } catch {
    return null;
  }
}

/** Tools scoring above zero for `text`, best first (ties keep the registry's order). */
export function ranked(tools: ToolSpec[], text: string): { tool: ToolSpec; score: number }[] {
  const words = wordsOf(text);
  return tools
    .map((tool) => ({ tool, score: relevance(tool, words) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score);
}

/** Each word of the message scores the best place it is found in the tool: name, category, description. */
function relevance(tool: ToolSpec, words: Set<string>): number {
  const name = wordsOf(tool.name.replace(/_/g, " "));
  const category = wordsOf(tool.category ?? "");
  // The words of the description, not of its label's markup.
  const description = wordsOf(displayParts(tool.description).map((part) => part.text).join(" "));
  let score = 0;
  for (const word of words) {
    if (name.has(word)) score += WEIGHTS.name;
    else if (category.has(word)) score += WEIGHTS.category;
    else if (description.has(word)) score += WEIGHTS.description;
  }
  return score;
}

/** The telling words of a text, lower-cased and with plain English endings taken off. */
function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (word.length < 3 || STOP_WORDS.has(word)) continue;
    words.add(word.replace(/(?<=\w{4})ing$/, "").replace(/(?<=\w{3}[^s])s$/, ""));
  }
  return words;
}

/** Tools called in this turn so far and the {@linkcode RECENT_TURNS} turns before it. */
function recentTools(history: ChatMessage[]): string[] {
  const names: string[] = [];
  let turns = 0;
  for (let i = history.length - 1; i >= 0 && turns <= RECENT_TURNS; i--) {
    const message = history[i];
    if (message.role === "user") turns++;
    if (message.role === "assistant") names.push(...(message.tool_calls ?? []).map((c) => c.name));
  }
  return names;
}
