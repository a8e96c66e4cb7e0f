/**
 * A reply's Markdown drawn on a terminal as it streams (markdown.ts draws):
 * each block once it is whole — a table when its last row has come, a list
 * item when the next begins — and a paragraph's words as they come, held only
 * while a mark in them is open (`**bo…`), so plain text streams as it always
 * did. It knows nothing of turns: render.ts feeds it a reply's text.
 */

import { Lexer, type Token, type Tokens } from "marked";
import {
  CONTROL,
  renderBlock,
  renderInline,
  renderListItems,
  type TerminalStyle,
} from "./markdown.ts";

/** In a paragraph's text still coming, a mark that may open a span not yet closed. */
const OPEN_MARK = /[*`~[\]<]|(^|[^\p{L}\p{N}])_|_([^\p{L}\p{N}]|$)/u;

/**
 * Draws streamed Markdown through `write`, block by block.
 *
 * @example
 * ```ts
 * const markdown = new MarkdownStream(out, () => ({ colour: true, width: 80 }));
 * markdown.push("Hello **wor");
 * markdown.push("ld**\n\n| a |\n|---|\n| 1 |\n");
 * markdown.end();
 * ```
 */
export class MarkdownStream {
  /** The text of the blocks not yet drawn whole. */
  #pending = "";
  /** Of the first pending block, a paragraph: how many of its characters are drawn. */
  #shown = 0;
  /** Of the first pending block, a list: how many of its items are drawn. */
  #itemsShown = 0;
  readonly #write: (text: string) => void;
  readonly #style: () => TerminalStyle;
  readonly #atLineStart: () => boolean;

  /**
   * `write` prints; `style` says how, asked at each block; `atLineStart` says
   * whether the output is at the start of a line (others write to it too: a
   * prompt, a tool's line), and by default whether this stream's last text was.
   */
  constructor(
    write: (text: string) => void,
    style: () => TerminalStyle,
    atLineStart?: () => boolean,
  ) {
    let ended = true;
    this.#write = atLineStart ? write : (text) => {
      write(text);
      ended = text.endsWith("\n");
    };
    this.#atLineStart = atLineStart ?? (() => ended);
    this.#style = style;
  }

  /** Adds the reply's next piece of text, drawing what it finished. */
  push(text: string): void {
    this.#pending += text.replace(CONTROL, "");
    this.#draw(false);
  }

  /** The reply ended (or stopped for a tool call): draws what is left; the next text starts anew. */
  end(): void {
    this.#draw(true);
    this.#pending = "";
    this.#shown = 0;
    this.#itemsShown = 0;
  }

  #draw(final: boolean): void {
    if (!this.#pending) return;
    // Blocks only: their words are read (Lexer.lex) once a block is drawn, not at every piece —
    // a long paragraph would cost its length at each.
    const tokens = new Lexer().blockTokens(this.#pending);
    const whole = final ? tokens.length : wholeBlocks(tokens);
    let consumed = 0;
    for (let index = 0; index < whole; index++) {
      const token = tokens[index];
      // A blank line is drawn only before a block: none is left after the reply's last.
      const trailing = tokens.slice(index).every((each) => each.type === "space");
      if (!(final && trailing)) this.#drawWhole(token, index === 0);
      consumed += token.raw.length;
    }
    if (whole > 0) {
      this.#pending = this.#pending.slice(consumed);
      this.#shown = 0;
      this.#itemsShown = 0;
    }
    if (!final && whole < tokens.length) this.#drawPart(tokens[whole]);
  }

  /** A finished block; the rest of it when its beginning was drawn as it came. */
  #drawWhole(token: Token, first: boolean): void {
    const style = this.#style();
    if (first && this.#shown > 0 && token.type === "paragraph") {
      const rest = token.raw.slice(this.#shown).replace(/\n+$/, "");
      this.#emit(`${renderInline(Lexer.lexInline(rest), style)}\n`);
      return;
    }
    if (first && this.#itemsShown > 0 && token.type === "list") {
      this.#emit(renderListItems(wholeList(token.raw), style, this.#itemsShown));
      return;
    }
    // A block other than a paragraph starts on a line of its own (after "hob › ", say).
    if (!this.#atLineStart() && token.type !== "paragraph") this.#emit("\n");
    if (token.type === "space") {
      this.#emit("\n");
      return;
    }
    for (const block of Lexer.lex(token.raw)) {
      if (block.type !== "space") this.#emit(renderBlock(block, style));
    }
  }

  /** What of an unfinished block can be drawn already: a paragraph's words, a list's items. */
  #drawPart(token: Token): void {
    if (token.type === "paragraph") this.#drawWords(token.raw);
    if (token.type === "list") this.#drawItems(token as Tokens.List);
  }

  #drawWords(raw: string): void {
    // A first line with a '|' may be a table's header: the next line says.
    if (this.#shown === 0 && raw.split("\n")[0].includes("|")) return;
    // Up to the last space: the word being written may still open a mark. A newline that
    // ends the text may end the paragraph, which is drawn whole.
    const text = raw.replace(/\n+$/, "");
    const cut = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\t"), text.lastIndexOf("\n")) +
      1;
    const segment = text.slice(this.#shown, cut);
    if (!segment.trim()) return;
    const tokens = Lexer.lexInline(this.#shown === 0 ? segment.trimStart() : segment);
    if (tokens.some((token) => token.type === "text" && OPEN_MARK.test(token.raw))) return;
    this.#emit(renderInline(tokens, this.#style()));
    this.#shown = cut;
  }

  #drawItems(list: Tokens.List): void {
    // Every item but the last is whole: the next has begun.
    const whole = list.items.length - 1;
    if (whole <= this.#itemsShown) return;
    if (this.#itemsShown === 0 && !this.#atLineStart()) this.#emit("\n");
    const read = wholeList(list.raw);
    const done = { ...read, items: read.items.slice(0, whole) };
    this.#emit(renderListItems(done, this.#style(), this.#itemsShown));
    this.#itemsShown = whole;
  }

  #emit(text: string): void {
    if (text) this.#write(text);
  }
}

/** The list `raw` is, with its words read. */
function wholeList(raw: string): Tokens.List {
  return Lexer.lex(raw).find((token) => token.type === "list") as Tokens.List;
}

/**
 * How many of `tokens` are whole blocks: all but the last, and the last too
 * once a blank line follows it (a list excepted: its next item may come
 * after one) or a heading or rule has its line ended. A trailing blank line
 * waits for what comes after it.
 */
function wholeBlocks(tokens: Token[]): number {
  let last = tokens.length - 1;
  if (last < 0) return 0;
  if (tokens[last].type === "space") {
    last--;
    if (last < 0) return 0;
    return tokens[last].type === "list" ? last : last + 1;
  }
  const { type, raw } = tokens[last];
  return (type === "heading" || type === "hr") && raw.endsWith("\n") ? last + 1 : last;
}
