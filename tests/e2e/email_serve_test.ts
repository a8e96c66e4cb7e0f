/**
 * Email as shipped: a real `hob serve` with deno.json's `hob` task flags (not
 * the test runner's --allow-all), the email channel on real mail servers
 * (Dovecot for IMAP, OpenSMTPD for SMTP, from Debian's packages, on
 * 127.0.0.1) and the fake model. The test writes as the owner, a stranger,
 * robots, lists and hob itself, and reads what lands in each mailbox.
 *
 * "Never answered" is shown by order, not by waiting: the mails that must not
 * be answered are in hob's mailbox before a later mail of the owner's is
 * sent, and hob reads its mailbox in order and decides on each mail as it
 * reads it, so once that later mail is answered the earlier ones were seen
 * and let be. hob's SMTP server is named (`localhost`), not an address, as
 * a user writes it: nodemailer then resolves the name, as it does a real
 * provider's.
 */

import type { ParsedMail } from "mailparser";
import { parse } from "../../src/channels/email.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { shownChannel, untilConnected, untilReading } from "../helpers/channels.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, runHob, startHob } from "../helpers/hob_process.ts";
import {
  emailChannelYaml,
  type MailServers,
  mailServersMissing,
  startMailServers,
  type StoredMail,
} from "../helpers/mail_servers.ts";

const missing = mailServersMissing();
if (missing) console.warn(`email serve tests skipped: ${missing}`);

/** What the receiving server (rspamd, OpenDMARC…) writes for mail it verified. */
const VERIFIED =
  "mx.test.local; dmarc=pass header.from=test.local; spf=pass smtp.mailfrom=test.local";
const ANSWER = "Here is my answer.";

function emailYaml(mail: MailServers): string {
  return emailChannelYaml(
    mail,
    "    authserv_id: mx.test.local\n    poll_timeout_s: 2\n    replies_per_minute: 60\n",
  ).replace(/smtp: \{ host: 127\.0\.0\.1,/, "smtp: { host: localhost,");
}

/** The model's chat requests, oldest first. */
function chats(model: FakeOpenAI): { role: string; content: string }[][] {
  return model.requests.filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) => request.body.messages as { role: string; content: string }[]);
}

/** The last words of the owner the model was asked about, turn by turn. */
function asked(model: FakeOpenAI): string[] {
  return chats(model).map((messages) =>
    messages.findLast((message) => message.role === "user")?.content ?? ""
  );
}

/** The owner's mailbox's replies to `subject`, parsed. */
async function repliesTo(mail: MailServers, subject: string): Promise<ParsedMail[]> {
  const box = await mail.inbox("owner@test.local");
  const replies = box.filter((each) => each.subject === `Re: ${subject}`);
  return await Promise.all(replies.map((each) => parse(new TextEncoder().encode(each.source))));
}

/** Sends the owner's verified mail; resolves once it is in hob's mailbox (its place in line). */
async function ownerSays(
  mail: MailServers,
  subject: string,
  text: string,
  more: { messageId?: string; inReplyTo?: string; references?: string } = {},
): Promise<void> {
  const before = (await mail.inbox("hob@test.local")).length;
  await mail.send({
    from: "Ada <owner@test.local>",
    to: "hob@test.local",
    subject,
    text,
    ...more,
    headers: { "Authentication-Results": VERIFIED },
  });
  await mail.until("hob@test.local", (box) => box.length > before, `'${subject}' delivered`);
}

/** Waits until the owner's mailbox holds a reply to `subject`. */
async function untilAnswered(mail: MailServers, subject: string): Promise<StoredMail> {
  const box = await mail.until(
    "owner@test.local",
    (box) => box.some((each) => each.subject === `Re: ${subject}`),
    `hob's answer to '${subject}'`,
  );
  return box.find((each) => each.subject === `Re: ${subject}`)!;
}

/** Mails no one should answer, each from someone or something hob must let be. */
const UNANSWERED: {
  why: string;
  from: string;
  subject: string;
  headers?: Record<string, string>;
}[] = [
  { why: "a stranger", from: "stranger@test.local", subject: "Who are you" },
  {
    why: "an auto-reply",
    from: "owner@test.local",
    subject: "Automatic reply",
    headers: { "Auto-Submitted": "auto-replied" },
  },
  {
    why: "a vacation notice",
    from: "owner@test.local",
    subject: "Out of office",
    headers: { "X-Autoreply": "yes", Precedence: "junk" },
  },
  {
    why: "bulk mail",
    from: "owner@test.local",
    subject: "Big sale",
    headers: { Precedence: "bulk" },
  },
  {
    why: "a mailing list",
    from: "owner@test.local",
    subject: "Digest",
    headers: { "List-Id": "<news.test.local>", "List-Unsubscribe": "<mailto:u@test.local>" },
  },
  { why: "a bounce", from: "mailer-daemon@test.local", subject: "Undelivered Mail" },
  { why: "hob's own address", from: "hob@test.local", subject: "From myself" },
];

/** Stops hob and starts it again on the same home; the new one is connected. */
async function restart(hob: HobServer, home: string): Promise<HobServer> {
  assertEquals(await hob.stop(), 0, hob.stderr());
  const again = await startHob(home);
  await untilConnected(again, "email");
  return again;
}

Deno.test({
  name: "hob serve as shipped answers the owner's mail in its thread, and no one else's",
  ignore: missing !== null,
  async fn(t) {
    await using mail = await startMailServers();
    await using model = startFakeOpenAI({ fallback: { text: ANSWER } });
    await using home = await tempHome(fakeProviderYaml(model.url, emailYaml(mail)));
    let hob = await startHob(home.home);
    try {
      await t.step("the channel connects under hob's flags", async () => {
        const shown = await untilConnected(hob, "email");
        assertEquals(shown.account, "hob@test.local");
        await untilReading(home.home, "email");
        const status = await runHob(["status", "--home", home.home]);
        assertMatch(status.stdout, /channel\s+email hob@test\.local: connected/);
      });

      await t.step("the owner's mail is answered in its thread", async () => {
        await ownerSays(mail, "Plans", "What is on Friday?", { messageId: "<plans-1@test.local>" });
        const first = await untilAnswered(mail, "Plans");
        const reply = await parse(new TextEncoder().encode(first.source));
        assertEquals(reply.from?.value[0].address, "hob@test.local");
        assertEquals(reply.inReplyTo, "<plans-1@test.local>");
        assertEquals(reply.references, "<plans-1@test.local>");
        assertEquals(String(reply.headers.get("auto-submitted")), "auto-replied");
        assertMatch(reply.text ?? "", /Here is my answer\./);
        // The owner answers hob's reply: the same thread, the same conversation.
        const hobId = reply.messageId!;
        assertMatch(hobId, /^<hob\./);
        await ownerSays(mail, "Re: Plans", "And Saturday?", {
          messageId: "<plans-2@test.local>",
          inReplyTo: hobId,
          references: `<plans-1@test.local> ${hobId}`,
        });
        await mail.until(
          "owner@test.local",
          (box) => box.filter((each) => each.subject === "Re: Plans").length === 2,
          "hob's second answer in the thread",
        );
        const second = (await repliesTo(mail, "Plans"))
          .find((each) => each.inReplyTo === "<plans-2@test.local>");
        assert(second, "the second answer replies to the owner's second mail");
        assertEquals(second.references, ["<plans-1@test.local>", hobId, "<plans-2@test.local>"]);
        // The model read the first exchange with the second question: one conversation.
        const history = chats(model).at(-1)!;
        assert(history.some((message) => message.content === "Plans\n\nWhat is on Friday?"));
        assertEquals(asked(model), ["Plans\n\nWhat is on Friday?", "And Saturday?"]);
      });

      await t.step(
        "strangers, robots, lists and hob's own address are never answered",
        async () => {
          const ignoredBefore = (await shownChannel(hob, "email")).ignored;
          for (const each of UNANSWERED) {
            const before = (await mail.inbox("hob@test.local")).length;
            await mail.send({
              from: each.from,
              to: "hob@test.local",
              subject: each.subject,
              text: `Sent by ${each.why}: please answer.`,
              headers: each.from === "owner@test.local"
                ? { "Authentication-Results": VERIFIED, ...each.headers }
                : each.headers,
            });
            await mail.until(
              "hob@test.local",
              (box) => box.length > before,
              `${each.why} delivered`,
            );
          }
          // Each is in hob's mailbox before this one: answered, it shows they were read and let be.
          await ownerSays(mail, "After the others", "Anything new?");
          await untilAnswered(mail, "After the others");
          assertEquals(asked(model).at(-1), "After the others\n\nAnything new?");
          assertEquals(
            asked(model).filter((words) => /please answer/.test(words)),
            [],
          );
          const owners = (await mail.inbox("owner@test.local")).map((each) => each.subject);
          assertEquals(owners.sort(), ["Re: After the others", "Re: Plans", "Re: Plans"]);
          for (const user of ["stranger@test.local", "friend@test.local"] as const) {
            assertEquals(await mail.inbox(user), [], `${user} got mail`);
          }
          const fromHob = (await mail.inbox("hob@test.local"))
            .filter((each) => each.from === "hob@test.local").map((each) => each.subject);
          assertEquals(fromHob, ["From myself"], "hob wrote to itself");
          assertEquals(
            (await shownChannel(hob, "email")).ignored - ignoredBefore,
            UNANSWERED.length,
          );
          const pending = await (await hob.fetch("/api/channels/pending")).json();
          assertEquals(
            pending.strangers.map((each: { sender_id: string }) => each.sender_id),
            ["stranger@test.local"],
          );
        },
      );

      await t.step(
        "mail that came while hob was down is answered once, after restarts",
        async () => {
          assertEquals(await hob.stop(), 0, hob.stderr());
          await ownerSays(mail, "While you were down", "Did this reach you?");
          hob = await startHob(home.home);
          await untilConnected(hob, "email");
          await untilAnswered(mail, "While you were down");
          hob = await restart(hob, home.home);
          // A mail in the same thread: answered after anything else of the thread hob would answer.
          const first = (await repliesTo(mail, "While you were down"))[0];
          await ownerSays(mail, "Re: While you were down", "One more thing.", {
            inReplyTo: first.messageId,
            references: first.messageId,
          });
          await mail.until(
            "owner@test.local",
            (box) => box.filter((each) => each.subject === "Re: While you were down").length >= 2,
            "the answer in the thread after the second restart",
          );
          const down = "While you were down\n\nDid this reach you?";
          assertEquals(asked(model).filter((words) => words === down).length, 1, "asked twice");
          assertEquals(asked(model).at(-1), "One more thing.");
          const replies = await repliesTo(mail, "While you were down");
          assertEquals(replies.length, 2);
          assertEquals(
            replies.map((each) => each.inReplyTo).filter((id) => id === first.inReplyTo),
            [
              first.inReplyTo,
            ],
          );
        },
      );
    } finally {
      await hob.stop("SIGKILL");
    }
  },
});
