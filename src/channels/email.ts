/**
 * Email: hob reads a mailbox over IMAP with `imapflow` (waiting in IDLE
 * for news), parses each mail with `mailparser`, and replies in thread with
 * `nodemailer` (In-Reply-To and References, `Auto-Submitted: auto-replied`).
 * One conversation per thread: a chat is the correspondent and the thread's
 * first Message-ID. What a mail forwards, quotes or attaches (`message/rfc822`)
 * is its authors' words, not the sender's (email_carried.ts). What no person
 * wrote — auto-replies, bounces, lists, bulk mail — counts as a bot's and is
 * never answered. A sender is verified
 * only by the receiving server's Authentication-Results (`From` is forgeable).
 */

import type { ImapFlow } from "imapflow";
import { Buffer } from "node:buffer";
import type { ParsedMail } from "mailparser";
import type { CarriedText, ChannelAdapter, Delivery, InboundMessage, SendOptions } from "./port.ts";

/** One mail server, as hob logs in to it. */
export interface MailServer {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}

/** What the email adapter is configured with. */
export interface EmailOptions {
  /** hob's own address. */
  address: string;
  imap: MailServer;
  smtp: MailServer;
  mailbox: string;
  /** The receiving server's id in Authentication-Results; none: nobody is verified. */
  authservId?: string;
  /** How long one read waits in IDLE for news. */
  pollMs: number;
}

/** Mail fetched in one read, at most: a full inbox is worked through in turns. */
const MAX_PER_READ = 20;
/** Longest text taken from one mail: a letter, not an archive. */
const MAX_TEXT_CHARS = 100_000;
/**
 * How hob's own Message-IDs start: a mail whose In-Reply-To is one answers
 * hob, so what it quotes at its end is hob's own mail (anyone can make such
 * an id, but then what it quotes is only left out, never trusted).
 */
const OWN_ID_PREFIX = "<hob.";

/** A thread hob replies in: to whom, under which subject, after which messages. */
export interface Thread {
  to: string;
  subject: string;
  references: string[];
}

/**
 * The email adapter.
 *
 * @example
 * ```ts
 * const email = createEmailAdapter({ address: "hob@example.org", imap, smtp, mailbox: "INBOX", pollMs: 300_000 });
 * ```
 */
export function createEmailAdapter(options: EmailOptions): ChannelAdapter {
  const self = options.address.toLowerCase();
  let client: ImapFlow | undefined;
  // Threads seen since start: a reply after a restart still threads, by the chat id's root.
  const threads = new Map<string, Thread>();

  async function connected(): Promise<ImapFlow> {
    if (client?.usable) return client;
    client?.close();
    const { ImapFlow } = await import("imapflow");
    const { imap } = options;
    client = new ImapFlow({
      host: imap.host,
      port: imap.port,
      secure: imap.secure,
      auth: { user: imap.user, pass: imap.password },
      logger: false,
    });
    client.on("error", () => {/* the next read reconnects, and says why */});
    await client.connect();
    return client;
  }

  return {
    name: "email",
    pollMs: options.pollMs,
    async connect() {
      await connected();
      return { selfId: self, name: options.address };
    },
    async read(cursor, signal): Promise<Delivery> {
      const imap = await connected();
      const lock = await imap.getMailboxLock(options.mailbox);
      let quiet = false;
      try {
        // Brings the server's news in (EXISTS): a mailbox held open is not asked again by itself.
        await imap.noop();
        const box = imap.mailbox as { uidValidity: bigint; exists: number };
        const validity = String(box.uidValidity);
        const [knownValidity, lastText] = (cursor ?? "").split(":");
        // A first start (or a mailbox made anew) begins with what comes next, not the whole inbox.
        if (knownValidity !== validity) {
          const status = await imap.status(options.mailbox, { uidNext: true });
          const next = status ? status.uidNext ?? 1 : 1;
          return { messages: [], cursor: `${validity}:${next - 1}` };
        }
        let last = Number(lastText);
        const messages: InboundMessage[] = [];
        // `last+1:*` names the newest mail even when nothing is newer: what is not, is skipped.
        const range = `${last + 1}:*`;
        if (box.exists > 0) {
          for await (const mail of imap.fetch(range, { uid: true, source: true }, { uid: true })) {
            if (mail.uid <= last || messages.length >= MAX_PER_READ) continue;
            last = mail.uid;
            const parsed = await parse(mail.source as Uint8Array);
            const message = await mailToMessage(
              parsed,
              `${validity}:${mail.uid}`,
              options,
              threads,
            );
            if (message) messages.push(message);
          }
        }
        quiet = `${validity}:${last}` === cursor;
        if (quiet) return { messages: [], cursor };
        return { messages, cursor: `${validity}:${last}` };
      } finally {
        lock.release();
        // Nothing new: imapflow idles on the open mailbox, and says when mail arrives.
        if (quiet) await waitForNews(imap, options.pollMs, signal);
      }
    },
    send: (chatId, text, sendOptions) =>
      sendReply(options, threads.get(chatId), chatId, text, sendOptions),
    typing: () => Promise.resolve(),
  };
}

/** Sends a reply in its thread (or a new mail when hob starts the conversation). */
async function sendReply(
  options: EmailOptions,
  thread: Thread | undefined,
  chatId: string,
  text: string,
  _options?: SendOptions,
): Promise<void> {
  const [to, root] = chatId.split("#");
  const { default: nodemailer } = await import("nodemailer");
  const { smtp } = options;
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    name: "hob.localhost",
    auth: smtp.password ? { user: smtp.user, pass: smtp.password } : undefined,
  });
  const references = thread?.references ?? (root ? [root] : []);
  try {
    await transport.sendMail({
      messageId: `${OWN_ID_PREFIX}${crypto.randomUUID()}@${options.address.split("@")[1]}>`,
      from: options.address,
      to: thread?.to ?? to,
      subject: thread ? replySubject(thread.subject) : "A message from hob",
      // Mail has no buttons: the text itself says what to reply (`sendOptions.choices`).
      text,
      ...(references.length
        ? { inReplyTo: references.at(-1), references: references.join(" ") }
        : {}),
      // Says no person wrote it: a well-behaved auto-responder on the other side stays quiet.
      headers: { "Auto-Submitted": "auto-replied", "X-Auto-Response-Suppress": "All" },
    });
  } finally {
    transport.close();
  }
}

/**
 * A raw mail (RFC 5322 bytes), parsed; `text` is its plain part, else the text
 * of its HTML. A mail inside it (`message/rfc822`) stays an attachment, even
 * one marked inline: its text is its author's, never the sender's.
 */
export async function parse(source: Uint8Array): Promise<ParsedMail> {
  const { simpleParser } = await import("mailparser");
  // mailparser takes a Buffer (or a stream); plain bytes would be read as a stream.
  const mail = await simpleParser(Buffer.from(source), {
    skipImageLinks: true,
    ignoreEmbedded: true,
  });
  if (!mail.text?.trim() && typeof mail.html === "string") {
    const { convert } = await import("html-to-text");
    mail.text = convert(mail.html, {
      wordwrap: false,
      selectors: [
        { selector: "a", options: { ignoreHref: true } },
        { selector: "img", format: "skip" },
      ],
    }).trim();
  }
  return mail;
}

/** A mail as a message for the hub (remembering its thread); null for one without a sender. */
export async function mailToMessage(
  mail: ParsedMail,
  uid: string,
  options: EmailOptions,
  threads: Map<string, Thread>,
): Promise<InboundMessage | null> {
  const from = mail.from?.value[0];
  if (!from?.address) return null;
  const sender = from.address.toLowerCase();
  const messageId = mail.messageId ?? `<${uid}@${options.imap.host}>`;
  const references = [
    ...(Array.isArray(mail.references)
      ? mail.references
      : mail.references
      ? [mail.references]
      : []),
  ];
  if (mail.inReplyTo && !references.includes(mail.inReplyTo)) references.push(mail.inReplyTo);
  // A thread is named by its first message: every reply in it carries that id first.
  const root = references[0] ?? messageId;
  const chatId = `${sender}#${root}`;
  threads.set(chatId, {
    to: mail.replyTo?.value[0]?.address ?? sender,
    subject: mail.subject ?? "",
    references: [...references, messageId],
  });
  // What the mail forwards or quotes is its authors'; so are the mails attached to it.
  const { mailWords } = await import("./email_carried.ts");
  const attached = await attachedMails(mail);
  const words = mailWords((mail.text ?? "").slice(0, MAX_TEXT_CHARS), {
    subject: mail.subject,
    answersHob: mail.inReplyTo?.startsWith(OWN_ID_PREFIX) ?? false,
    attachedMail: attached.length > 0,
  });
  return {
    id: messageId,
    chatId,
    senderId: sender,
    senderName: from.name ? `${from.name} <${sender}>` : sender,
    text: words.text,
    carried: [...words.carried, ...attached],
    // A reply's subject only repeats the thread's; the first mail's says what it is about.
    subject: references.length ? undefined : words.subject,
    // Images the HTML shows inline are part of its look, not files sent.
    files: (mail.attachments ?? []).filter((file) => !file.related).map((file) => ({
      name: file.filename ?? "attachment",
      size: file.size,
      fetch: () => Promise.resolve(new Uint8Array(file.content)),
    })),
    verified: authenticated(mail, sender, options.authservId),
    fromBot: automated(mail, sender),
    direct: true,
  };
}

/** The mails attached to a mail (`message/rfc822`, `message/global`), each as its author's text. */
async function attachedMails(mail: ParsedMail): Promise<CarriedText[]> {
  const carried: CarriedText[] = [];
  for (const file of mail.attachments ?? []) {
    if (!/^message\/(rfc822|global)$/i.test(file.contentType)) continue;
    const inner = await parse(new Uint8Array(file.content));
    const from = inner.from?.value[0];
    const author = from?.address
      ? (from.name ? `${from.name} <${from.address}>` : from.address)
      : "someone (the attached mail names no sender)";
    const text = [inner.subject && `Subject: ${inner.subject}`, inner.text?.trim()]
      .filter(Boolean).join("\n\n").slice(0, MAX_TEXT_CHARS);
    carried.push({ kind: "attached", author, text: text || "(an empty mail)" });
  }
  return carried;
}

/**
 * Whether no person wrote the mail: an auto-reply or vacation notice, a
 * bounce, a mailing list or bulk mail, or a no-reply sender (RFC 3834).
 */
export function automated(mail: Pick<ParsedMail, "headers">, sender: string): boolean {
  const header = (name: string) => String(mail.headers.get(name) ?? "").toLowerCase().trim();
  const auto = header("auto-submitted");
  if (auto && auto !== "no") return true;
  if (/^(bulk|list|junk)$/.test(header("precedence"))) return true;
  // mailparser gathers every List-* header (List-Id, List-Unsubscribe…) under one key, "list".
  if (mail.headers.has("list")) return true;
  if (mail.headers.has("x-autoreply") || mail.headers.has("x-autorespond")) return true;
  return /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?)([+@-])/.test(sender);
}

/**
 * Whether the receiving server `authservId` says the mail is really from the
 * sender's domain: DMARC passed, or DKIM or SPF passed for that very domain.
 * Only the topmost Authentication-Results of that server counts: it is the
 * one the receiving server added, above anything the sender wrote.
 */
export function authenticated(
  mail: Pick<ParsedMail, "headers">,
  sender: string,
  authservId?: string,
): boolean {
  if (!authservId) return false;
  const domain = sender.split("@")[1];
  const values = [mail.headers.get("authentication-results") ?? []].flat().map(String);
  const ours = values.find((value) =>
    value.trim().split(/[\s;]/)[0].toLowerCase() === authservId.toLowerCase()
  );
  if (!ours) return false;
  const results = ours.toLowerCase().split(";").slice(1).map((part) => part.trim());
  return results.some((result) => {
    const [method, verdict] = result.split(/[=\s]/);
    if (verdict !== "pass") return false;
    // The domain must be the sender's own, whole: `header.d=example.org.evil.test` is not it.
    const whole = `${escape(domain)}(?=$|[\\s;)])`;
    if (method === "dmarc") return new RegExp(`header\\.from=${whole}`).test(result);
    if (method === "dkim") return new RegExp(`header\\.d=${whole}`).test(result);
    if (method === "spf") return new RegExp(`smtp\\.mailfrom=(?:[^@\\s]*@)?${whole}`).test(result);
    return false;
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function replySubject(subject: string): string {
  return /^re:/i.test(subject.trim()) ? subject.trim() : `Re: ${subject.trim() || "your mail"}`;
}

/** Waits in IDLE until the mailbox has news, `ms` pass, or `signal` aborts. */
async function waitForNews(imap: ImapFlow, ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      imap.off("exists", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    imap.on("exists", done);
    signal.addEventListener("abort", done, { once: true });
    // IDLE: the server says when mail arrives; the next command ends it.
    imap.idle().catch(done);
  });
}
