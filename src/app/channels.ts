/**
 * The channel actions — the conversation a chat on a channel is, a new one
 * on `/new`, the strangers who wrote without being allowed — each defined
 * once: the channels' hub (src/channels), REST and `hob channels` call
 * these. It knows the conversation and channel stores, nothing of any
 * platform or wire format.
 */

import { z } from "zod";
import type { Conversation } from "../core/types.ts";
import type { SqliteChannels, Stranger } from "../store/channels.ts";
import type { SqliteConversationStore } from "../store/conversations.ts";
import { CHANNEL_NAMES, type ChannelName } from "../inputs/channels.ts";
import { ActionError, checkInput } from "./errors.ts";

export { CHANNEL_NAMES, type ChannelName };

/** Most strangers one listing returns. */
export const MAX_STRANGER_LIST = 200;

/** A listing of strangers, the latest first, of one channel or all. */
export const listStrangersInput = z.object({
  channel: z.enum(CHANNEL_NAMES).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_STRANGER_LIST).default(50),
});
/** One stranger to forget, by channel and sender id. */
export const forgetStrangerInput = z.object({
  channel: z.enum(CHANNEL_NAMES),
  sender_id: z.string().min(1).max(320),
});

export type ListStrangersInput = z.input<typeof listStrangersInput>;
export type ForgetStrangerInput = z.input<typeof forgetStrangerInput>;

/** A channel's health, as status, doctor and the page show it. */
export interface ChannelState {
  name: string;
  /** hob's name on the platform, once connected. */
  account: string | null;
  state: "starting" | "connected" | "retrying" | "stopped";
  last_inbound: string | null;
  last_outbound: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** Times the loop started over after a failure or a stall. */
  restarts: number;
  /** Messages not answered: strangers, bots, over the rate limit, seen before. */
  ignored: number;
}

/** What `hob doctor` says of a channel. */
export interface ChannelProbe {
  name: string;
  ok: boolean;
  /** Works, but something needs the owner's attention. */
  warning: boolean;
  detail: string;
}

/** The channels as they run (the hub of src/channels, made after the actions it calls). */
export interface RunningChannels {
  states(): ChannelState[];
  names(): string[];
  /** Sends the owner a test message; `not_found` for a channel not configured. */
  sendTest(channel: string): Promise<void>;
  /** Connects each channel once, saying whether it works and who is answered. */
  probe(): Promise<ChannelProbe[]>;
}

/** A chat on a channel: where it is, and how its conversation is titled. */
export interface ChatPlace {
  channel: ChannelName;
  chatId: string;
  /** Who or what the chat is, for the title (`Telegram · Ada`); the platform's words. */
  label: string;
}

/** The channel actions. */
export interface ChannelActions {
  /** The chat's conversation, made (kind `channel`) when it has none or it was deleted. */
  conversationOf(place: ChatPlace): Conversation;
  /** Starts a new conversation for the chat (`/new`); the old one is kept. */
  startOver(place: ChatPlace): Conversation;
  strangers(input?: ListStrangersInput): Stranger[];
  /** `not_found` when there is no such stranger. */
  forgetStranger(input: ForgetStrangerInput): void;
  /** The configured channels' health. */
  states(): ChannelState[];
  /** The configured channels' names. */
  names(): string[];
  /**
   * Sends the owner (the first of allow_from) a test message on `channel`:
   * `not_found` for a channel not configured, `invalid` when it names no owner.
   */
  sendTest(channel: string): Promise<void>;
  /** Connects each configured channel once, for `hob doctor`. */
  probe(): Promise<ChannelProbe[]>;
}

/** The channel actions over the stores. */
export function createChannelActions(
  deps: {
    channels: SqliteChannels;
    conversations: SqliteConversationStore;
    /** The hub, asked for only once the runtime is open. */
    running(): RunningChannels;
  },
): ChannelActions {
  const { channels, conversations, running } = deps;
  const start = (place: ChatPlace): Conversation => {
    const title = `${TITLES[place.channel]} · ${place.label}`.slice(0, 200);
    const conversation = conversations.createConversation({ title, kind: "channel" });
    channels.setChat({
      channel: place.channel,
      chat_id: place.chatId,
      conversation_id: conversation.id,
      label: place.label,
    });
    return conversation;
  };
  return {
    conversationOf(place) {
      const chat = channels.chat(place.channel, place.chatId);
      const conversation = chat && conversations.getConversation(chat.conversation_id);
      return conversation ?? start(place);
    },
    startOver: start,
    strangers(input = {}) {
      const { channel, limit } = checkInput(listStrangersInput, input);
      return channels.strangers(channel, limit);
    },
    forgetStranger(input) {
      const { channel, sender_id } = checkInput(forgetStrangerInput, input);
      if (!channels.forgetStranger(channel, sender_id)) {
        throw new ActionError("not_found", `No stranger '${sender_id}' on ${channel}`, {
          field: "sender_id",
        });
      }
    },
    states: () => running().states(),
    names: () => running().names(),
    sendTest: (channel) => running().sendTest(channel),
    probe: () => running().probe(),
  };
}

const TITLES: Record<ChannelName, string> = {
  telegram: "Telegram",
  email: "Email",
  matrix: "Matrix",
};
