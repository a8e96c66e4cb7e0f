/**
 * gpt-oss's harmony format, when a server streams it as text: llama.cpp's
 * server without a reasoning parser sends the model's raw channels as content,
 * `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…`.
 * Only the final channel is the reply; the analysis channel is the model's
 * thinking (hob keeps none, so it is dropped), and a commentary message
 * addressed `to=functions.NAME` is a tool call. Markers may be split anywhere
 * across chunks: a partial marker is held until it is whole or proves to be
 * text. A reply that does not start with a harmony marker passes untouched.
 * Knows the LlmEvent stream, not the agent.
 */

import type { LlmEvent } from "../core/types.ts";

const START = "<|start|>";
const CHANNEL = "<|channel|>";
const MESSAGE = "<|message|>";
/** The tokens that end a message: `<|end|>`, a tool call's `<|call|>`, the reply's `<|return|>`. */
const ENDS = ["<|end|>", "<|call|>", "<|return|>"];
/** Every marker a message's body may meet; `<|constrain|>` only appears in headers. */
const MARKERS = [START, CHANNEL, MESSAGE, ...ENDS, "<|constrain|>"];

/** What a harmony reply holds, part by part as it streams. */
export type HarmonyPart =
  /** The final channel, or a commentary preamble addressed to no one: the reply people read. */
  | { type: "text"; text: string }
  /** The analysis channel (or one hob does not know): the model's thinking. */
  | { type: "reasoning"; text: string }
  /** A commentary message to a tool, whole: `to=functions.NAME` with its JSON arguments. */
  | { type: "call"; name: string; arguments: string };

/** A streaming parser of one harmony reply. */
export interface HarmonyParser {
  /** Takes the next chunk of text; returns the parts it completes. */
  push(text: string): HarmonyPart[];
  /** The reply has ended: returns what was still held (a call whose end token was left out). */
  end(): HarmonyPart[];
}

/** The message being read: where its header said it goes. */
interface Message {
  channel: string;
  /** The tool it calls, for a commentary message with `to=functions.NAME`. */
  recipient: string | null;
  /** A call's arguments so far. */
  args: string;
}

/**
 * Creates a parser for one reply that begins with a harmony header (after
 * `<|start|>assistant`, as the server's prompt ends).
 *
 * @example
 * ```ts
 * const parser = harmonyParser();
 * parser.push("<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant<|channel|>final<|mess");
 * parser.push("age|>Hi!"); // [{ type: "text", text: "Hi!" }]
 * ```
 */
export function harmonyParser(): HarmonyParser {
  let buffer = "";
  let message: Message | null = null;
  const parts: HarmonyPart[] = [];

  const emit = (text: string) => {
    if (!text || !message) return;
    if (message.recipient !== null) message.args += text;
    else parts.push({ type: visibleChannel(message.channel) ? "text" : "reasoning", text });
  };
  const finish = () => {
    if (message?.recipient) {
      parts.push({ type: "call", name: message.recipient, arguments: message.args.trim() || "{}" });
    }
    message = null;
  };
  /** Reads what `buffer` holds as far as it can; false when it must wait for more. */
  const step = (): boolean => {
    if (!message) {
      const at = buffer.indexOf(MESSAGE);
      if (at < 0) return false;
      message = readHeader(buffer.slice(0, at));
      buffer = buffer.slice(at + MESSAGE.length);
      return true;
    }
    const at = buffer.indexOf("<|");
    if (at < 0) {
      // A last "<" may be a marker's first character.
      const keep = buffer.endsWith("<") ? 1 : 0;
      emit(buffer.slice(0, buffer.length - keep));
      buffer = buffer.slice(buffer.length - keep);
      return false;
    }
    emit(buffer.slice(0, at));
    buffer = buffer.slice(at);
    const marker = MARKERS.find((m) => buffer.startsWith(m));
    if (!marker) {
      if (MARKERS.some((m) => m.startsWith(buffer))) return false; // split: wait for the rest
      emit("<|"); // not a marker after all
      buffer = buffer.slice(2);
      return true;
    }
    finish();
    // A new header starts at its marker; an end token is dropped.
    if (ENDS.includes(marker)) buffer = buffer.slice(marker.length);
    return true;
  };
  const drain = () => {
    while (step()) { /* read on */ }
    return parts.splice(0);
  };

  return {
    push(text) {
      buffer += text;
      return drain();
    },
    end() {
      if (message) {
        emit(buffer);
        buffer = "";
        finish();
      }
      return parts.splice(0);
    },
  };
}

/** A message's header: its channel and the tool it is addressed to, if any. */
function readHeader(header: string): Message {
  const channel = /<\|channel\|>\s*([\w-]+)/.exec(header)?.[1] ?? "final";
  const to = /\bto=([^\s<]+)/.exec(header)?.[1] ?? null;
  const recipient = to && channel !== "analysis" ? to.replace(/^functions\./, "") : null;
  return { channel, recipient, args: "" };
}

/** The channels whose text is the reply: final, and commentary preambles. */
function visibleChannel(channel: string): boolean {
  return channel === "final" || channel === "commentary";
}

/** How a harmony reply may begin (the server's prompt ends with `<|start|>assistant`). */
const OPENINGS = [CHANNEL, START];

/**
 * Passes `events` on, with a reply written in harmony markup turned into its
 * final text (and its calls into `tool_call` events), its thinking left out.
 * The first text decides: a reply whose text starts with a harmony marker is
 * parsed, any other passes as it came (held only while its first characters
 * may still be a marker).
 *
 * @example
 * ```ts
 * yield* withHarmony(adapter.stream(name, request));
 * ```
 */
export async function* withHarmony(events: AsyncIterable<LlmEvent>): AsyncGenerator<LlmEvent> {
  let parser: HarmonyParser | null = null;
  let opening = "";
  let decided = false;
  for await (const event of events) {
    if (event.type === "text" && !decided) {
      opening += event.text;
      const start = opening.trimStart();
      if (OPENINGS.some((marker) => marker.startsWith(start))) continue; // may yet be one
      decided = true;
      if (OPENINGS.some((marker) => start.startsWith(marker))) {
        parser = harmonyParser();
        yield* partEvents(parser.push(opening));
      } else yield { type: "text", text: opening };
      continue;
    }
    if (event.type === "text") {
      if (parser) yield* partEvents(parser.push(event.text));
      else yield event;
      continue;
    }
    if (!decided && opening) yield { type: "text", text: opening }; // only ever a marker's start
    decided = true;
    if (parser && (event.type === "done" || event.type === "error")) {
      yield* partEvents(parser.end());
    }
    yield event;
  }
}

/** The parts as hob's events: text as text, calls as tool calls, thinking left out. */
function* partEvents(parts: HarmonyPart[]): Generator<LlmEvent> {
  for (const part of parts) {
    if (part.type === "text") yield { type: "text", text: part.text };
    else if (part.type === "call") {
      yield {
        type: "tool_call",
        call: {
          id: `harmony_call_${crypto.randomUUID().slice(0, 8)}`,
          name: part.name,
          arguments: part.arguments,
        },
      };
    }
  }
}
