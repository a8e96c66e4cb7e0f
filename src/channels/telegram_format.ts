/**
 * Markdown, as models write it, to what Telegram renders: the HTML subset of
 * its Bot API (`parse_mode: HTML` — b, i, s, code, pre, a, blockquote),
 * parsed by `marked` and escaped here (Telegram's HTML needs only `&`, `<`,
 * `>` and `"` escaped, so the whole escaping is one function, tested to the
 * character). Long replies are cut between blocks into messages under
 * Telegram's 4,096-character limit; a block too long on its own is sent as
 * plain text, cut at line and word ends.
 */

import { Marked, type Token, type Tokens } from "marked";

/** Telegram's limit on one message's text, in UTF-16 code units after entities are parsed. */
export const TELEGRAM_MAX_CHARS = 4_096;
/** What a message's HTML is kept under (tags do not count, but a margin costs nothing). */
const TARGET_CHARS = 3_800;

/** One message to send: HTML for `parse_mode: HTML`, with the same text plain for a fallback. */
export interface TelegramPart {
  html: string;
  /** The part's text without markup, sent if Telegram refuses the HTML. */
  plain: string;
}

/**
 * Escapes text for Telegram's HTML.
 *
 * @example
 * ```ts
 * escapeHtml('a < b & "c"'); // 'a &lt; b &amp; &quot;c&quot;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    space: () => "",
    code: ({ text, lang }: Tokens.Code) => {
      const language = lang?.match(/^[\w+#-]+/)?.[0];
      const open = language ? `<pre><code class="language-${escapeHtml(language)}">` : "<pre>";
      const close = language ? "</code></pre>" : "</pre>";
      return `${open}${escapeHtml(text)}${close}\n\n`;
    },
    blockquote(
      this: { parser: { parse(tokens: Token[]): string } },
      { tokens }: Tokens.Blockquote,
    ) {
      return `<blockquote>${this.parser.parse(tokens).trim()}</blockquote>\n\n`;
    },
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    heading(this: Inline, { tokens }: Tokens.Heading) {
      return `<b>${this.parser.parseInline(tokens)}</b>\n\n`;
    },
    hr: () => "──────────\n\n",
    list(this: Inline & { listitem(item: Tokens.ListItem): string }, token: Tokens.List) {
      const start = typeof token.start === "number" ? token.start : 1;
      const lines = token.items.map((item, index) => {
        const marker = item.task
          ? (item.checked ? "☑" : "☐")
          : token.ordered
          ? `${start + index}.`
          : "•";
        // A nested list starts on a line of its own, indented under its item.
        const body = item.tokens.map((inner) =>
          inner.type === "list"
            ? `\n${this.parser.parse([inner]).trim()}`
            : this.parser.parse([inner])
        ).join("").trim().replace(/\n+/g, "\n   ");
        return `${marker} ${body}`;
      });
      return `${lines.join("\n")}\n\n`;
    },
    checkbox: () => "",
    paragraph(this: Inline, { tokens }: Tokens.Paragraph) {
      return `${this.parser.parseInline(tokens)}\n\n`;
    },
    table(token: Tokens.Table) {
      const rows = [token.header, ...token.rows].map((row) =>
        row.map((cell) => cell.text).join(" | ")
      );
      return `<pre>${escapeHtml(rows.join("\n"))}</pre>\n\n`;
    },
    strong(this: Inline, { tokens }: Tokens.Strong) {
      return `<b>${this.parser.parseInline(tokens)}</b>`;
    },
    em(this: Inline, { tokens }: Tokens.Em) {
      return `<i>${this.parser.parseInline(tokens)}</i>`;
    },
    codespan: ({ text }: Tokens.Codespan) => `<code>${escapeHtml(text)}</code>`,
    br: () => "\n",
    del(this: Inline, { tokens }: Tokens.Del) {
      return `<s>${this.parser.parseInline(tokens)}</s>`;
    },
    link(this: Inline, { href, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      // Only web and mail links: Telegram refuses others, and a javascript: link is never wanted.
      return /^(https?:|mailto:|tg:)/i.test(href)
        ? `<a href="${escapeHtml(href)}">${text}</a>`
        : text;
    },
    image: ({ href, text }: Tokens.Image) =>
      /^https?:/i.test(href)
        ? `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`
        : escapeHtml(text),
    text(this: Inline, token: Tokens.Text | Tokens.Escape) {
      return "tokens" in token && token.tokens
        ? this.parser.parseInline(token.tokens)
        : escapeHtml(token.text);
    },
  },
});

interface Inline {
  parser: { parseInline(tokens: Token[]): string; parse(tokens: Token[]): string };
}

/**
 * A reply as Telegram messages: each block rendered to Telegram's HTML,
 * blocks gathered into messages under the limit.
 *
 * @example
 * ```ts
 * toTelegram("**Done** — see `notes.md`");
 * // [{ html: "<b>Done</b> — see <code>notes.md</code>", plain: "Done — see notes.md" }]
 * ```
 */
export function toTelegram(markdown: string): TelegramPart[] {
  const parts: TelegramPart[] = [];
  let html = "";
  let plain = "";
  const flush = () => {
    if (html.trim()) parts.push({ html: html.trim(), plain: plain.trim() });
    html = "";
    plain = "";
  };
  for (const token of marked.lexer(markdown)) {
    const block = marked.parser([token]) as string;
    const text = plainOf(block);
    if (block.length > TARGET_CHARS) {
      flush();
      for (const piece of plainPieces(token.raw)) {
        parts.push({ html: escapeHtml(piece), plain: piece });
      }
      continue;
    }
    if (html.length + block.length > TARGET_CHARS) flush();
    html += block;
    plain += `${text.trim()}\n\n`;
  }
  flush();
  return parts;
}

/**
 * Text cut into pieces whose escaped form fits a message: escaping makes text
 * longer (up to 5×), so the cut is sized by how much longer this text gets,
 * and a piece that still does not fit is cut again.
 */
function plainPieces(text: string): string[] {
  const growth = escapeHtml(text).length / Math.max(1, text.length);
  return cut(text, Math.floor((TARGET_CHARS * 0.9) / growth)).flatMap((piece) =>
    escapeHtml(piece).length <= TARGET_CHARS ? [piece] : cut(piece, Math.floor(TARGET_CHARS / 5))
  );
}

/** Text without Telegram's tags, entities decoded. */
function plainOf(html: string): string {
  return html.replace(/<[^>]+>/g, "").replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

/** Cuts text into pieces of at most `max` characters, at a line end, else a space, else anywhere. */
export function cut(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let at = window.lastIndexOf("\n");
    if (at < max / 2) at = window.lastIndexOf(" ");
    if (at < max / 2) at = max;
    pieces.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest.trim()) pieces.push(rest);
  return pieces;
}
