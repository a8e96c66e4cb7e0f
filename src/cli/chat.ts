/** `hob chat`: a conversation in the terminal, streamed, with a few slash commands. */

import { ConversationNotFoundError } from "../core/agent.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { promptApprovals } from "./approval_prompt.ts";
import { stdinLines } from "./lines.ts";
import { openHome } from "./open.ts";
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
    const runtime = await openHome(parsed);
    const interactive = Deno.stdin.isTerminal();
    let model = (parsed.values.model as string | undefined) ?? null;
    let conversationId = (parsed.values.conversation as string | undefined) ??
      null;
    if (model) {
      const problem = runtime.llm.checkModel(model);
      if (problem) {
        await runtime.close();
        // A model id hob cannot use is a bad value, as `hob ask --model` says.
        throw new UsageError(`hob chat: --model: ${problem}`);
      }
    }
    if (conversationId && !runtime.store.getConversation(conversationId)) {
      await runtime.close();
      throw new CommandError(
        new ConversationNotFoundError(conversationId).message,
      );
    }

    let turn: AbortController | null = null;
    let leave: (() => void) | null = null;
    const left = new Promise<void>((resolve) => leave = resolve);
    const onInterrupt = () => {
      if (turn) turn.abort();
      else leave?.();
    };
    Deno.addSignalListener("SIGINT", onInterrupt);

    const currentModel = () =>
      model ??
        (conversationId ? runtime.store.getConversation(conversationId)?.model : null) ??
        runtime.config.model;
    if (interactive) err(dim(`hob chat · ${currentModel()} · ${HELP_LINE}\n`));

    const lines = stdinLines();
    try {
      while (true) {
        if (interactive) out("you › ");
        const next = await Promise.race([lines.next(), left.then(() => null)]);
        if (!next || next.done) break;
        const line = next.value.trim();
        if (!line) continue;
        if (line.startsWith("/")) {
          const [name, ...rest] = line.split(/\s+/);
          const arg = rest.join(" ");
          if (name === "/exit" || name === "/quit") break;
          if (name === "/new") {
            conversationId = null;
            out(dim("Started a new conversation.\n"));
          } else if (name === "/model") {
            if (!arg) {
              out(`${currentModel()}\n`);
            } else {
              const problem = runtime.llm.checkModel(arg);
              if (problem) {
                err(`${red("error:")} ${problem}\n`);
              } else {
                model = arg;
                if (conversationId) {
                  runtime.store.setConversationModel(conversationId, arg);
                }
                out(dim(`Model is now ${arg}.\n`));
              }
            }
          } else if (name === "/help") {
            out(`${HELP_LINE}\n`);
          } else {
            err(`${red("error:")} unknown command ${name}. ${HELP_LINE}\n`);
          }
          continue;
        }
        turn = new AbortController();
        if (interactive) out("hob › ");
        const result = await renderTurn(
          runtime.turn({
            message: line,
            model: model ?? undefined,
            conversation_id: conversationId ?? undefined,
            signal: turn.signal,
          }),
          {
            afterPrompt: interactive,
            onApproval: promptApprovals(runtime.toolbox.approvals, lines),
          },
        );
        turn = null;
        conversationId = result.conversation_id || conversationId;
      }
    } finally {
      Deno.removeSignalListener("SIGINT", onInterrupt);
      await runtime.close();
    }
    if (interactive) out("\n");
    return EXIT.ok;
  },
};
