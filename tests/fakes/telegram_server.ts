/**
 * A stand-in for Telegram's Bot API on 127.0.0.1, for the endpoints grammy
 * calls for hob: `getMe`, `getUpdates` (long polling, with Telegram's offset
 * rule: asking from an offset confirms, and forgets, every earlier update),
 * `sendMessage` (refusing HTML Telegram could not parse, as Telegram does)
 * and `sendChatAction`. Tests push messages in, read what hob sent, and can
 * make polling stall or fail.
 */

import { until } from "../helpers/until.ts";

/** A message as a test pushes it: who, where, what. */
export interface PushedMessage {
  from: { id: number; is_bot?: boolean; first_name?: string; username?: string };
  chat?: { id: number; type: "private" | "group" | "supergroup"; title?: string };
  text?: string;
  caption?: string;
  /** A photo (sent, as Telegram does, in two sizes: a thumbnail and these bytes). */
  photo?: Uint8Array;
  document?: { name: string; bytes: Uint8Array };
  voice?: Uint8Array;
  /**
   * More fields of the Bot API's Message, as Telegram sends them
   * (`forward_origin`, `reply_to_message`, `quote`, `external_reply`,
   * `entities`, `via_bot`…).
   */
  fields?: Record<string, unknown>;
}

/** A call hob made. */
export interface BotCall {
  method: string;
  body: Record<string, unknown>;
  /** `performance.now()` when it arrived (the stand-in runs in the caller's process). */
  at: number;
  /** The file a multipart call uploaded (sendVoice's voice). */
  file?: Uint8Array;
}

/** The stand-in. `await using` closes it. */
export interface FakeTelegram extends AsyncDisposable {
  /** What `api_root` points at. */
  url: string;
  token: string;
  /** The bot's own user. */
  me: { id: number; username: string };
  /** Every call but getUpdates, in order. */
  calls: BotCall[];
  /** The offsets getUpdates was asked from, in order. */
  polls: (number | null)[];
  /** Adds an update with this message; returns its update id. */
  push(message: PushedMessage): number;
  /** Presses an inline button of a message hob sent (`data` is the button's callback data). */
  press(from: PushedMessage["from"], chatId: number, data: string): void;
  /**
   * Delivers an earlier update's message again (under a new update id, so an
   * offset already past it does not hide it), as after a restart that lost
   * the confirmation.
   */
  redeliver(updateId: number): void;
  /** Holds every getUpdates until released (a poller whose connection went quiet). */
  stall(on: boolean): void;
  /** Answers the next `count` getUpdates with this HTTP status. */
  failPolls(count: number, status?: number): void;
  /** The sendMessage calls to `chatId`. */
  sentTo(chatId: number): BotCall[];
  /** Resolves once `check` holds (checked every 20 ms). */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Tags and entities Telegram's HTML parse mode takes. */
const TELEGRAM_TAGS = /^(b|strong|i|em|u|ins|s|strike|del|a|code|pre|blockquote|tg-spoiler)$/;

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * await using telegram = await startFakeTelegram();
 * telegram.push({ from: { id: 42 }, text: "hi" });
 * ```
 */
export function startFakeTelegram(): Promise<FakeTelegram> {
  const token = "123456:TEST-token-abcdefghijklmnop";
  const me = { id: 999, username: "hob_test_bot" };
  type Update = { update_id: number; message?: Record<string, unknown>; callback_query?: unknown };
  const updates: Update[] = [];
  const delivered = new Map<number, Update>();
  const calls: BotCall[] = [];
  const polls: (number | null)[] = [];
  const waiters = new Set<() => void>();
  const held = new Set<() => void>();
  const files = new Map<string, { path: string; bytes: Uint8Array }>();
  const addFile = (bytes: Uint8Array, folder: string, name: string) => {
    const file_id = `file-${files.size + 1}`;
    files.set(file_id, { path: `${folder}/${file_id}-${name}`, bytes });
    return { file_id, file_unique_id: `u-${file_id}`, file_size: bytes.byteLength };
  };
  let nextUpdate = 1;
  let nextMessage = 1;
  let stalled = false;
  let failing = { count: 0, status: 502 };
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const ok = (result: unknown) => Response.json({ ok: true, result });
  const refuse = (code: number, description: string) =>
    Response.json({ ok: false, error_code: code, description }, { status: code });

  async function getUpdates(body: Record<string, unknown>) {
    const offset = typeof body.offset === "number" ? body.offset : null;
    polls.push(offset);
    if (failing.count > 0) {
      failing.count--;
      return refuse(failing.status, "Bad Gateway");
    }
    if (stalled) {
      await new Promise<void>((resolve) => held.add(resolve));
      return refuse(502, "Bad Gateway");
    }
    // Telegram forgets what an offset confirms.
    if (offset !== null) {
      while (updates.length > 0 && updates[0].update_id < offset) updates.shift();
    }
    const deadline = Date.now() + Number(body.timeout ?? 0) * 1000;
    while (updates.length === 0 && Date.now() < deadline && !stalled) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        waiters.add(done);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
      });
    }
    return ok(updates.slice(0, 100));
  }

  function sendMessage(body: Record<string, unknown>) {
    if (body.parse_mode === "HTML") {
      const problem = htmlProblem(String(body.text));
      if (problem) return refuse(400, `Bad Request: can't parse entities: ${problem}`);
    }
    if (String(body.text).length > 4096) return refuse(400, "Bad Request: message is too long");
    return ok({
      message_id: 10_000 + nextMessage++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: Number(body.chat_id), type: "private" },
      text: body.text,
    });
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (request) => {
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(new URL(request.url).pathname);
    if (download) {
      const file = [...files.values()].find((each) => each.path === download[2]);
      if (download[1] !== token || !file) return new Response("Not Found", { status: 404 });
      return new Response(file.bytes as Uint8Array<ArrayBuffer>);
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(request.url).pathname);
    if (!match) return refuse(404, "Not Found");
    if (match[1] !== token) return refuse(401, "Unauthorized");
    const method = match[2];
    const { body, file } = await readBody(request);
    if (method === "getUpdates") return await getUpdates(body);
    calls.push({ method, body, at: performance.now(), ...(file ? { file } : {}) });
    wake();
    switch (method) {
      case "getMe":
        return ok({ ...me, is_bot: true, first_name: "hob" });
      case "sendMessage":
        return sendMessage(body);
      case "sendChatAction":
      case "answerCallbackQuery":
        return ok(true);
      case "sendVoice":
        if (!file) return refuse(400, "Bad Request: there is no voice in the request");
        return ok({ message_id: 10_000 + nextMessage++, date: Math.floor(Date.now() / 1000) });
      case "getFile": {
        const file = files.get(String(body.file_id));
        if (!file) return refuse(400, "Bad Request: invalid file_id");
        return ok({
          file_id: body.file_id,
          file_size: file.bytes.byteLength,
          file_path: file.path,
        });
      }
      default:
        return refuse(404, `Not Found: method ${method}`);
    }
  });
  const { port } = server.addr as Deno.NetAddr;

  const fake: FakeTelegram = {
    url: `http://127.0.0.1:${port}`,
    token,
    me,
    calls,
    polls,
    push(message) {
      const update_id = nextUpdate++;
      const update = {
        update_id,
        message: {
          message_id: nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: message.chat ?? { id: message.from.id, type: "private" },
          from: { is_bot: false, first_name: "Someone", ...message.from },
          ...(message.text !== undefined ? { text: message.text } : {}),
          ...(message.caption !== undefined ? { caption: message.caption } : {}),
          ...(message.photo
            ? {
              photo: [
                {
                  ...addFile(message.photo.slice(0, 8), "photos", "thumb.jpg"),
                  width: 90,
                  height: 90,
                },
                { ...addFile(message.photo, "photos", "photo.jpg"), width: 800, height: 600 },
              ],
            }
            : {}),
          ...(message.document
            ? {
              document: {
                ...addFile(message.document.bytes, "documents", message.document.name),
                file_name: message.document.name,
              },
            }
            : {}),
          ...(message.voice
            ? { voice: { ...addFile(message.voice, "voice", "voice.oga"), duration: 2 } }
            : {}),
          ...message.fields,
        },
      };
      updates.push(update);
      delivered.set(update_id, update);
      wake();
      return update_id;
    },
    press(from, chatId, data) {
      updates.push({
        update_id: nextUpdate++,
        callback_query: {
          id: `cb-${nextUpdate}`,
          from: { is_bot: false, first_name: "Someone", ...from },
          message: { message_id: 1, chat: { id: chatId, type: "private" } },
          chat_instance: "1",
          data,
        },
      });
      wake();
    },
    redeliver(updateId) {
      updates.push({ ...delivered.get(updateId)!, update_id: nextUpdate++ });
      wake();
    },
    stall(on) {
      stalled = on;
      if (!on) {
        for (const release of [...held]) release();
        held.clear();
      }
      wake();
    },
    failPolls(count, status = 502) {
      failing = { count, status };
    },
    sentTo(chatId) {
      return calls.filter((call) => call.method === "sendMessage" && call.body.chat_id == chatId);
    },
    until: (check, what, timeoutMs) => until(check, what, timeoutMs),
    async close() {
      stalled = false;
      for (const release of [...held]) release();
      wake();
      await server.shutdown();
    },
    [Symbol.asyncDispose]() {
      return fake.close();
    },
  };
  return Promise.resolve(fake);
}

/** What Telegram would refuse in `html`: an unknown tag, or tags that do not nest. */
function htmlProblem(html: string): string | null {
  const open: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-z-]+)[^>]*>/g)) {
    const [, closing, tag] = match;
    if (!TELEGRAM_TAGS.test(tag)) return `unsupported start tag "${tag}"`;
    if (!closing) open.push(tag);
    else if (open.pop() !== tag) return `unmatched end tag "${tag}"`;
  }
  if (open.length > 0) return `unclosed tag "${open.at(-1)}"`;
  if (/&(?!(lt|gt|amp|quot);)/.test(html)) return "unsupported entity";
  return null;
}

/** A call's parameters: JSON, or a multipart form (grammy uploads files so) with its file. */
async function readBody(
  request: Request,
): Promise<{ body: Record<string, unknown>; file?: Uint8Array }> {
  if ((request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
    const form = await request.formData();
    const body: Record<string, unknown> = {};
    let file: Uint8Array | undefined;
    for (const [name, value] of form) {
      if (value instanceof File) file = new Uint8Array(await value.arrayBuffer());
      else body[name] = value;
    }
    return { body, file };
  }
  const text = await request.text();
  return { body: text ? JSON.parse(text) as Record<string, unknown> : {} };
}
