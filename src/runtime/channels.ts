/**
 * The channels of hob.yaml, built into the hub (src/channels/hub.ts) over
 * the application layer: the adapters each configured channel names, with
 * its allowlist, guests and rate limit. `hob serve` starts the hub.
 */

import type { AppActions } from "../app/app.ts";
import { ActionError } from "../app/errors.ts";
import { ChannelHub, type HubDeps } from "../channels/hub.ts";
import { createEmailAdapter } from "../channels/email.ts";
import { createMatrixAdapter } from "../channels/matrix.ts";
import { createTelegramAdapter } from "../channels/telegram.ts";
import type { HobConfig } from "../config/schema.ts";
import type { SqliteChannels } from "../store/channels.ts";
import { mediaType } from "../app/uploads.ts";

/** What the hub is built from. */
export interface ChannelWiring {
  home: string;
  config: HobConfig;
  env: Record<string, string | undefined>;
  app: AppActions;
  store: SqliteChannels;
  log(line: string): void;
}

/**
 * The hub with every enabled channel of hob.yaml added (not started).
 *
 * @example
 * ```ts
 * const hub = createChannelHub({ config, env: Deno.env.toObject(), app, store, log: console.error });
 * hub.start();
 * ```
 */
export function createChannelHub(wiring: ChannelWiring): ChannelHub {
  const { app, config } = wiring;
  const hub = new ChannelHub({
    channels: app.channels,
    store: wiring.store,
    turn: (input, options) => app.conversations.turn(input, options),
    saveUpload: async (name, bytes) => (await app.uploads.save(new File([bytes], name))).path,
    ...voice(wiring),
    decide: (id, decision) =>
      answer(() => {
        const approval = app.approvals.decide({ id, decision });
        return `${decision === "approve" ? "Approved" : "Denied"}: ${approval.tool}.`;
      }),
    setModel: (conversationId, model) =>
      answer(() => {
        app.conversations.setModel({ id: conversationId, model });
        return `This conversation now uses ${model}.`;
      }),
    defaultModel: config.model,
    log: wiring.log,
  });
  addTelegram(hub, wiring);
  addEmail(hub, wiring);
  addMatrix(hub, wiring);
  return hub;
}

/**
 * Voice notes heard when speech to text is set up, and answered by voice
 * when text to speech is too (and `speech.voice_replies` is on).
 */
function voice(wiring: ChannelWiring): Pick<HubDeps, "hearVoice" | "speakVoice"> {
  const { speech } = wiring.app;
  const can = speech.capabilities();
  return {
    ...(can.transcribe.available
      ? {
        hearVoice: async (bytes: Uint8Array, name: string, signal: AbortSignal) =>
          (await speech.transcribe({ audio: bytes, type: mediaType(name), name }, signal)).text,
      }
      : {}),
    ...(can.speak.available && wiring.config.speech.voice_replies
      ? {
        speakVoice: async (text: string, signal: AbortSignal) => {
          // The voice actions' module, loaded with the first reply spoken.
          const { speakable } = await import("../app/speech.ts");
          return (await speech.speak({ text: await speakable(text), format: "opus" }, signal))
            .bytes;
        },
      }
      : {}),
  };
}

/** What an action says it did, or why it refused, as a line for the chat. */
function answer(action: () => string): string {
  try {
    return action();
  } catch (error) {
    if (error instanceof ActionError) return error.message;
    throw error;
  }
}

/** Telegram, when hob.yaml enables it and its token is set. */
function addTelegram(hub: ChannelHub, wiring: ChannelWiring): void {
  const telegram = wiring.config.channels.telegram;
  if (!telegram?.enabled) return;
  const token = (telegram.token_env ? wiring.env[telegram.token_env] : undefined) ??
    telegram.token;
  if (!token) return unstartable(hub, "telegram", `${telegram.token_env} is empty`);
  hub.add(
    createTelegramAdapter({
      token,
      apiRoot: telegram.api_root,
      pollSeconds: telegram.poll_timeout_s,
    }),
    {
      allowFrom: telegram.allow_from,
      guests: telegram.guests,
      repliesPerMinute: telegram.replies_per_minute,
    },
  );
}

/** Email, when hob.yaml enables it and both servers' passwords are set. */
function addEmail(hub: ChannelHub, wiring: ChannelWiring): void {
  const email = wiring.config.channels.email;
  if (!email?.enabled) return;
  const server = (which: "imap" | "smtp") => {
    const own = email[which];
    const password = (own.password_env ? wiring.env[own.password_env] : undefined) ??
      own.password;
    return { ...own, user: own.user ?? email.address, password };
  };
  const [imap, smtp] = [server("imap"), server("smtp")];
  if (imap.password === undefined) {
    return unstartable(hub, "email", `no IMAP password (imap.password or password_env)`);
  }
  hub.add(
    createEmailAdapter({
      address: email.address,
      imap: { ...imap, password: imap.password },
      smtp: { ...smtp, password: smtp.password ?? "" },
      mailbox: email.mailbox,
      authservId: email.authserv_id,
      pollMs: email.poll_timeout_s * 1000,
    }),
    {
      allowFrom: email.allow_from,
      guests: email.guests,
      repliesPerMinute: email.replies_per_minute,
    },
  );
}

/** Matrix, when hob.yaml enables it and its access token is set. */
function addMatrix(hub: ChannelHub, wiring: ChannelWiring): void {
  const matrix = wiring.config.channels.matrix;
  if (!matrix?.enabled) return;
  const token = (matrix.access_token_env ? wiring.env[matrix.access_token_env] : undefined) ??
    matrix.access_token;
  if (!token) return unstartable(hub, "matrix", `${matrix.access_token_env} is empty`);
  hub.add(
    createMatrixAdapter({
      homeserver: matrix.homeserver,
      userId: matrix.user_id,
      accessToken: token,
      mayInvite: (userId) => matrix.allow_from.includes(userId),
      answers: (userId) => [...matrix.allow_from, ...matrix.guests].includes(userId),
      pollMs: matrix.poll_timeout_s * 1000,
    }),
    {
      allowFrom: matrix.allow_from,
      guests: matrix.guests,
      repliesPerMinute: matrix.replies_per_minute,
    },
  );
}

/** Notes a channel hob.yaml enables but hob cannot start (the hub says so when it starts). */
function unstartable(hub: ChannelHub, name: string, why: string): void {
  const reason = `its secret is not set (${why})`;
  hub.cannotStart(name, reason);
}
