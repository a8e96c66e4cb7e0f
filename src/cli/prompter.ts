/**
 * Questions on a plain terminal, or on piped stdin, one line per answer: for
 * `hob onboard`. Reads stdin itself (not through a stream) so that a secret can
 * be typed with the terminal's echo off. The end of input is an answer too:
 * `null`, never a hang.
 */

import { out } from "./output.ts";

/** Ctrl-C while a secret is typed (the terminal is raw then, so no SIGINT comes). */
export class Interrupted extends Error {
  override name = "Interrupted";
}

/** Reads answers from stdin; the questions go to stdout, where the conversation is. */
export class Prompter {
  #buffer = "";
  #ended = false;
  #skipNewline = false;
  readonly #decoder = new TextDecoder();
  readonly #input: typeof Deno.stdin;

  constructor(input: typeof Deno.stdin = Deno.stdin) {
    this.#input = input;
  }

  /** Asks `question` and returns the answer line, trimmed; `null` at the end of input. */
  async ask(question: string): Promise<string | null> {
    out(question);
    const line = await this.#line();
    return line === null ? null : line.trim();
  }

  /**
   * Asks for a secret: at a terminal, typed with echo off (a `*` shown per
   * character); from a pipe, the next line. Never printed back.
   */
  async secret(question: string): Promise<string | null> {
    if (!this.#input.isTerminal()) {
      out(question);
      return (await this.#line())?.trim() ?? null;
    }
    // Echo off before the question shows, so nothing typed after it is echoed.
    this.#input.setRaw(true);
    try {
      out(question);
      return await this.#typed();
    } finally {
      this.#input.setRaw(false);
      out("\n");
    }
  }

  /** Characters typed in raw mode until Enter; Ctrl-D on nothing ends the input. */
  async #typed(): Promise<string | null> {
    let value = "";
    while (true) {
      if (!this.#buffer && !(await this.#fill())) return value || null;
      const char = this.#buffer[0];
      this.#buffer = this.#buffer.slice(1);
      if (char === "\r" || char === "\n") return value.trim();
      if (char === "\x03") throw new Interrupted("interrupted");
      if (char === "\x04") return value ? value.trim() : null;
      if (char === "\x7f" || char === "\b") {
        if (value) out("\b \b");
        value = value.slice(0, -1);
      } else if (char >= " ") {
        value += char;
        out("*");
      }
    }
  }

  /** The next line without its ending; `null` when input ended before any of it. */
  async #line(): Promise<string | null> {
    while (true) {
      if (this.#skipNewline && this.#buffer.startsWith("\n")) this.#buffer = this.#buffer.slice(1);
      if (this.#buffer) this.#skipNewline = false;
      const end = this.#buffer.search(/[\r\n]/);
      if (end >= 0) {
        const line = this.#buffer.slice(0, end);
        this.#skipNewline = this.#buffer[end] === "\r";
        this.#buffer = this.#buffer.slice(end + 1);
        return line;
      }
      if (!(await this.#fill())) {
        const rest = this.#buffer;
        this.#buffer = "";
        return rest ? rest : null;
      }
    }
  }

  /** Reads what stdin has; false at its end. */
  async #fill(): Promise<boolean> {
    if (this.#ended) return false;
    const chunk = new Uint8Array(4096);
    const read = await this.#input.read(chunk);
    if (read === null) {
      this.#ended = true;
      return false;
    }
    this.#buffer += this.#decoder.decode(chunk.subarray(0, read), { stream: true });
    return true;
  }
}

/**
 * The owner's yes to `question` when stdin is a terminal; no answer (a pipe,
 * the end of input) is no.
 *
 * @example
 * ```ts
 * if (await confirmed("Approve these 2 tool(s)? [y/N] ")) approve();
 * ```
 */
export async function confirmed(question: string): Promise<boolean> {
  if (!Deno.stdin.isTerminal()) return false;
  const answer = await new Prompter().ask(question);
  return answer !== null && /^y(es)?$/i.test(answer);
}
