import { assertEquals } from "../helpers/assert.ts";
import { harmonyParser, type HarmonyPart, withHarmony } from "../../src/llm/harmony.ts";
import type { LlmEvent } from "../../src/core/types.ts";
import { collect } from "../helpers/providers.ts";

/** What llama.cpp's server streams for gpt-oss without a reasoning parser. */
const WITH_ENDS =
  "<|channel|>analysis<|message|>The user greets. Answer briefly.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help?";
/** The same, as servers that strip the end tokens send it. */
const WITHOUT_ENDS =
  "<|channel|>analysis<|message|>The user greets.<|start|>assistant<|channel|>final<|message|>Hello! How can I help?";
/** Thinking, then a call to a tool, with its JSON constrained. */
const CALL =
  '<|channel|>analysis<|message|>Need the time.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"timezone": "UTC"}<|call|>';

/** The parts of `chunks` pushed one after another, with adjacent parts of one kind merged. */
function parse(chunks: string[]): HarmonyPart[] {
  const parser = harmonyParser();
  const parts = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  const merged: HarmonyPart[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (last && last.type === part.type && last.type !== "call" && part.type !== "call") {
      last.text += part.text;
    } else merged.push({ ...part });
  }
  return merged;
}

Deno.test("harmonyParser splits a reply into its final text, its thinking and its calls", async (t) => {
  await t.step("analysis then final, with end tokens", () => {
    assertEquals(parse([WITH_ENDS]), [
      { type: "reasoning", text: "The user greets. Answer briefly." },
      { type: "text", text: "Hello! How can I help?" },
    ]);
  });
  await t.step("analysis then final, the end tokens left out", () => {
    assertEquals(parse([WITHOUT_ENDS]), [
      { type: "reasoning", text: "The user greets." },
      { type: "text", text: "Hello! How can I help?" },
    ]);
  });
  await t.step("a commentary message to a function is a call", () => {
    assertEquals(parse([CALL]), [
      { type: "reasoning", text: "Need the time." },
      { type: "call", name: "get_time", arguments: '{"timezone": "UTC"}' },
    ]);
  });
  await t.step("a call whose <|call|> was left out ends with the reply", () => {
    assertEquals(parse([CALL.replace("<|call|>", "")]).at(-1), {
      type: "call",
      name: "get_time",
      arguments: '{"timezone": "UTC"}',
    });
  });
  await t.step("the recipient may stand in the role's part of the header", () => {
    assertEquals(
      parse(["<|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>{}"]),
      [{ type: "call", name: "lookup", arguments: "{}" }],
    );
  });
  await t.step("a commentary preamble to no one is shown", () => {
    assertEquals(
      parse(["<|channel|>commentary<|message|>Checking two things.<|end|>"]),
      [{ type: "text", text: "Checking two things." }],
    );
  });
  await t.step("'<|' that starts no marker is text, also at the very end", () => {
    assertEquals(
      parse(["<|channel|>final<|message|>a <|b and x<|y <|en"]),
      [{ type: "text", text: "a <|b and x<|y <|en" }],
    );
  });
  await t.step("the final text streams as it comes", () => {
    const parser = harmonyParser();
    assertEquals(parser.push("<|channel|>analysis<|message|>Hm.<|end|>"), [
      { type: "reasoning", text: "Hm." },
    ]);
    assertEquals(parser.push("<|start|>assistant<|channel|>final<|message|>Hel"), [
      { type: "text", text: "Hel" },
    ]);
    assertEquals(parser.push("lo"), [{ type: "text", text: "lo" }]);
    assertEquals(parser.end(), []);
  });
  await t.step("a reply ending with <|return|> keeps nothing of it", () => {
    assertEquals(parse(["<|channel|>final<|message|>Done.<|return|>"]), [
      { type: "text", text: "Done." },
    ]);
  });
});

Deno.test("harmonyParser gives the same parts however the stream is cut", async (t) => {
  for (
    const [name, reply] of [["with ends", WITH_ENDS], ["without", WITHOUT_ENDS], ["a call", CALL]]
  ) {
    const whole = parse([reply]);
    await t.step(`${name}: cut in two at every offset`, () => {
      for (let at = 0; at <= reply.length; at++) {
        assertEquals(parse([reply.slice(0, at), reply.slice(at)]), whole, `cut at ${at}`);
      }
    });
    await t.step(`${name}: one character at a time`, () => {
      assertEquals(parse([...reply]), whole);
    });
  }
  await t.step("cut in three at every pair of offsets", () => {
    const whole = parse([WITH_ENDS]);
    for (let a = 0; a <= WITH_ENDS.length; a++) {
      for (let b = a; b <= WITH_ENDS.length; b++) {
        const chunks = [WITH_ENDS.slice(0, a), WITH_ENDS.slice(a, b), WITH_ENDS.slice(b)];
        assertEquals(parse(chunks), whole, `cut at ${a} and ${b}`);
      }
    }
  });
});

/** A provider's stream of `chunks` as text, then usage and done. */
async function* streamOf(chunks: string[]): AsyncGenerator<LlmEvent> {
  for (const text of chunks) yield { type: "text", text };
  yield { type: "usage", usage: { input_tokens: 3, output_tokens: 4 } };
  yield { type: "done", stop_reason: "stop" };
}

const textOf = (events: LlmEvent[]) =>
  events.map((event) => event.type === "text" ? event.text : "").join("");

Deno.test("withHarmony shows a harmony reply's final text only, and passes other replies as they came", async (t) => {
  await t.step("markup split across chunks", async () => {
    const chunks = WITH_ENDS.match(/.{1,5}/gs)!;
    const events = await collect(withHarmony(streamOf(chunks)));
    assertEquals(textOf(events), "Hello! How can I help?");
    assertEquals(events.slice(-2).map((event) => event.type), ["usage", "done"]);
  });
  await t.step("a call becomes a tool call", async () => {
    const events = await collect(withHarmony(streamOf(CALL.match(/.{1,3}/gs)!)));
    const calls = events.flatMap((event) => event.type === "tool_call" ? [event.call] : []);
    assertEquals(calls.map((call) => [call.name, call.arguments]), [[
      "get_time",
      '{"timezone": "UTC"}',
    ]]);
    assertEquals(textOf(events), "");
  });
  await t.step("plain replies, also ones that start like markup, are untouched", async () => {
    for (
      const chunks of [
        ["Hello", " there."],
        ["<", "b>bold</b>"],
        ["<|", "python_tag|>{}"],
        ["  ", "\n", "Indented."],
        ["<|chan"],
      ]
    ) {
      const events = await collect(withHarmony(streamOf(chunks)));
      assertEquals(textOf(events), chunks.join(""));
      assertEquals(events.at(-1), { type: "done", stop_reason: "stop" });
    }
  });
});
