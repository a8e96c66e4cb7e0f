/**
 * `hob channels`: the channels of hob.yaml and how each is doing, the
 * strangers who wrote without being allowed (with the ids `allow_from`
 * takes), and a test message to yourself. A translator over the app's
 * channel actions (the hub's state and test message among them); a
 * running `hob serve` is asked for the live state.
 */

import type { ChannelState, ForgetStrangerInput } from "../app/channels.ts";
import { ActionError } from "../app/errors.ts";
import { showTime } from "../app/times.ts";
import type { Stranger } from "../store/channels.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { existingHome, openHome } from "./open.ts";
import { runningServer, seenBy } from "./running.ts";
import { dim, green, out, outJson, red } from "./output.ts";

const ACTIONS = ["list", "status", "pending", "forget", "test"];

export const channels: Command = {
  name: "channels",
  summary: "Channels (Telegram…): list, pending strangers, forget, test",
  help: `Usage: hob channels list|status [--json] [--home DIR]
       hob channels pending [--json] [--home DIR]
       hob channels forget CHANNEL SENDER_ID [--home DIR]
       hob channels test CHANNEL [--home DIR]

list, status
         the channels of hob.yaml: connected or not, when they last heard
         and spoke, their last error (live when 'hob serve' runs)
pending  people who wrote to hob without being in allow_from: never
         answered, listed with the id to add to allow_from (or guests)
forget   drops a stranger from that list
test     sends a test message to you (the first id of allow_from)

Options:
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { json: { type: "boolean" } },
  positionals: [1, 3],
  async run(parsed) {
    const [named, ...rest] = parsed.positionals;
    // `status` is `list`: the state of each channel is what a listing shows.
    const action = named === "status" ? "list" : named;
    if (!ACTIONS.includes(named)) {
      throw new UsageError(`hob channels: unknown action '${named}' — use ${ACTIONS.join(", ")}`);
    }
    const wanted = { list: 0, pending: 0, forget: 2, test: 1 }[action]!;
    if (rest.length !== wanted) {
      throw new UsageError(
        wanted === 0
          ? `hob channels ${action}: unexpected argument '${rest[0]}'`
          : `hob channels ${action}: needs ${action === "test" ? "CHANNEL" : "CHANNEL SENDER_ID"}`,
      );
    }
    const json = Boolean(parsed.values.json);
    // The live state, and the connection to send with, are the running server's.
    const server = action === "list" || action === "test"
      ? await runningServer(await existingHome(parsed))
      : undefined;
    if (action === "list") {
      const status = await server?.get<{ channels: ChannelState[] }>("/api/channels");
      if (status) {
        listChannels(status.channels, json);
        if (!json) out(dim(seenBy(server!)));
        return EXIT.ok;
      }
    }
    if (action === "test") {
      const sent = await server?.post(`/api/channels/${encodeURIComponent(rest[0])}/test`);
      if (sent && !sent.ok) throw new CommandError(sent.message);
      if (sent) {
        out(`Sent a test message to you on ${rest[0]}.\n${dim(seenBy(server!))}`);
        return EXIT.ok;
      }
    }
    const hob = await openHome(parsed);
    try {
      switch (action) {
        case "list":
          listChannels(hob.app.channels.states(), json);
          if (!json && hob.app.channels.names().length) {
            out(dim("(hob serve is not running: it starts them)\n"));
          }
          return EXIT.ok;
        case "pending":
          listStrangers(hob.app.channels.strangers(), json);
          return EXIT.ok;
        case "forget":
          hob.app.channels.forgetStranger({
            // The action checks it is a channel's name.
            channel: rest[0] as ForgetStrangerInput["channel"],
            sender_id: rest[1],
          });
          out(`Forgot ${rest[1]} on ${rest[0]}.\n`);
          return EXIT.ok;
        default:
          await hob.app.channels.sendTest(rest[0]);
          out(`Sent a test message to you on ${rest[0]}.\n`);
          return EXIT.ok;
      }
    } catch (error) {
      if (error instanceof ActionError) throw new CommandError(error.message);
      throw error;
    } finally {
      await hob.close();
    }
  },
};

function listChannels(states: ChannelState[], json: boolean): void {
  if (json) return outJson({ channels: states });
  if (states.length === 0) {
    out("No channels. Set one up under 'channels:' in hob.yaml (see docs/channels.md).\n");
    return;
  }
  const at = (iso: string | null) => iso ? showTime(iso) : "never";
  for (const channel of states) {
    const state = channel.state === "connected"
      ? green(channel.state)
      : channel.state === "retrying"
      ? red(channel.state)
      : channel.state;
    out(`${channel.name.padEnd(9)} ${state}${channel.account ? ` as ${channel.account}` : ""}\n`);
    out(
      dim(
        `          heard ${at(channel.last_inbound)} · spoke ${
          at(channel.last_outbound)
        } · ${channel.restarts} restart(s) · ${channel.ignored} ignored\n`,
      ),
    );
    if (channel.last_error) {
      out(red(`          last error ${at(channel.last_error_at)}: ${channel.last_error}\n`));
    }
  }
}

function listStrangers(strangers: Stranger[], json: boolean): void {
  if (json) return outJson({ strangers });
  if (strangers.length === 0) {
    out("Nobody unknown has written to hob.\n");
    return;
  }
  for (const stranger of strangers) {
    out(
      `${stranger.channel.padEnd(9)} ${
        stranger.sender_id.padEnd(14)
      } ${stranger.name} · ${stranger.messages} message(s), last ${showTime(stranger.last_seen)}\n`,
    );
    // Their words, not hob's: shown as a quote, on one line.
    out(dim(`          “${stranger.excerpt.replace(/\s+/g, " ").slice(0, 100)}”\n`));
  }
  out(dim("Add an id to allow_from (you) or guests (others) in hob.yaml to answer them.\n"));
}
