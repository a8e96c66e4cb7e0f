/**
 * Markdown for a terminal, from marked's tokens: bold, italic and headings as
 * ANSI styles (or plain words without colour), code kept as written, lists
 * with bullets, tables as aligned columns that fit the width, links as
 * "text (url)". What it prints is the words people read, never the marks.
 * It knows no stream and no turn (markdown_stream.ts feeds it blocks).
 *
 * Written over marked's lexer, which hob has already, rather than
 * marked-terminal: that one brings 44 packages (~8 MB: highlight.js, yargs,
 * cli-table3) and does not fit its tables to the terminal.
 */

import type { Token, Tokens } from "marked";

/** How to draw: with ANSI styles or without, and how many columns there are. */
export interface TerminalStyle {
  colour: boolean;
  /** Columns of the terminal; tables and list items are fitted to it. */
  width: number;
}

/** The narrowest a table's column is squeezed to before its words are broken. */
const MIN_COLUMN = 6;

/** A horizontal rule's length at most, so it does not run across a wide terminal. */
const MAX_RULE = 60;

/** The bullets of unordered lists, by depth. */
const BULLETS = ["•", "◦", "▪"];

/** SGR pairs: what opens a style and what closes it. */
const SGR = {
  bold: ["\x1b[1m", "\x1b[22m"],
  dim: ["\x1b[2m", "\x1b[22m"],
  italic: ["\x1b[3m", "\x1b[23m"],
  underline: ["\x1b[4m", "\x1b[24m"],
  strike: ["\x1b[9m", "\x1b[29m"],
  cyan: ["\x1b[36m", "\x1b[39m"],
} as const;

type Sgr = keyof typeof SGR;

function styled(text: string, sgr: Sgr, style: TerminalStyle): string {
  return style.colour && text ? `${SGR[sgr][0]}${text}${SGR[sgr][1]}` : text;
}

/**
 * One block token (a paragraph, heading, list, table, code, quote, rule) as
 * terminal lines, each ending in a newline; `space` (a blank line) is "\n".
 *
 * @example
 * ```ts
 * const [table] = Lexer.lex("| a | b |\n|---|--:|\n| x | 10 |\n");
 * renderBlock(table, { colour: false, width: 80 }); // "a │  b\n──┼───\nx │ 10\n"
 * ```
 */
export function renderBlock(token: Token, style: TerminalStyle): string {
  switch (token.type) {
    case "space":
      return "\n";
    case "paragraph":
      return `${renderInline((token as Tokens.Paragraph).tokens, style)}\n`;
    case "heading":
      return `${heading(token as Tokens.Heading, style)}\n`;
    case "code":
      return codeBlock(safe((token as Tokens.Code).text));
    case "blockquote":
      return quote(token as Tokens.Blockquote, style);
    case "list":
      return renderListItems(token as Tokens.List, style);
    case "table":
      return table(token as Tokens.Table, style);
    case "hr":
      return `${styled("─".repeat(Math.min(style.width, MAX_RULE)), "dim", style)}\n`;
    case "html":
      return ensureNewline(safe((token as Tokens.HTML).text));
    case "def":
      return "";
    default: {
      const { tokens, text, raw } = token as { tokens?: Token[]; text?: string; raw: string };
      return ensureNewline(tokens ? renderInline(tokens, style) : safe(text ?? raw));
    }
  }
}

/**
 * Inline tokens (text, strong, em, code spans, links…) as one styled string.
 *
 * @example
 * ```ts
 * renderInline(Lexer.lexInline("a **b**"), { colour: false, width: 80 }); // "a b"
 * ```
 */
export function renderInline(tokens: Token[] | undefined, style: TerminalStyle): string {
  return (tokens ?? []).map((token) => inline(token, style)).join("");
}

function inline(token: Token, style: TerminalStyle): string {
  const inner = (token as { tokens?: Token[] }).tokens;
  switch (token.type) {
    case "strong":
      return styled(renderInline(inner, style), "bold", style);
    case "em":
      return styled(renderInline(inner, style), "italic", style);
    case "del":
      return style.colour
        ? styled(renderInline(inner, style), "strike", style)
        : `~~${renderInline(inner, style)}~~`;
    case "codespan": {
      const code = safe((token as Tokens.Codespan).text);
      // Without colour the backticks are what says it is code.
      return style.colour ? styled(code, "cyan", style) : `\`${code}\``;
    }
    case "link":
      return link(token as Tokens.Link, style);
    case "image": {
      const { text, href } = token as Tokens.Image;
      return safe(`[image${text ? `: ${text}` : ""}] (${href})`);
    }
    case "br":
      return "\n";
    case "checkbox":
      return (token as Tokens.Checkbox).checked ? "[x] " : "[ ] ";
    case "escape":
    case "html":
      return safe((token as { text: string }).text);
    default:
      return inner
        ? renderInline(inner, style)
        : safe((token as { text?: string }).text ?? token.raw);
  }
}

/** A link's words, and where it goes when that is not the words themselves. */
function link(token: Tokens.Link, style: TerminalStyle): string {
  const text = renderInline(token.tokens, style);
  const shown = visible(text);
  const bare = token.href.replace(/^mailto:/, "");
  if (shown === token.href || shown === bare) return styled(text, "underline", style);
  return `${styled(text, "underline", style)} ${styled(`(${safe(token.href)})`, "dim", style)}`;
}

function heading(token: Tokens.Heading, style: TerminalStyle): string {
  const text = renderInline(token.tokens, style);
  if (!style.colour) return text;
  return token.depth === 1
    ? `${SGR.bold[0]}${SGR.underline[0]}${text}${SGR.underline[1]}${SGR.bold[1]}`
    : styled(text, "bold", style);
}

/** A code block as written, indented two spaces so it stands apart; never styled. */
function codeBlock(text: string): string {
  return text.split("\n").map((line) => line ? `  ${line}\n` : "\n").join("");
}

function quote(token: Tokens.Blockquote, style: TerminalStyle): string {
  const bar = styled("│", "dim", style);
  const inside = { ...style, width: Math.max(style.width - 2, 20) };
  // Wrapped here, so each line the terminal shows has its bar.
  const inner = token.tokens.map((each) =>
    each.type === "paragraph"
      ? `${wrap(renderInline((each as Tokens.Paragraph).tokens, inside), inside.width)}\n`
      : renderBlock(each, inside)
  ).join("");
  return prefixLines(inner.replace(/\n+$/, "\n"), `${bar} `, `${bar} `);
}

/** Block tokens one after another, as {@linkcode renderBlock} draws each. */
export function renderBlocks(tokens: Token[], style: TerminalStyle): string {
  return tokens.map((token) => renderBlock(token, style)).join("");
}

/**
 * A list's items from `from` on: a bullet (or its number) and the item's
 * text wrapped under it, nested lists indented; a blank line between the
 * items of a loose list.
 *
 * @example
 * ```ts
 * renderListItems(Lexer.lex("- a\n- b\n")[0] as Tokens.List, { colour: false, width: 80 }); // "• a\n• b\n"
 * ```
 */
export function renderListItems(
  list: Tokens.List,
  style: TerminalStyle,
  from = 0,
  depth = 0,
): string {
  const start = typeof list.start === "number" ? list.start : 1;
  const last = start + list.items.length - 1;
  const markWidth = list.ordered ? `${last}.`.length : 1;
  return list.items.slice(from).map((item, index) => {
    const mark = list.ordered
      ? `${start + from + index}.`.padStart(markWidth)
      : BULLETS[Math.min(depth, BULLETS.length - 1)];
    const indent = " ".repeat(markWidth + 1);
    const body = listItemBody(item, { ...style, width: style.width - indent.length }, depth);
    const gap = list.loose && from + index > 0 ? "\n" : "";
    return gap + prefixLines(body || "\n", `${mark} `, indent);
  }).join("");
}

function listItemBody(item: Tokens.ListItem, style: TerminalStyle, depth: number): string {
  return item.tokens.map((token) => {
    if (token.type === "list") return renderListItems(token as Tokens.List, style, 0, depth + 1);
    if (token.type === "checkbox") return inline(token, style);
    if (token.type === "text") return `${wrap(inline(token, style), style.width)}\n`;
    if (token.type === "paragraph") {
      return `${wrap(renderInline((token as Tokens.Paragraph).tokens, style), style.width)}\n`;
    }
    return renderBlock(token, style);
  }).join("").replace(/\n{3,}/g, "\n\n");
}

/** Every line of `text` after the first `first` and the rest `rest`; blank lines stay blank. */
function prefixLines(text: string, first: string, rest: string): string {
  const lines = text.replace(/\n$/, "").split("\n");
  return lines.map((line, index) =>
    `${index === 0 ? first : line ? rest : rest.trimEnd()}${line}\n`
  ).join("");
}

/**
 * A table as aligned columns separated by "│", its header bold and ruled
 * off; when it is wider than the terminal its widest columns are narrowed
 * and their cells wrapped.
 */
function table(token: Tokens.Table, style: TerminalStyle): string {
  const cells = (row: Tokens.TableCell[]) =>
    row.map((cell) => renderInline(cell.tokens, style).replace(/\n/g, " "));
  const header = cells(token.header).map((text) => styled(text, "bold", style));
  const rows = token.rows.map(cells);
  const widths = columnWidths([header, ...rows], style.width);
  const separator = styled("│", "dim", style);
  const line = (row: string[]) => {
    const wrapped = row.map((cell, column) => wrap(cell, widths[column]).split("\n"));
    const height = Math.max(...wrapped.map((lines) => lines.length));
    return Array.from(
      { length: height },
      (_, at) =>
        wrapped.map((lines, column) =>
          pad(lines[at] ?? "", widths[column], token.align[column] ?? null)
        ).join(` ${separator} `).trimEnd() + "\n",
    ).join("");
  };
  const rule = styled(widths.map((width) => "─".repeat(width)).join("─┼─"), "dim", style);
  return `${line(header)}${rule}\n${rows.map(line).join("")}`;
}

/** Each column's width: as wide as its widest cell, the widest narrowed until the table fits. */
function columnWidths(rows: string[][], width: number): number[] {
  const count = Math.max(...rows.map((row) => row.length));
  const widths = Array.from(
    { length: count },
    (_, column) => Math.max(1, ...rows.map((row) => visibleWidth(row[column] ?? ""))),
  );
  const room = width - 3 * (count - 1);
  let total = widths.reduce((sum, each) => sum + each, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= MIN_COLUMN) break;
    widths[widest]--;
    total--;
  }
  return widths;
}

function pad(text: string, width: number, align: "left" | "right" | "center" | null): string {
  const space = Math.max(0, width - visibleWidth(text));
  if (align === "right") return " ".repeat(space) + text;
  if (align === "center") {
    const left = Math.floor(space / 2);
    return " ".repeat(left) + text + " ".repeat(space - left);
  }
  return text + " ".repeat(space);
}

/** One of the escape sequences this file writes (SGR), or any CSI sequence. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** `text` without its ANSI styles. */
function visible(text: string): string {
  return text.replace(ANSI, "");
}

/** Characters a terminal draws two columns wide: CJK, Hangul, full-width forms, emoji. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;

/** Characters a terminal draws in no column: combining marks, joiners, variation selectors. */
const ZERO = /[\p{Mn}\p{Me}\u200b-\u200f\ufe00-\ufe0f]/u;

/**
 * How many columns `text` takes on a terminal: styles take none, wide
 * characters two.
 *
 * @example
 * ```ts
 * visibleWidth("\x1b[1mhé\x1b[22m"); // 2
 * ```
 */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of visible(text)) width += ZERO.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}

/**
 * `text` broken into lines of at most `width` columns at spaces (a word
 * longer than a line is cut), its styles closed at each break and opened
 * again on the next line.
 */
export function wrap(text: string, width: number): string {
  if (width < 1) return text;
  return text.split("\n").map((line) => wrapLine(line, width)).join("\n");
}

function wrapLine(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  const lines: string[] = [];
  let current = "";
  let used = 0;
  let open: string[] = [];
  const breakLine = () => {
    lines.push(current.trimEnd() + (open.length ? "\x1b[0m" : ""));
    current = open.join("");
    used = 0;
  };
  // Words with the spaces after them; styles travel with the word they touch.
  for (const word of line.match(/\S+\s*|\s+/g) ?? []) {
    const wordWidth = visibleWidth(word.trimEnd());
    if (used > 0 && used + wordWidth > width) breakLine();
    // deno-lint-ignore no-control-regex
    for (const piece of word.match(/\x1b\[[0-9;]*[A-Za-z]|[\s\S]/gu) ?? []) {
      if (piece.startsWith("\x1b[")) {
        open = track(open, piece);
        current += piece;
        continue;
      }
      const size = visibleWidth(piece);
      if (used + size > width && !/\s/.test(piece)) breakLine();
      current += piece;
      used += size;
    }
  }
  lines.push(current.trimEnd());
  return lines.join("\n");
}

/** The styles open after `code`: an opener is added, a closer removes what it closes. */
function track(open: string[], code: string): string[] {
  const closes: Record<string, string[]> = {
    "\x1b[22m": [SGR.bold[0], SGR.dim[0]],
    "\x1b[23m": [SGR.italic[0]],
    "\x1b[24m": [SGR.underline[0]],
    "\x1b[29m": [SGR.strike[0]],
    "\x1b[39m": [SGR.cyan[0]],
    "\x1b[0m": open,
  };
  const closed = closes[code];
  return closed ? open.filter((each) => !closed.includes(each)) : [...open, code];
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * Characters a model's text may not send to a terminal: C0 controls but tab
 * and newline (ESC starts a sequence that could rewrite the screen), DEL, C1.
 */
// deno-lint-ignore no-control-regex
export const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Text from the reply as it may be shown: entities as characters, no control characters. */
function safe(text: string): string {
  return decodeEntities(text).replace(CONTROL, "");
}

/** The HTML entities Markdown text may hold, as the characters they stand for. */
function decodeEntities(text: string): string {
  const named: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: "\u00a0",
  };
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[name.toLowerCase()] ?? whole;
  });
}
