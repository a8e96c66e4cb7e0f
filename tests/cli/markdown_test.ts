/**
 * A reply's Markdown on a terminal: the words without the marks, tables as
 * aligned columns that fit the width, lists with bullets, links with their
 * address — and, streamed, each block drawn once whole while a paragraph's
 * words still come as they are written.
 */

import { Lexer } from "marked";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { renderBlocks, type TerminalStyle, visibleWidth } from "../../src/cli/markdown.ts";
import { MarkdownStream } from "../../src/cli/markdown_stream.ts";

const plain: TerminalStyle = { colour: false, width: 80 };
const colour: TerminalStyle = { colour: true, width: 80 };

function draw(markdown: string, style = plain): string {
  return renderBlocks(Lexer.lex(markdown), style);
}

/** `markdown` pushed in pieces of `size` characters; every write, in order. */
function streamed(markdown: string, size: number, style = plain): string[] {
  const writes: string[] = [];
  const stream = new MarkdownStream((text) => writes.push(text), () => style);
  for (let at = 0; at < markdown.length; at += size) stream.push(markdown.slice(at, at + size));
  stream.end();
  return writes;
}

const REPLY = `Here are **two** ways, see [the docs](https://example.com/docs) and \`hob ask\`:

| Option | Cost | Notes |
|:--|--:|---|
| Local *Ollama* | $0 | on your machine |
| OpenAI | $12.50 | fast |

- First step
- Second, with \`code\`
  - nested
  - [x] done

> A quote.

\`\`\`sh
hob serve --port 9000
\`\`\`

Done. snake_case stays & so does 5 * 3.`;

Deno.test("renderBlocks shows the words without the marks", async (t) => {
  await t.step("bold and italic are styles at a terminal, plain words without colour", () => {
    assertEquals(draw("Pick **two** or *three*."), "Pick two or three.\n");
    assertEquals(
      draw("Pick **two** or *three*.", colour),
      "Pick \x1b[1mtwo\x1b[22m or \x1b[3mthree\x1b[23m.\n",
    );
  });
  await t.step("headings are bold, without their hashes", () => {
    assertEquals(draw("# Plan\n## Steps\n"), "Plan\nSteps\n");
    assertEquals(draw("## Steps\n", colour), "\x1b[1mSteps\x1b[22m\n");
  });
  await t.step("links are their text and address", () => {
    assertEquals(
      draw("See [the docs](https://example.com/d) or https://example.com."),
      "See the docs (https://example.com/d) or https://example.com.\n",
    );
  });
  await t.step("code spans and blocks keep what is written", () => {
    assertEquals(draw("Run `hob **serve**`."), "Run `hob **serve**`.\n");
    assertEquals(draw("Run `x`.", colour), "Run \x1b[36mx\x1b[39m.\n");
    assertEquals(draw("```sh\nhob serve\n  --port 1\n```\n"), "  hob serve\n    --port 1\n");
  });
  await t.step("lists have bullets, numbers, nesting and checkboxes", () => {
    assertEquals(
      draw("- one\n- two\n  - nested\n  - [x] done\n\n3. three\n4. four\n"),
      "• one\n• two\n  ◦ nested\n  ◦ [x] done\n\n3. three\n4. four\n",
    );
  });
  await t.step("entities are characters; control characters never reach the terminal", () => {
    assertEquals(draw("Fish &amp; chips &lt;3 &#x1b;[2J"), "Fish & chips <3 [2J\n");
  });
});

Deno.test("renderBlocks lays a table out in aligned columns", async (t) => {
  const markdown = "| Option | Cost |\n|:--|--:|\n| Local *Ollama* | $0 |\n| OpenAI | $12.50 |\n";
  await t.step("each column as wide as its widest cell, aligned as the table says", () => {
    assertEquals(
      draw(markdown),
      [
        "Option       │   Cost",
        "─────────────┼───────",
        "Local Ollama │     $0",
        "OpenAI       │ $12.50",
        "",
      ].join("\n"),
    );
  });
  await t.step("styles take no width", () => {
    const lines = draw(markdown, colour).trimEnd().split("\n");
    assertEquals(new Set(lines.map(visibleWidth)).size, 1, lines.join("\n"));
    assertStringIncludes(lines[0], "\x1b[1mOption\x1b[22m");
  });
  await t.step("a table wider than the terminal wraps its widest cells to fit", () => {
    const wide = "| Name | Notes |\n|---|---|\n| a | " + "many words in this cell ".repeat(6) +
      "|\n| b | short |\n";
    for (const width of [40, 60]) {
      const lines = draw(wide, { ...colour, width }).trimEnd().split("\n");
      for (const line of lines) {
        assert(visibleWidth(line) <= width, `${line} is wider than ${width}`);
      }
      // The words are all there, in order, across the lines of the cell.
      // deno-lint-ignore no-control-regex
      const notes = lines.slice(2, -1).map((line) => line.split("│")[1].replace(/\x1b\[\d+m/g, ""));
      assertEquals(
        notes.join(" ").replace(/\s+/g, " ").trim(),
        "many words in this cell ".repeat(6).trim(),
      );
    }
  });
  await t.step("wide characters count two columns", () => {
    const lines = draw("| 名前 | x |\n|---|---|\n| ab | y |\n").trimEnd().split("\n");
    const bar = (line: string) => visibleWidth(line.slice(0, line.search(/[│┼]/)));
    assertEquals(lines.map(bar), [5, 5, 5]);
  });
});

Deno.test("MarkdownStream draws a streamed reply as the whole would be drawn", async (t) => {
  const whole = draw(REPLY);
  for (const size of [1, 2, 3, 5, 8, 13, 64]) {
    await t.step(`in pieces of ${size}`, () => {
      assertEquals(streamed(REPLY, size).join(""), whole);
    });
  }
  await t.step("with colour too", () => {
    assertEquals(streamed(REPLY, 3, colour).join(""), draw(REPLY, colour));
  });
  await t.step("no blank line after the last block", () => {
    assertEquals(streamed("Done.\n\n\n", 1).join(""), "Done.\n");
  });
});

Deno.test("MarkdownStream streams a paragraph's words, holding only an open mark", () => {
  const writes: string[] = [];
  const stream = new MarkdownStream((text) => writes.push(text), () => plain);
  stream.push("Hello there, ");
  stream.push("how are");
  assertEquals(writes.join(""), "Hello there, how ", "words are drawn as they come");
  stream.push(" you? This is **very");
  assertEquals(writes.join(""), "Hello there, how are you? This is ", "held: '**' is open");
  stream.push(" important** to ");
  assertEquals(writes.join(""), "Hello there, how are you? This is very important to ");
  stream.push("us.");
  stream.end();
  assertEquals(writes.join(""), "Hello there, how are you? This is very important to us.\n");
});

Deno.test("MarkdownStream draws a table once its last row has come, a list item once the next begins", () => {
  const writes: string[] = [];
  const stream = new MarkdownStream((text) => writes.push(text), () => plain);
  stream.push("| a | b |\n|---|---|\n| 1 | 2 |\n");
  assertEquals(writes, [], "a row may still come");
  stream.push("\n- one\n- tw");
  assertEquals(writes.join(""), "a │ b\n──┼──\n1 │ 2\n\n• one\n");
  stream.push("o\n");
  stream.end();
  assertEquals(writes.join(""), "a │ b\n──┼──\n1 │ 2\n\n• one\n• two\n");
});

Deno.test("MarkdownStream puts a block after a prompt on a line of its own, and strips control characters", () => {
  let text = "hob › ";
  const stream = new MarkdownStream(
    (written) => text += written,
    () => plain,
    () => text.endsWith("\n"),
  );
  stream.push("| a |\n|---|\n| \x1b[2J1 |\n");
  stream.end();
  // ESC is gone; what followed it is harmless text.
  assertEquals(text, "hob › \na\n────\n[2J1\n");
});
