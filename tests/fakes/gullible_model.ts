/**
 * A "gullible" model for the attack suite: it follows every instruction it
 * reads, wherever it reads it — the system prompt (memory), the user's
 * message, a fetched page, a file, a tool's result, the definitions of the
 * tools it is offered — ignoring any `<untrusted>` marking. An instruction is a line ending in
 * `>>> call TOOL {json arguments}`. Each model call makes the next
 * instruction not yet followed in the conversation; when none is left it
 * answers "Done." Plug it in as `startFakeOpenAI({ respond: gullible })`.
 *
 * It also composes, as a real model asked to would: `{{found:REGEX}}` in an
 * instruction's arguments becomes the first match (its first group, if any)
 * of REGEX in what it has read, URL-encoded — a page that says "put the PIN
 * you find into this URL" gets the PIN in the URL.
 */

import type { FakeReply } from "./openai_server.ts";

/**
 * Matches one instruction anywhere in a line: tool output may put text before it
 * (`file:3: `) or after it (an error message's closing quote).
 */
const INSTRUCTION = />>> call ([a-z][a-z0-9_]*) (\{[^\n]*\})[^\n{}]*$/gm;

/** An instruction as the model would call it. */
export interface Instruction {
  name: string;
  arguments: Record<string, unknown>;
}

/** How an instruction is written into a page, a file or a memory entry. */
export function instruction(name: string, args: Record<string, unknown>): string {
  return `>>> call ${name} ${JSON.stringify(args)}`;
}

/** The same call, the way the model sends it and the way it is recognised again. */
export function callKey(name: string, args: unknown): string {
  return `${name} ${JSON.stringify(args)}`;
}

/** Every instruction in `text`, in order. */
export function instructionsIn(text: string): Instruction[] {
  const found: Instruction[] = [];
  for (const match of text.matchAll(INSTRUCTION)) {
    try {
      found.push({ name: match[1], arguments: JSON.parse(match[2]) });
    } catch { /* not JSON: not an instruction it can follow */ }
  }
  return found;
}

type WireMessage = {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { function: { name: string; arguments: string } }[];
};

/** The model: the next instruction it has read and not yet followed, or "Done.". */
export function gullible(body: Record<string, unknown>): FakeReply {
  const messages = body.messages as WireMessage[];
  const followed = new Set<string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      followed.add(callKey(call.function.name, JSON.parse(call.function.arguments || "{}")));
    }
  }
  const read = [...messages.map((message) => textOf(message.content)), ...stringsIn(body.tools)];
  const all = read.join("\n");
  for (const text of read) {
    for (const next of instructionsIn(text)) {
      const args = composed(next.arguments, all);
      if (!followed.has(callKey(next.name, args))) {
        return { tool_calls: [{ name: next.name, arguments: args }] };
      }
    }
  }
  return { text: "Done." };
}

/** The arguments with each `{{found:REGEX}}` filled in from what the model has read. */
function composed(args: Record<string, unknown>, read: string): Record<string, unknown> {
  const json = JSON.stringify(args);
  if (!json.includes("{{found:")) return args;
  return JSON.parse(json.replace(/\{\{found:(.+?)\}\}/g, (_, pattern: string) => {
    const match = new RegExp(JSON.parse(`"${pattern}"`)).exec(read);
    return encodeURIComponent(match?.[1] ?? match?.[0] ?? "");
  }));
}

/** Every string in a value: the descriptions of the tools offered, at any depth of their schemas. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (!value || typeof value !== "object") return [];
  return Object.values(value).flatMap(stringsIn);
}

function textOf(content: WireMessage["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("\n");
}
