/**
 * `hob chat`: a conversation in the terminal, streamed, with a few slash
 * commands. A translator: each line is the app's turn action
 * (src/app/conversations.ts), `/model` its model check and setModel; their
 * refusals are one line each.
 */

import { ActionError } from "../app/errors.ts";
import type { ConversationActions } from "../app/conversations.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { promptApprovals } from "./approval_prompt.ts";
import { LineQueue, stdinLines } from "./stdin_lines.ts";
import { openOrCreateHome } from "./open.ts";
import { dim, err, out, red } from "./output.ts";
import { renderTurn } from "./render.ts";

const HELP_LINE =
  "Commands: /new (new conversation), /model [NAME] (show or switch model), /exit. Ctrl-C stops a reply.";

export const chat: Command = {
  name: "chat",
  summary: "Chat in the terminal",
  help: `Usage: hob chat [--model M] [--conversation ID] [--home DIR]

A conversation in the terminal with streamed replies. Type a message and press
Enter. Ctrl-C stops a reply in progress (it is saved); Ctrl-C or Ctrl-D at the
prompt leaves.

In the chat:
  /new           start a new conversation
  /model         show the model in use
  /model NAME    switch model, as <provider>/<model>
  /exit          leave (also /quit)
  /help          list these commands

Options:
  --model M            model to start with (default: the configured model)
  --conversation ID    continue this conversation
  --home DIR           hob home (default: $HOB_HOME or ~/.hob)
  -h, --help           show this help`,
  options: {
    model: { type: "string", short: "m" },
    conversation: { type: "string", short: "c" },
  },
  positionals: [0, 0],
  async run(parsed) {
    const hob = await openOrCreateHome(parsed);
    const session: Session = {
      conversations: hob.app.conversations,
      model: (parsed.values.model as string | undefined) ?? null,
      conversationId: (parsed.values.conversation as string | undefined) ?? null,
      defaultModel: hob.config.model,
    };
    try {
      checkStart(session);
    } catch (error) {
      await hob.close();
      throw error;
    }
    const interactive = Deno.stdin.isTerminal();
    let turn: AbortController | null = null;
    let leave: (() => void) | null = null;
    const left = new Promise<void>((resolve) => leave = resolve);
    const onInterrupt = () => {
      if (turn) turn.abort();
      else leave?.();
    };
    Deno.addSignalListener("SIGINT", onInterrupt);
    if (interactive) err(dim(`hob chat · ${currentModel(session)} · ${HELP_LINE}\n`));

    const lines = new LineQueue(stdinLines());
    try {
      while (true) {
        if (interactive) out("you › ");
        const next = await Promise.race([lines.next(), left.then(() => null)]);
        if (!next || next.done) break;
        const line = next.value.trim();
        if (!line) continue;
        if (line.startsWith("/")) {
          if (slashCommand(session, line) === "exit") break;
          continue;
        }
        turn = new AbortController();
        if (interactive) out("hob › ");
        await chatTurn(session, line, {
          signal: turn.signal,
          afterPrompt: interactive,
          onApproval: promptApprovals(hob.app.approvals, lines),
        });
        turn = null;
      }
    } finally {
      Deno.removeSignalListener("SIGINT", onInterrupt);
      await hob.close();
    }
    if (interactive) out("\n");
    return EXIT.ok;
  },
};

/** What {@linkcode renderTurn} takes beside the events. */
type RenderOptions = NonNullable<Parameters<typeof renderTurn>[1]>;

/** What one chat remembers between lines: the model chosen and the conversation going on. */
interface Session {
  conversations: ConversationActions;
  model: string | null;
  conversationId: string | null;
  defaultModel: string;
}

/** The flags checked before the first line: the model, then the conversation. */
function checkStart(session: Session): void {
  const { conversations, model, conversationId } = session;
  try {
    if (model) conversations.checkModel({ model });
    if (conversationId) conversations.get({ id: conversationId });
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    // A model id hob cannot use is a bad value, as `hob ask --model` says.
    if (error.field === "model") {
      throw new UsageError(`hob chat: --model: ${error.issue?.message ?? error.message}`);
    }
    throw new CommandError(error.message);
  }
}

/** The model the next turn uses: the one chosen, the conversation's, or the configured one. */
function currentModel(session: Session): string {
  if (session.model) return session.model;
  if (!session.conversationId) return session.defaultModel;
  try {
    return session.conversations.get({ id: session.conversationId }).model ??
      session.defaultModel;
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    return session.defaultModel;
  }
}

/** Runs a `/command`; says when the chat should end. */
function slashCommand(session: Session, line: string): "exit" | null {
  const [name, ...rest] = line.split(/\s+/);
  const arg = rest.join(" ");
  if (name === "/exit" || name === "/quit") return "exit";
  if (name === "/new") {
    session.conversationId = null;
    out(dim("Started a new conversation.\n"));
  } else if (name === "/model") {
    if (arg) switchModel(session, arg);
    else out(`${currentModel(session)}\n`);
  } else if (name === "/help") {
    out(`${HELP_LINE}\n`);
  } else {
    err(`${red("error:")} unknown command ${name}. ${HELP_LINE}\n`);
  }
  return null;
}

/** `/model NAME`: the conversation's model from now on (or the next one's), when hob can use it. */
function switchModel(session: Session, model: string): void {
  const { conversations, conversationId } = session;
  try {
    if (conversationId) conversations.setModel({ id: conversationId, model });
    else conversations.checkModel({ model });
    session.model = model;
    out(dim(`Model is now ${model}.\n`));
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    err(`${red("error:")} ${error.message}\n`);
  }
}

/** One turn, streamed; a refusal (a conversation deleted meanwhile…) is a line, and the chat goes on. */
async function chatTurn(
  session: Session,
  message: string,
  options: RenderOptions & { signal: AbortSignal },
): Promise<void> {
  const { signal, ...render } = options;
  try {
    const events = await session.conversations.turn({
      message,
      model: session.model ?? undefined,
      conversation_id: session.conversationId ?? undefined,
    }, { signal });
    const result = await renderTurn(events, render);
    session.conversationId = result.conversation_id || session.conversationId;
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    err(`${red("error:")} ${error.message}\n`);
  }
}
