/**
 * A channel's latency: from a message reaching the platform to hob's reply
 * reaching it, with a model that answers at once — the Telegram stand-in
 * (tests/fakes/telegram_server.ts) driven through grammy, beside its own
 * floor measured in the same run: the same turn started in-process through
 * the app layer, no channel. The difference is what the channel adds:
 * the long poll waking, recording the message, sending the reply.
 */

import { collectReply } from "../src/core/reply.ts";
import { openRuntime } from "../src/runtime/runtime.ts";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { startFakeMatrix } from "../tests/fakes/matrix_server.ts";
import { startFakeTelegram } from "../tests/fakes/telegram_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import {
  emailChannelYaml,
  mailServersMissing,
  startMailServers,
} from "../tests/helpers/mail_servers.ts";
import { floorRatio, ms, percentile } from "./stats.ts";

/** Messages sent before measuring, to warm caches and the JIT. */
const WARMUP = 5;
/** Messages measured. */
const MEASURED = 40;
const OWNER = 4242;
/** Mails sent before measuring, and measured: each is a round through two real servers. */
const EMAIL_WARMUP = 2;
const EMAILS = 10;

/** Medians and 95th percentiles in milliseconds. */
export interface ChannelLatency {
  messages: number;
  telegram_p50: number;
  telegram_p95: number;
  /** Through real mail servers (OpenSMTPD → Dovecot → IMAP IDLE → hob → SMTP → Dovecot), when here. */
  email?:
    | {
      mails: number;
      p50: number;
      p95: number;
      /** Of which: from sending until hob had read the mail (SMTP, LMTP, IDLE, fetch). */
      inbound_p50: number;
    }
    | { skipped: string };
  /** Through the stand-in homeserver, with matrix-js-sdk's client. */
  matrix_p50: number;
  matrix_p95: number;
  /** The same turn through the app layer, in-process. */
  direct_p50: number;
  direct_p95: number;
}

/** Sends messages to hob on the Telegram stand-in and times each reply's arrival. */
export async function measureChannelLatency(): Promise<ChannelLatency> {
  await using model = startFakeOpenAI({ fallback: { text: "Noted." } });
  await using telegram = await startFakeTelegram();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `channels:
  telegram:
    token: "${telegram.token}"
    api_root: "${telegram.url}"
    allow_from: [${OWNER}]
    replies_per_minute: 120
agent: { auto_title: false }
`,
  ));
  const runtime = await openRuntime({ home: home.home, env: {}, log: () => {} });
  try {
    runtime.channels.start();
    const viaTelegram: number[] = [];
    for (let i = 0; i < WARMUP + MEASURED; i++) {
      const before = telegram.sentTo(OWNER).length;
      const started = performance.now();
      telegram.push({ from: { id: OWNER }, text: `Note ${i}` });
      await telegram.until(() => telegram.sentTo(OWNER).length > before, "a reply", 30_000);
      // When the reply reached the stand-in, not when this loop looked.
      if (i >= WARMUP) viaTelegram.push(telegram.sentTo(OWNER)[before].at - started);
    }
    const conversation = runtime.app.conversations.create({ title: "bench" });
    const direct: number[] = [];
    for (let i = 0; i < WARMUP + MEASURED; i++) {
      const started = performance.now();
      await collectReply(
        await runtime.app.conversations.turn({
          // Words of its own: a message seen before would find its query vector cached.
          message: `Aside ${i}`,
          conversation_id: conversation.id,
        }),
      );
      if (i >= WARMUP) direct.push(performance.now() - started);
    }
    return {
      messages: MEASURED,
      email: await measureEmail(),
      ...(await measureMatrix()),
      telegram_p50: percentile(viaTelegram, 50),
      telegram_p95: percentile(viaTelegram, 95),
      direct_p50: percentile(direct, 50),
      direct_p95: percentile(direct, 95),
    };
  } finally {
    await runtime.close();
  }
}

/** Messages to hob in a direct chat on the stand-in homeserver, timed until its reply arrives there. */
async function measureMatrix(): Promise<{ matrix_p50: number; matrix_p95: number }> {
  await using model = startFakeOpenAI({ fallback: { text: "Noted." } });
  await using matrix = startFakeMatrix();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `channels:
  matrix:
    homeserver: "${matrix.url}"
    user_id: "${matrix.userId}"
    access_token: "${matrix.token}"
    allow_from: ["@ada:test"]
    replies_per_minute: 120
agent: { auto_title: false }
`,
  ));
  const runtime = await openRuntime({ home: home.home, env: {}, log: () => {} });
  try {
    runtime.channels.start();
    matrix.room("!dm:test", 2);
    while (!runtime.db.prepare("SELECT 1 FROM kv WHERE key = 'channel.cursor.matrix'").get()) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const times: number[] = [];
    for (let i = 0; i < WARMUP + MEASURED; i++) {
      const started = performance.now();
      matrix.push("!dm:test", { sender: "@ada:test", body: `Matrix note ${i}` });
      await matrix.until(() => matrix.sent.length > i, "a reply", 30_000);
      if (i >= WARMUP) times.push(matrix.sent[i].at - started);
    }
    return { matrix_p50: percentile(times, 50), matrix_p95: percentile(times, 95) };
  } finally {
    await runtime.close();
  }
}

/** Mail to hob through real servers, timed until its reply is in the sender's inbox (seen every 20 ms). */
async function measureEmail(): Promise<ChannelLatency["email"]> {
  const missing = mailServersMissing();
  if (missing) return { skipped: missing };
  await using mail = await startMailServers();
  await using model = startFakeOpenAI({ fallback: { text: "Noted." } });
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `${emailChannelYaml(mail, "    replies_per_minute: 60\n")}agent: { auto_title: false }
`,
  ));
  const runtime = await openRuntime({ home: home.home, env: {}, log: () => {} });
  try {
    runtime.channels.start();
    while (runtime.channels.states()[0].state !== "connected") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const times: number[] = [];
    const inbound: number[] = [];
    for (let i = 0; i < EMAIL_WARMUP + EMAILS; i++) {
      const started = performance.now();
      const sentAt = Date.now();
      await mail.send({
        from: "owner@test.local",
        to: "hob@test.local",
        subject: `Note ${i}`,
        text: "Hi",
      });
      await mail.until("owner@test.local", (box) => box.length > i, "a reply", 20);
      if (i >= EMAIL_WARMUP) {
        times.push(performance.now() - started);
        inbound.push(Date.parse(runtime.channels.states()[0].last_inbound!) - sentAt);
      }
    }
    return {
      mails: EMAILS,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      inbound_p50: percentile(inbound, 50),
    };
  } finally {
    await runtime.close();
  }
}

/** The figures, each beside the in-process turn as its floor. */
export function formatChannelLatency(result: ChannelLatency): string {
  return [
    `channel latency, message in → reply out, instant model, ${result.messages} messages:`,
    `  telegram (stand-in Bot API, grammy)  p50 ${ms(result.telegram_p50)} (${
      floorRatio(result.telegram_p50, result.direct_p50)
    } the turn alone), p95 ${ms(result.telegram_p95)}`,
    `  matrix (stand-in homeserver, matrix-js-sdk)  p50 ${ms(result.matrix_p50)} (${
      floorRatio(result.matrix_p50, result.direct_p50)
    } the turn alone), p95 ${ms(result.matrix_p95)}`,
    `  the same turn in-process (floor)     p50 ${ms(result.direct_p50)}, p95 ${
      ms(result.direct_p95)
    }`,
    !result.email
      ? ""
      : "skipped" in result.email
      ? `  email: skipped (${result.email.skipped})`
      : `  email (OpenSMTPD, Dovecot IDLE, ${result.email.mails} mails)  p50 ${
        ms(result.email.p50)
      } (${floorRatio(result.email.p50, result.direct_p50)} the turn alone), p95 ${
        ms(result.email.p95)
      }; the mail reached hob after p50 ${ms(result.email.inbound_p50)}`,
  ].filter(Boolean).join("\n");
}

if (import.meta.main) console.log(formatChannelLatency(await measureChannelLatency()));
