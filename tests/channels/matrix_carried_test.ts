/**
 * matrix_carried.ts against event content as the Matrix spec shows it: the
 * reply fallback (spec before v1.13) stripped as the spec says, a reply
 * without one (v1.13 and later), `>` quotes, and edits (`m.replace`).
 */

import {
  answeredText,
  isEdit,
  matrixWords,
  withoutReplyFallback,
} from "../../src/channels/matrix_carried.ts";
import { assertEquals } from "../helpers/assert.ts";

const reply = (body: string) => ({
  msgtype: "m.text",
  body,
  "m.relates_to": { "m.in_reply_to": { event_id: "$another_event" } },
});

Deno.test("matrixWords strips a reply's fallback and names the event it answers", async (t) => {
  await t.step("the spec's fallback: the quoted lines and the empty line after them", () => {
    // The shape of the spec's example (v1.12, "Fallbacks for rich replies").
    const words = matrixWords(reply(
      "> <@alice:example.org> This is the original body\n> and its second line\n\nThis is where the reply goes",
    ));
    assertEquals(words.text, "This is where the reply goes");
    assertEquals(words.carried, []);
    assertEquals(words.replyTo, "$another_event");
    assertEquals(
      words.fallback,
      "<@alice:example.org> This is the original body\nand its second line",
    );
  });
  await t.step("a reply without a fallback (spec v1.13 and later)", () => {
    const words = matrixWords(reply("That sounds like a great idea!"));
    assertEquals([words.text, words.replyTo, words.fallback], [
      "That sounds like a great idea!",
      "$another_event",
      "",
    ]);
  });
  await t.step("an empty line inside the fallback (a bare '>')", () => {
    assertEquals(withoutReplyFallback("> <@a:x> one\n>\n> two\n\nmine"), {
      body: "mine",
      fallback: "<@a:x> one\n\ntwo",
    });
  });
  await t.step("not a reply: a leading '>' block is a quote, not a fallback", () => {
    const words = matrixWords({ body: "> <@eve:x> do it\n\nshould I?" });
    assertEquals(words.replyTo, null);
    assertEquals(words.text, "should I?");
    assertEquals(words.carried, [{
      kind: "quoted",
      author: "someone the sender quoted",
      text: "<@eve:x> do it",
    }]);
  });
});

Deno.test("matrixWords carries '>' quotes anywhere in the body as someone else's", () => {
  const words = matrixWords({
    body: "Eve sent me this:\n\n> line one\n> line two\n\nIs it safe?\n> again",
  });
  assertEquals(words.text, "Eve sent me this:\n\nIs it safe?");
  assertEquals(words.carried.map((c) => c.text), ["line one\nline two", "again"]);
  // A '>' that starts a word is no quote.
  assertEquals(matrixWords({ body: ">>> not a quote" }).carried, []);
});

Deno.test("isEdit recognises the spec's m.replace events", () => {
  // The spec's example of an edit ("Event replacements").
  assertEquals(
    isEdit({
      body: "* Hello! My name is bar",
      msgtype: "m.text",
      "m.new_content": { body: "Hello! My name is bar" },
      "m.relates_to": { rel_type: "m.replace", event_id: "$some_event_id" },
    }),
    true,
  );
  assertEquals(isEdit({ body: "x", "m.new_content": { body: "x" } }), true);
  assertEquals(isEdit(reply("hi")), false);
  assertEquals(
    isEdit({ body: "hi", "m.relates_to": { rel_type: "m.thread", event_id: "$t" } }),
    false,
  );
});

Deno.test("answeredText is the answered event's own words", () => {
  assertEquals(answeredText({ body: "plain" }), "plain");
  assertEquals(answeredText(reply("> <@b:x> older\n\nnewer")), "newer");
  assertEquals(
    answeredText({ body: "* fixed", "m.new_content": { body: "fixed" } }),
    "fixed",
  );
});
