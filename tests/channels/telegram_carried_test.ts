/**
 * telegram_carried.ts against Message objects as the Bot API sends them:
 * forwards (forward_origin of each type, and the fields of servers before
 * Bot API 7.0), inline bots, replies in the same chat and in another, quotes
 * and blockquotes — and what stays the sender's own.
 */

import { telegramWords } from "../../src/channels/telegram_carried.ts";
import type { TelegramMessage } from "../../src/channels/telegram_types.ts";
import { assertEquals } from "../helpers/assert.ts";

const SELF = "999";
const ADA = { id: 42, is_bot: false, first_name: "Ada", username: "ada" };
const EVE = { id: 7777, is_bot: false, first_name: "Eve", last_name: "Mallory" };
const HOB = { id: 999, is_bot: true, first_name: "hob", username: "hob_bot" };
const DM = { id: 42, type: "private", first_name: "Ada" };
const date = 1_700_000_000;

/** A message from Ada in her chat with hob, with `fields` added. */
function message(fields: Partial<TelegramMessage>): TelegramMessage {
  return { message_id: 12, date, chat: DM, from: ADA, ...fields } as TelegramMessage;
}

Deno.test("telegramWords: a message the sender wrote is theirs alone", () => {
  assertEquals(telegramWords(message({ text: "Write the notes file." }), SELF), {
    text: "Write the notes file.",
    carried: [],
    passedOn: null,
  });
});

Deno.test("telegramWords: a forwarded message is wholly its author's", async (t) => {
  const cases: [string, Partial<TelegramMessage>, string][] = [
    [
      "a known user",
      { forward_origin: { type: "user", date, sender_user: EVE } },
      "Eve Mallory (7777)",
    ],
    [
      "a user who hides their account",
      { forward_origin: { type: "hidden_user", date, sender_user_name: "Eve M." } },
      "Eve M. (hidden)",
    ],
    [
      "a group, on its own behalf",
      {
        forward_origin: {
          type: "chat",
          date,
          sender_chat: { id: -100123, type: "supergroup", title: "Market" },
          author_signature: "Admin",
        },
      },
      "Admin in Market (-100123)",
    ],
    [
      "a channel post",
      {
        forward_origin: {
          type: "channel",
          date,
          chat: { id: -100456, type: "channel", title: "Deals", username: "deals" },
          message_id: 77,
        },
      },
      "@deals (-100456)",
    ],
    [
      "an older Bot API server's forward_from",
      { forward_from: EVE, forward_date: date },
      "Eve Mallory (7777)",
    ],
    [
      "an older server's hidden sender",
      { forward_sender_name: "Eve", forward_date: date },
      "Eve (hidden)",
    ],
    ["an older server's channel", {
      forward_from_chat: { id: -100456, type: "channel", title: "Deals" },
      forward_date: date,
    }, "Deals (-100456)"],
  ];
  for (const [name, fields, author] of cases) {
    await t.step(name, () => {
      const words = telegramWords(message({ text: "You won!", ...fields }), SELF);
      assertEquals(words.text, "");
      assertEquals(words.carried, [{ kind: "forwarded", author, text: "You won!" }]);
      assertEquals(words.passedOn, { kind: "forwarded", author });
    });
  }
  await t.step("a forwarded photo's caption, and its files (passedOn)", () => {
    const words = telegramWords(
      message({ caption: "Look", forward_origin: { type: "user", date, sender_user: EVE } }),
      SELF,
    );
    assertEquals(words.carried[0].text, "Look");
    assertEquals(words.passedOn?.kind, "forwarded");
  });
  await t.step("the sender's own message, forwarded, is still theirs", () => {
    const words = telegramWords(
      message({ text: "note to self", forward_origin: { type: "user", date, sender_user: ADA } }),
      SELF,
    );
    assertEquals(words, { text: "note to self", carried: [], passedOn: null });
  });
});

Deno.test("telegramWords: a message an inline bot wrote is the bot's", () => {
  const words = telegramWords(
    message({
      text: "Paris is the capital",
      via_bot: { id: 31337, is_bot: true, username: "wiki" },
    }),
    SELF,
  );
  assertEquals(words.text, "");
  assertEquals(words.carried, [{
    kind: "inline_bot",
    author: "@wiki (31337)",
    text: "Paris is the capital",
  }]);
});

Deno.test("telegramWords: what a message answers or quotes is its author's", async (t) => {
  const evesMessage = { message_id: 5, date, chat: DM, from: EVE, text: "Send me the code" };
  await t.step("a reply: the answered message, as its author's", () => {
    const words = telegramWords(
      message({ text: "Should I?", reply_to_message: evesMessage }),
      SELF,
    );
    assertEquals(words.text, "Should I?");
    assertEquals(words.carried, [{
      kind: "replied",
      author: "Eve Mallory (7777)",
      text: "Send me the code",
    }]);
  });
  await t.step("a reply quoting part of it: the quote", () => {
    const words = telegramWords(
      message({
        text: "This?",
        reply_to_message: evesMessage,
        quote: { text: "the code", position: 10, is_manual: true },
      }),
      SELF,
    );
    assertEquals(words.carried, [{
      kind: "quoted",
      author: "Eve Mallory (7777)",
      text: "the code",
    }]);
  });
  await t.step("a reply to a forwarded message: its first author's", () => {
    const words = telegramWords(
      message({
        text: "Hm",
        reply_to_message: {
          ...evesMessage,
          from: ADA,
          forward_origin: { type: "hidden_user", date, sender_user_name: "Mallory" },
        },
      }),
      SELF,
    );
    assertEquals(words.carried[0].author, "Mallory (hidden)");
  });
  await t.step("a reply to a message in another chat: the quote, by the origin", () => {
    const words = telegramWords(
      message({
        text: "Is this right?",
        external_reply: {
          origin: { type: "user", date, sender_user: EVE },
          chat: { id: -1005555, type: "supergroup", title: "Market" },
        },
        quote: { text: "Cheap!", position: 0 },
      }),
      SELF,
    );
    assertEquals(words.carried, [{ kind: "quoted", author: "Eve Mallory (7777)", text: "Cheap!" }]);
  });
  await t.step("a reply to hob's own message: already in the conversation, not repeated", () => {
    const words = telegramWords(
      message({ text: "Yes", reply_to_message: { ...evesMessage, from: HOB, text: "Shall I?" } }),
      SELF,
    );
    assertEquals(words, { text: "Yes", carried: [], passedOn: null });
  });
  await t.step("a quote of hob's own message: carried, as hob may have repeated anyone", () => {
    const words = telegramWords(
      message({
        text: "Why?",
        reply_to_message: { ...evesMessage, from: HOB, text: "The page said: do X" },
        quote: { text: "do X", position: 15, is_manual: true },
      }),
      SELF,
    );
    assertEquals(words.carried, [{
      kind: "quoted",
      author: "hob itself (an earlier message of its own)",
      text: "do X",
    }]);
  });
  await t.step("a reply to the sender's own message: theirs", () => {
    const words = telegramWords(
      message({ text: "and also", reply_to_message: { ...evesMessage, from: ADA } }),
      SELF,
    );
    assertEquals(words.carried, []);
  });
});

Deno.test("telegramWords: a blockquote the sender formatted is someone else's", () => {
  // Offsets count UTF-16 code units: the emoji before the quote takes two.
  const quoted = "Eve: send the code";
  const text = `🙂 She wrote\n${quoted}\nShould I?`;
  const words = telegramWords(
    message({
      text,
      entities: [
        { type: "bold", offset: 0, length: 2 },
        { type: "expandable_blockquote", offset: text.indexOf(quoted), length: quoted.length },
      ],
    }),
    SELF,
  );
  assertEquals(words.text, "🙂 She wrote\n\nShould I?");
  assertEquals(words.carried, [{
    kind: "quoted",
    author: "someone the sender quoted",
    text: quoted,
  }]);
});
