/** Markdown to Telegram's HTML: every construct a model writes, escaped to the character. */

import {
  cut,
  escapeHtml,
  TELEGRAM_MAX_CHARS,
  toTelegram,
} from "../../src/channels/telegram_format.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

Deno.test("escapeHtml escapes exactly what Telegram's HTML needs", () => {
  assertEquals(escapeHtml(`a < b > c & "d" 'e'`), "a &lt; b &gt; c &amp; &quot;d&quot; 'e'");
  // Already-escaped text is escaped again: the model's "&lt;" is shown as it wrote it.
  assertEquals(escapeHtml("&lt;"), "&amp;lt;");
});

Deno.test("toTelegram renders each construct as Telegram's tags", () => {
  const html = (markdown: string) => toTelegram(markdown).map((part) => part.html).join("\n---\n");
  assertEquals(
    html("**bold** *it* ~~gone~~ `a<b>`"),
    "<b>bold</b> <i>it</i> <s>gone</s> <code>a&lt;b&gt;</code>",
  );
  assertEquals(html("# Title & more"), "<b>Title &amp; more</b>");
  assertEquals(html("- one\n- two\n  - under"), "• one\n• two\n   • under");
  assertEquals(html("3. c\n4. d"), "3. c\n4. d");
  assertEquals(html("- [x] done\n- [ ] todo"), "☑ done\n☐ todo");
  assertEquals(html("> said *so*"), "<blockquote>said <i>so</i></blockquote>");
  assertEquals(
    html("```ts\nif (a < b && c) {}\n```"),
    '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
  );
  assertEquals(html("| a | b |\n|---|---|\n| 1 | <2> |"), "<pre>a | b\n1 | &lt;2&gt;</pre>");
  assertEquals(
    html('[site](https://x.org/?a=1&b="2") [bad](javascript:alert(1))'),
    '<a href="https://x.org/?a=1&amp;b=&quot;2&quot;">site</a> bad',
  );
  // Raw HTML from the model is text, never markup.
  assertEquals(html("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  assertEquals(html("a <b>tag</b> inline"), "a &lt;b&gt;tag&lt;/b&gt; inline");
});

Deno.test("toTelegram keeps a plain twin of each part for when Telegram refuses the markup", () => {
  const [part] = toTelegram("**Done** — see `a<b>` & [it](https://x.org)");
  assertEquals(part.plain, "Done — see a<b> & it");
});

Deno.test("a long reply becomes messages under the limit, cut between blocks", () => {
  const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${"word ".repeat(60)}`);
  const parts = toTelegram(paragraphs.join("\n\n"));
  assert(parts.length > 1);
  for (const part of parts) assert(part.html.length <= TELEGRAM_MAX_CHARS, `${part.html.length}`);
  // Nothing is lost, and each part starts with a paragraph.
  const text = parts.map((part) => part.plain).join("\n\n");
  for (let i = 0; i < 40; i++) assert(text.includes(`Paragraph ${i}:`), `paragraph ${i}`);
  for (const part of parts) assert(part.plain.startsWith("Paragraph "));
  // One block longer than a message is cut at word ends, as plain escaped text.
  const long = toTelegram(`${"x <y> ".repeat(2_000)}`);
  assert(long.length >= 3);
  for (const part of long) assert(part.html.length <= TELEGRAM_MAX_CHARS);
  assertEquals(long.map((part) => part.plain).join(" ").split(" ").filter(Boolean).length, 4_000);
});

Deno.test("cut prefers line ends, then spaces, then cuts anywhere", () => {
  assertEquals(cut("aaaaaa\nbbb cccc", 10), ["aaaaaa", "bbb cccc"]);
  assertEquals(cut("aaaaaa bbbbbb", 8), ["aaaaaa", "bbbbbb"]);
  assertEquals(cut("abcdefghij", 4), ["abcd", "efgh", "ij"]);
});
