/**
 * Asks hob one question and streams the answer to stdout; tool activity goes to stderr.
 *
 *   deno run --allow-net=127.0.0.1:8484 --allow-import=127.0.0.1:8484 examples/ask.ts \
 *     --token "$(cat ~/.hob/token)" "What time is it in Tokyo?"
 *
 * Without --token it reads HOB_TOKEN, if also run with --allow-env=HOB_TOKEN.
 * `--conversation ID` continues a conversation.
 */

// A script imports hob's client from hob itself, by its URL.
// deno-lint-ignore no-import-prefix
import { connect, HobError, takeToken } from "http://127.0.0.1:8484/client.ts";

const { token, args } = takeToken(Deno.args);
let conversation: string | undefined;
const at = args.indexOf("--conversation");
if (at >= 0) conversation = args.splice(at, 2)[1];
const message = args.join(" ").trim();
if (!message) {
  console.error("usage: ask.ts [--token TOKEN] [--conversation ID] MESSAGE");
  Deno.exit(2);
}

const hob = connect({ token });
const encoder = new TextEncoder();
const write = (text: string) => Deno.stdout.write(encoder.encode(text));
let failed = false;
try {
  for await (const event of hob.chatStream(message, { conversation_id: conversation })) {
    switch (event.type) {
      case "text":
        await write(event.text);
        break;
      case "tool_call":
        console.error(`[${event.name} ${event.arguments}]`);
        break;
      case "tool_result":
        console.error(
          `[${event.name} ${event.is_error ? "failed" : "done"}, ${event.duration_ms} ms]`,
        );
        break;
      case "approval_required":
        console.error(`[${event.name} waits for you: hob approvals approve ${event.approval_id}]`);
        break;
      case "error":
        failed = true;
        console.error(`error: ${event.message}`);
        break;
      case "done":
        await write("\n");
        console.error(`(conversation ${event.conversation_id}, ${event.status})`);
        failed ||= event.status === "error";
        break;
    }
  }
} catch (error) {
  if (!(error instanceof HobError)) throw error;
  console.error(`ask: ${error.message}`);
  Deno.exit(1);
}
Deno.exit(failed ? 1 : 0);
