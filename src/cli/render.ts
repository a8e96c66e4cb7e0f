/**
 * Showing a turn on a terminal as it streams: the reply's text on stdout, tool
 * activity and notices dimmed on stderr, errors in red on stderr. Outside text
 * in a tool's result shows after a marker naming its source, never as the
 * model's label. At a terminal the reply's Markdown is drawn (bold as bold,
 * tables as columns: markdown_stream.ts), in colour unless NO_COLOR is set;
 * piped, the reply is written as the model wrote it, for scripts to read.
 */

import type { AgentEvent, TurnStatus } from "../core/types.ts";
import { plainText } from "../core/untrusted.ts";
import type { MarkdownStream } from "./markdown_stream.ts";
import { dim, err, out, red } from "./output.ts";

/** How much of a tool's arguments and result a terminal line shows. */
const PREVIEW_CHARS = 120;

/** What a rendered turn ended with. */
export interface RenderedTurn {
  conversation_id: string;
  status: TurnStatus;
  failed: boolean;
}

/** Options for {@linkcode renderTurn}. */
export interface RenderOptions {
  /** The line holds a prompt already ("hob › "): what is not text starts on the next. */
  afterPrompt?: boolean;
  /**
   * Asks the user about a tool call while the turn waits (`signal` aborts when
   * it was decided elsewhere; true when answered here); without it, how to
   * decide elsewhere is printed.
   */
  onApproval?: (
    event: Extract<AgentEvent, { type: "approval_required" }>,
    signal: AbortSignal,
  ) => Promise<boolean>;
}

/**
 * Prints a turn's events as they come.
 *
 * @example
 * ```ts
 * const { status } = await renderTurn(await hob.app.conversations.turn({ message: "hi" }));
 * ```
 */
export async function renderTurn(
  events: AsyncIterable<AgentEvent>,
  options: RenderOptions = {},
): Promise<RenderedTurn> {
  const result: RenderedTurn = {
    conversation_id: "",
    status: "complete",
    failed: false,
  };
  // After a prompt such as "hob › ", tool lines start on a line of their own.
  let atLineStart = !options.afterPrompt;
  const write = (text: string) => {
    out(text);
    atLineStart = text.endsWith("\n");
  };
  const markdown = await replyMarkdown(write, () => atLineStart);
  const newline = () => {
    // The reply's text so far is drawn whole first: what comes next does not continue it.
    markdown?.end();
    if (!atLineStart) out("\n");
    atLineStart = true;
  };
  const prompts: Prompts = new Map();
  for await (const event of events) {
    switch (event.type) {
      case "start":
        result.conversation_id = event.conversation_id;
        break;
      case "text":
        if (markdown) markdown.push(event.text);
        else write(event.text);
        break;
      case "tool_call":
        newline();
        err(dim(`⚙ ${event.name} ${preview(event.arguments)}\n`));
        break;
      case "tool_result":
        err(
          dim(
            `  ${event.is_error ? "✗" : "↳"} ${
              preview(plainText(event.content))
            } (${event.duration_ms} ms)\n`,
          ),
        );
        break;
      case "approval_required":
        newline();
        askApproval(event, prompts, options.onApproval);
        break;
      case "approval_resolved": {
        const prompt = prompts.get(event.approval_id);
        prompts.delete(event.approval_id);
        prompt?.controller.abort();
        if (prompt && !await prompt.answered) err(`\n  ${event.status} elsewhere\n`);
        if (event.status !== "approved") err(dim(`  ${event.status}: not run\n`));
        break;
      }
      case "notice":
        // A taint the conversation had already was told on the turn that first read it.
        if (event.repeat) break;
        newline();
        err(dim(`note: ${event.message}\n`));
        break;
      case "error":
        newline();
        err(`${red("error:")} ${event.message}\n`);
        result.failed = true;
        break;
      case "done":
        newline();
        result.status = event.status;
        if (event.status === "interrupted") {
          err(dim("(interrupted — the partial reply was saved)\n"));
        }
        break;
    }
  }
  // A question the turn no longer waits for (it was stopped) is not asked on.
  for (const prompt of prompts.values()) prompt.controller.abort();
  markdown?.end();
  return result;
}

/**
 * Where the reply's Markdown is drawn, when stdout is a terminal: in colour
 * unless NO_COLOR is set, fitted to the terminal's width. Null when stdout is
 * a pipe or a file: the text goes as written.
 */
async function replyMarkdown(
  write: (text: string) => void,
  atLineStart: () => boolean,
): Promise<MarkdownStream | null> {
  if (!Deno.stdout.isTerminal()) return null;
  const { MarkdownStream } = await import("./markdown_stream.ts");
  const colour = !Deno.env.get("NO_COLOR");
  return new MarkdownStream(write, () => ({ colour, width: columns() }), atLineStart);
}

/** The terminal's width, read when a block is drawn (it may have been resized). */
function columns(): number {
  try {
    return Deno.consoleSize().columns || 80;
  } catch {
    return 80;
  }
}

/** A question the turn waits on, by its approval id, and whether it was answered here. */
type Prompts = Map<string, { controller: AbortController; answered: Promise<boolean> }>;

/** Says what a tool call waits for, and asks about it with `onApproval` when there is one. */
function askApproval(
  event: Extract<AgentEvent, { type: "approval_required" }>,
  prompts: Prompts,
  onApproval: RenderOptions["onApproval"],
): void {
  err(`⏸ ${event.name} wants to run with ${preview(event.arguments)}\n`);
  if (event.reason) err(dim(`  why it asks: ${event.reason}\n`));
  if (!onApproval) {
    err(dim(`  decide with: hob approvals approve ${event.approval_id}  (or deny)\n`));
    return;
  }
  // Asked beside the turn, not in its way: a decision made elsewhere ends the question.
  const controller = new AbortController();
  prompts.set(event.approval_id, {
    controller,
    answered: onApproval(event, controller.signal),
  });
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
