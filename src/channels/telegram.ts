/**
 * Telegram, through its Bot API with grammy's client: long polling with
 * `getUpdates` from the stored offset, replies as Telegram's HTML (see
 * telegram_format.ts) threaded to the message they answer, and the typing
 * indicator. `api_root` points it at another Bot API server (a local one, or
 * the tests' stand-in). What a message forwards, quotes or answers is its
 * author's, not the sender's (telegram_carried.ts).
 */

import type { Api, GrammyError } from "grammy/web";
import type { ChannelAdapter, Delivery, InboundMessage, SendOptions } from "./port.ts";
import { telegramWords } from "./telegram_carried.ts";
import type { TelegramFile, TelegramMessage, TelegramUser } from "./telegram_types.ts";

/** What the Telegram adapter is configured with. */
export interface TelegramOptions {
  token: string;
  /** The Bot API server, `https://api.telegram.org` unless told. */
  apiRoot: string;
  /** How long one `getUpdates` waits for news, in seconds (Telegram allows up to 50). */
  pollSeconds: number;
}

/** A press of an inline button, as far as hob reads it. */
interface TelegramCallback {
  id: string;
  from: TelegramUser;
  message?: { message_id: number; chat: { id: number } };
  data?: string;
}

/**
 * The Telegram adapter.
 *
 * @example
 * ```ts
 * const telegram = createTelegramAdapter({ token, apiRoot: "https://api.telegram.org", pollSeconds: 30 });
 * const me = await telegram.connect(AbortSignal.timeout(10_000));
 * ```
 */
export function createTelegramAdapter(options: TelegramOptions): ChannelAdapter {
  let client: Promise<Api> | undefined;
  /** hob's own user id, learnt when it connects: its own messages are not someone else's words. */
  let selfId = "";
  const download = (fileId: string, signal: AbortSignal) =>
    downloadFile(api, options, fileId, signal);
  // grammy (its web build: Deno's own fetch, no Node shims) loads when the channel starts.
  const api = () =>
    client ??= import("grammy/web").then(({ Api }) =>
      new Api(options.token, { apiRoot: options.apiRoot })
    );
  return {
    name: "telegram",
    pollMs: options.pollSeconds * 1000,
    async connect(signal) {
      const me = await (await api()).getMe(grammySignal(signal));
      selfId = String(me.id);
      return { selfId, name: `@${me.username}` };
    },
    async read(cursor, signal): Promise<Delivery> {
      const updates = await (await api()).getUpdates({
        offset: cursor === null ? undefined : Number(cursor),
        timeout: options.pollSeconds,
        allowed_updates: ["message", "callback_query"],
      }, grammySignal(signal));
      const messages: InboundMessage[] = [];
      for (const update of updates) {
        const message = update.message as TelegramMessage | undefined;
        if (message?.from) messages.push(inbound(message, download, selfId));
        const pressed = update.callback_query as TelegramCallback | undefined;
        if (pressed?.data && pressed.message) {
          messages.push(buttonPress(pressed));
          // Stops the button's spinner; it says nothing to anyone.
          (await api()).answerCallbackQuery(pressed.id).catch(() => {});
        }
      }
      const last = updates.at(-1);
      return { messages, cursor: last ? String(last.update_id + 1) : cursor };
    },
    async send(chatId, text, sendOptions: SendOptions = {}) {
      const client = await api();
      // The Markdown parser loads with the first reply, not with hob.
      const { toTelegram } = await import("./telegram_format.ts");
      const parts = toTelegram(text);
      for (const [index, part] of parts.entries()) {
        // The id hob gave the message is `chat:message`; Telegram threads by the message part.
        const replyTo = index === 0 && sendOptions.replyTo
          ? Number(sendOptions.replyTo.split(":").pop())
          : undefined;
        // The buttons go under the last part, where the question ends.
        const last = index === parts.length - 1;
        const extra = {
          link_preview_options: { is_disabled: true },
          ...(replyTo
            ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
            : {}),
          ...(last && sendOptions.choices?.length
            ? {
              reply_markup: {
                inline_keyboard: [sendOptions.choices.map((choice) => ({
                  text: choice.label,
                  callback_data: choice.reply.slice(0, 64),
                }))],
              },
            }
            : {}),
        };
        try {
          await client.sendMessage(chatId, part.html, { ...extra, parse_mode: "HTML" });
        } catch (error) {
          // Markup Telegram will not take is sent as the text it stands for.
          if (!isEntityError(error)) throw error;
          await client.sendMessage(chatId, part.plain, extra);
        }
      }
    },
    async typing(chatId) {
      await (await api()).sendChatAction(chatId, "typing");
    },
    async sendVoice(chatId, audio, sendOptions: SendOptions = {}) {
      const [client, { InputFile }] = await Promise.all([api(), import("grammy/web")]);
      const replyTo = sendOptions.replyTo ? Number(sendOptions.replyTo.split(":").pop()) : 0;
      await client.sendVoice(chatId, new InputFile(audio, "reply.ogg"), {
        ...(replyTo
          ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
          : {}),
      });
    },
  };
}

/** A file's bytes: `getFile` says where it is, then it is fetched from the file endpoint. */
async function downloadFile(
  api: () => Promise<Api>,
  options: TelegramOptions,
  fileId: string,
  signal: AbortSignal,
): Promise<Uint8Array<ArrayBuffer>> {
  const file = await (await api()).getFile(fileId, grammySignal(signal));
  if (!file.file_path) throw new Error("Telegram keeps no copy of this file");
  const url = `${options.apiRoot.replace(/\/$/, "")}/file/bot${options.token}/${file.file_path}`;
  const response = await fetch(url, { signal });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`Telegram answered ${response.status} for a file`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function inbound(
  message: TelegramMessage,
  download: (fileId: string, signal: AbortSignal) => Promise<Uint8Array<ArrayBuffer>>,
  selfId: string,
): InboundMessage {
  const from = message.from!;
  // What the sender forwarded, quoted or answered is its author's, not theirs.
  const { text, carried, passedOn } = telegramWords(message, selfId);
  const name = from.username
    ? `@${from.username}`
    : [from.first_name, from.last_name].filter(Boolean).join(" ");
  return {
    // Message ids are per chat on Telegram.
    id: `${message.chat.id}:${message.message_id}`,
    chatId: String(message.chat.id),
    senderId: String(from.id),
    senderName: name || String(from.id),
    text,
    carried,
    files: filesOf(message).map(({ file, name, voice }) => ({
      name,
      voice,
      size: file.file_size,
      fetch: (signal) => download(file.file_id, signal),
      ...(passedOn ? { from: passedOn } : {}),
    })),
    // Telegram vouches for who sent a message.
    verified: true,
    fromBot: from.is_bot,
    direct: message.chat.type === "private",
  };
}

/** A button of hob's pressed: a message from the presser, saying the button's reply. */
function buttonPress(pressed: TelegramCallback): InboundMessage {
  const { from, message } = pressed;
  return {
    id: `button:${pressed.id}`,
    chatId: String(message!.chat.id),
    senderId: String(from.id),
    senderName: from.username ? `@${from.username}` : from.first_name ?? String(from.id),
    text: pressed.data!,
    carried: [],
    files: [],
    verified: true,
    fromBot: from.is_bot,
    // A press answers hob's own question, in a group as much as in private.
    direct: true,
  };
}

/** The files a message carries, each with a name to save it under. */
function filesOf(
  message: TelegramMessage,
): { file: TelegramFile; name: string; voice: boolean }[] {
  const files: { file: TelegramFile; name: string; voice: boolean }[] = [];
  // Telegram sends a photo in several sizes; the largest is the one to look at.
  const photo = message.photo?.at(-1);
  if (photo) files.push({ file: photo, name: "photo.jpg", voice: false });
  const kinds = [
    ["document", "file"],
    ["voice", "voice.ogg"],
    ["audio", "audio.mp3"],
    ["video", "video.mp4"],
  ] as const;
  for (const [kind, fallback] of kinds) {
    const file = message[kind];
    if (file) files.push({ file, name: file.file_name || fallback, voice: kind === "voice" });
  }
  return files;
}

/** Deno's AbortSignal, as grammy's typings (abort-controller's, for Node) name it: the same object. */
function grammySignal(signal: AbortSignal): Parameters<Api["getMe"]>[0] {
  return signal as unknown as Parameters<Api["getMe"]>[0];
}

function isEntityError(error: unknown): boolean {
  const grammy = error as Partial<GrammyError>;
  return grammy?.error_code === 400 && /entit|parse/i.test(grammy.description ?? "");
}
