/**
 * Whose words a mail holds. A mail's text is its sender's only down to what
 * they passed on: a forwarded mail (the separators and header blocks Gmail,
 * Outlook, Apple Mail, Thunderbird, Yahoo and others write, in their many
 * languages, found by crisp-oss's `email-forward-parser`), and quoted text
 * anywhere in it (`>` blocks and the `On … wrote:` or `-----Original
 * Message-----` blocks, found by crisp-oss's `email-reply-parser`). Those
 * are their authors' words; so is the subject of a forwarded mail. One
 * exception keeps replies quiet: in a reply to one of hob's own mails, the
 * mail it answers, quoted at its end, is left out — it is hob's own, and
 * already in the conversation. Knows nothing of the hub or of trust.
 */

import EmailForwardParser from "email-forward-parser";
import EmailReplyParser from "email-reply-parser";
import { type CarriedText, SOMEONE_QUOTED } from "./port.ts";

/** A mail's words, sorted. */
export interface MailWords {
  /** What the sender wrote themselves. */
  text: string;
  /** The subject, when it is the sender's own (a forwarded mail's is its author's). */
  subject?: string;
  /** What they forwarded or quoted. */
  carried: CarriedText[];
}

/** How a forwarded mail is attributed when its header block names nobody. */
const SOMEONE_FORWARDED = "someone (the forwarded mail names no sender)";

/** What the mail says of itself besides its text. */
export interface MailWordsOptions {
  subject?: string;
  /** Whether it replies to one of hob's own mails: what it quotes at its end is hob's, left out. */
  answersHob?: boolean;
  /** Whether it has a mail attached whole: "Fwd:" with no forward in the text means that one. */
  attachedMail?: boolean;
}

/**
 * Sorts a mail's text and subject into the sender's own words and what they
 * forwarded or quoted.
 *
 * @example
 * ```ts
 * mailWords("Pay this?\n\n---------- Forwarded message ---------\nFrom: Eve <eve@x.org>\n…", { subject: "Fwd: Bill" });
 * // { text: "Pay this?", subject: undefined, carried: [{ kind: "forwarded", author: "Eve <eve@x.org>", … }] }
 * ```
 */
export function mailWords(text: string, options: MailWordsOptions = {}): MailWords {
  const { subject, answersHob = false, attachedMail = false } = options;
  const clean = normalized(text);
  const forward = forwardIn(clean, subject);
  const carried: CarriedText[] = [];
  let own = clean;
  let ownSubject = subject;
  // A subject marked as forwarded ("Fwd: …") is the forwarded mail's.
  if (forward?.bySubject) ownSubject = undefined;
  // Forwarded as an attachment: the text is the sender's, the forwarded mail is the attachment.
  const asAttachment = forward?.bySubject && !forward.split && attachedMail;
  if (forward && !asAttachment) {
    own = forward.own;
    const rest = forward.bySubject && subject
      ? `Subject: ${subject}\n\n${forward.rest}`
      : forward.rest;
    // Found by its header block alone at the end of a reply to hob: the mail answered (Outlook
    // quotes that way), which is hob's own.
    if (!(answersHob && !forward.bySubject)) {
      carried.push({ kind: "forwarded", author: forward.author, text: rest });
    }
  }
  const quotes = quotesIn(own, answersHob);
  carried.unshift(...quotes.carried);
  return { text: quotes.own, ...(ownSubject ? { subject: ownSubject } : {}), carried };
}

/** A forwarded mail in the text: the sender's words before it, and it (to the end). */
interface Forward {
  own: string;
  rest: string;
  author: string;
  /** Whether the subject says so ("Fwd: …"), rather than only a header block in the text. */
  bySubject: boolean;
  /** Whether the text holds the forwarded mail (its separator or header block was found). */
  split: boolean;
}

/** The forwarded mail in `text`, found by the subject and the text, or by the text alone. */
function forwardIn(text: string, subject: string | undefined): Forward | null {
  const parser = new EmailForwardParser();
  let bySubject = true;
  let found = subject ? parser.read(text, subject) : null;
  if (!found?.forwarded) {
    // An edited subject hides nothing: a separator in the text is enough.
    bySubject = false;
    found = parser.read(text);
    if (!found.forwarded) return null;
  }
  const from = found.email.from;
  const author = from?.address
    ? (from.name ? `${from.name} <${from.address}>` : from.address)
    : SOMEONE_FORWARDED;
  const split = found.email.body !== undefined;
  const message = found.message ?? "";
  const at = message ? text.indexOf(message) : -1;
  // The sender's words are only what stands, whole, before the forwarded mail; anything the
  // parser could not place is the forwarded mail's.
  if (!message || at < 0 || text.slice(0, at).trim()) {
    return { own: "", rest: text.trim(), author, bySubject, split };
  }
  return { own: message, rest: text.slice(at + message.length).trim(), author, bySubject, split };
}

/** The text without its quotes, and those quotes (left out: the one that ends a reply to hob). */
function quotesIn(text: string, answersHob: boolean): { own: string; carried: CarriedText[] } {
  const fragments = new EmailReplyParser().read(text).getFragments()
    .filter((fragment) => fragment.getContent().trim());
  const last = fragments.at(-1);
  const own: string[] = [];
  const carried: CarriedText[] = [];
  for (const fragment of fragments) {
    if (!fragment.isQuoted()) own.push(fragment.getContent().trim());
    else if (!(answersHob && fragment === last)) {
      carried.push({ kind: "quoted", author: SOMEONE_QUOTED, text: fragment.getContent().trim() });
    }
  }
  return { own: own.join("\n\n"), carried };
}

/** Line ends, byte order marks and no-break spaces as the forward parser reads them. */
function normalized(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\uFEFF/g, "").replace(/\u00A0/g, " ");
}
