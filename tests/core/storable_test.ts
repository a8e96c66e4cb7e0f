import { storableText, unstorableText } from "../../src/core/storable.ts";
import { checkInput } from "../../src/app/errors.ts";
import { ActionError } from "../../src/app/errors.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { z } from "zod";

Deno.test("unstorableText finds a NUL or a lone surrogate anywhere, by its path", async (t) => {
  await t.step("whole text, control characters included, is storable", () => {
    const text = "tab\t, bell\u0007, escape\u001b, é, 😀, \u2028, \uFFFD";
    assertEquals(unstorableText({ message: text, list: [text], n: 1, none: null }), undefined);
  });
  await t.step("a NUL, by field and character", () => {
    assertEquals(unstorableText({ message: "a😀\u0000b" }), {
      field: "message",
      problem: "holds a NUL character (U+0000) at character 2, which hob cannot store — remove it",
    });
  });
  await t.step("a lone surrogate, high or low", () => {
    assertEquals(unstorableText({ a: { b: ["ok", "x\ud83d"] } })?.field, "a.b.1");
    assertEquals(
      unstorableText({ text: "\udc00" })?.problem,
      "holds a lone surrogate (U+DC00) at character 0, half of a character — send the whole character",
    );
  });
  await t.step("a key's own name", () => {
    assertEquals(unstorableText({ args: { "pa\u0000th": "x" } }), {
      field: "args.pa\u0000th",
      problem:
        "its name holds a NUL character (U+0000) at character 2, which hob cannot store — remove it",
    });
  });
  await t.step("a bare string is 'input'", () => {
    assertEquals(unstorableText("\u0000")?.field, "input");
  });
});

Deno.test("storableText marks what cannot be stored and keeps the rest", () => {
  assertEquals(storableText("before\u0000after \ud83d 😀"), "before\uFFFDafter \uFFFD 😀");
  assertEquals(storableText("plain"), "plain");
});

Deno.test("checkInput refuses unstorable text before the schema, naming the field", () => {
  const schema = z.object({ title: z.string().trim() });
  const error = assertThrows(
    () => checkInput(schema, { title: " a\u0000b " }),
    ActionError,
  ) as ActionError;
  assertEquals([error.code, error.field], ["invalid", "title"]);
  assertEquals(checkInput(schema, { title: " a😀b " }), { title: "a😀b" });
});

Deno.test("unstorableText reads only JSON's shapes: bytes are not text", () => {
  const audio = new Uint8Array([0, 1, 2]);
  assertEquals(unstorableText({ audio, name: "a.wav" }), undefined);
  assertEquals(unstorableText({ when: new Date(0), name: "x\u0000" })?.field, "name");
});
