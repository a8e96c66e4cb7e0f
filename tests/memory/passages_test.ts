/** Passages: the lines of a hit that answer, within one budget across hits, labels kept. */

import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { passages, stems, type TermWeights } from "../../src/memory/passages.ts";
import { untrustedSource } from "../../src/core/untrusted.ts";

/** A session of a chat log: a heading and `turns` lines, the answer at `answerAt`. */
function session(turns: number, answerAt: number, answer: string): string {
  const lines = Array.from(
    { length: turns },
    (_, i) =>
      i === answerAt
        ? `Maya: ${answer}`
        : `${
          i % 2 ? "Jonas" : "Maya"
        }: small talk number ${i} about the weather and the week ahead.`,
  );
  return `# Session 5 — 2:14 pm on 3 June 2025\n${lines.join("\n")}`;
}

const weights = (entries: Record<string, number>): TermWeights =>
  new Map(Object.entries(entries).map(([word, weight]) => [stems(word)[0], weight]));

Deno.test("stems are the porter stems SQLite's tokenizer indexes", () => {
  assertEquals(stems("Going camping, planning!"), ["go", "camp", "plan"]);
});

Deno.test("a passage shows the line that answers, deep in a long chunk, with its neighbours", () => {
  const text = session(24, 17, "thinking about going camping next month, up in the hills.");
  const [shown] = passages(
    [{ path: "chat.md", text }],
    weights({ camping: 3, maya: 0.2, planning: 1 }),
    400,
  );
  assertStringIncludes(shown, "Maya: thinking about going camping next month, up in the hills.");
  // The turns around it come along; the chunk's first lines do not.
  assertStringIncludes(shown, "small talk number 16");
  assertStringIncludes(shown, "small talk number 18");
  assert(!shown.includes("small talk number 1 "), shown);
  assert(shown.startsWith("…\n"), shown);
  assert(shown.length <= 400 + 4, `${shown.length}`);
});

Deno.test("a short chunk is shown whole, and what it leaves of the budget goes to the next hit", () => {
  const short = "# Facts\n- Grace lives in Lisbon.\n- Tom is 41.";
  const long = session(40, 30, "the answer about kayaks is here.");
  const w = weights({ kayaks: 3 });
  const [whole, rest] = passages(
    [{ path: "a.md", text: short }, { path: "b.md", text: long }],
    w,
    1_000,
  );
  assertEquals(whole, "- Grace lives in Lisbon.\n- Tom is 41.");
  assertStringIncludes(rest, "the answer about kayaks is here.");
  // The long hit got more than an even half: what the short one left over.
  assert(rest.length > 600, `${rest.length}`);
  // Even, without the short hit's leftover: two long hits share the budget.
  const [one, two] = passages(
    [{ path: "b.md", text: long }, { path: "c.md", text: long }],
    w,
    1_000,
  );
  assert(one.length <= 520 && two.length <= 520, `${one.length} ${two.length}`);
});

Deno.test("distant matching lines are shown as separate spans, the gaps marked", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i} says nothing in particular here.`);
  lines[4] = "The boiler was serviced in March.";
  lines[25] = "The boiler needs a new valve.";
  const [shown] = passages(
    [{ path: "home.md", text: lines.join("\n") }],
    weights({ boiler: 2 }),
    300,
  );
  assertStringIncludes(shown, "The boiler was serviced in March.");
  assertStringIncludes(shown, "The boiler needs a new valve.");
  assertEquals(shown.split("\n").filter((line) => line === "…").length, 3, shown);
});

Deno.test("lines one hit showed are not shown again by the next (chunks of a file overlap)", () => {
  const text = "- The boiler was serviced in March.\n- The gas meter was read.";
  const [first, second] = passages(
    [{ path: "home.md", text }, { path: "home.md", text }],
    weights({ boiler: 2 }),
    2_000,
  );
  assertStringIncludes(first, "boiler");
  assertEquals(second, "(these lines are shown above)");
});

Deno.test("with no line matching, the chunk's first lines; a line too long is cut around its match", () => {
  const text = session(30, 29, "x");
  const [top] = passages([{ path: "a.md", text }], weights({}), 200);
  assert(top.startsWith("Maya: small talk number 0"), top);
  assert(top.endsWith("…"), top);
  const long = `${"filler words ".repeat(80)}the kayak is red ${"more filler ".repeat(80)}`;
  const [cut] = passages([{ path: "a.md", text: long }], weights({ kayak: 2 }), 200);
  assertStringIncludes(cut, "the kayak is red");
  assert(cut.startsWith("…") && cut.endsWith("…") && cut.length <= 204, cut);
});

Deno.test("a passage cut out of labelled text stays labelled", () => {
  const text = [
    "# Sources",
    '<untrusted source="fetch_url: https://example.org">',
    ...Array.from({ length: 20 }, (_, i) => `Quoted line ${i} of the page.`),
    "The kayak rental closes at five.",
    ...Array.from({ length: 20 }, (_, i) => `More quoted line ${i}.`),
    "</untrusted>",
  ].join("\n");
  const [shown] = passages([{ path: "s.md", text }], weights({ kayak: 2 }), 200);
  assertStringIncludes(shown, "The kayak rental closes at five.");
  assertEquals(untrustedSource(shown), "fetch_url: https://example.org");
  assert(shown.includes("</untrusted>"), shown);
});

Deno.test("in a chat, the two turns after the one that matches come before the turn above it", () => {
  const text = session(30, 12, "when is the wedding? I keep forgetting the date, sorry!!");
  const [shown] = passages(
    [{ path: "chat.md", text }],
    weights({ wedding: 3 }),
    300,
  );
  // Room for four turns: the match, the two answers after it, and one turn before.
  const numbers = [...shown.matchAll(/small talk number (\d+)/g)].map((m) => Number(m[1]));
  assertEquals(numbers, [11, 13, 14]);
});

Deno.test("a line two overlapping chunks share is shown once, though their texts leave out blank lines", () => {
  // As the chunker cuts a long section: paragraphs joined without the blank lines between them.
  const first = ["Maya: the camping trip is in May.", "Jonas: which campsite?", "Maya: Brecon."];
  const second = ["Maya: Brecon.", "Jonas: camping in the rain again, then.", "Maya: probably!"];
  const [one, two] = passages(
    [
      { path: "chat.md", text: second.join("\n") },
      { path: "chat.md", text: first.join("\n") },
    ],
    weights({ camping: 2 }),
    2_000,
  );
  assertStringIncludes(one, "Maya: Brecon.");
  assert(!two.includes("Maya: Brecon."), two);
});
