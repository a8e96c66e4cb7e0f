/** The labelling step of a tool call, alone: which output is vouched for and which is labelled. */

import { assert, assertEquals } from "../helpers/assert.ts";
import { carriedTaint, labelOutput, type RawOutput } from "../../src/tools/call_label.ts";
import { isMarked, untrusted, untrustedSource } from "../../src/core/untrusted.ts";

const raw = (content: string, more: Partial<RawOutput> = {}): RawOutput => ({
  content,
  is_error: false,
  own: false,
  carried: null,
  ...more,
});
const reader = { name: "fetch_url" };
const writer = { name: "write_file", untrusted_output: false };

Deno.test("labelOutput labels what a tool read from outside, errors included", async (t) => {
  await t.step("output: labelled with the tool and what it was given", () => {
    const text = labelOutput(raw("<p>hi</p>"), reader, { url: "https://x.example" }, 1_000);
    assertEquals(untrustedSource(text), "fetch_url: https://x.example");
  });
  await t.step("an error from inside the tool: labelled the same", () => {
    const text = labelOutput(raw("boom", { is_error: true }), reader, {}, 1_000);
    assertEquals(untrustedSource(text), "fetch_url");
  });
  await t.step("hob's own message (a timeout): vouched for as it is", () => {
    assertEquals(
      labelOutput(raw("fetch_url timed out", { own: true }), reader, {}, 5),
      "fetch_url timed out",
    );
  });
  await t.step("output over the cap is cut before it is labelled", () => {
    const text = labelOutput(raw("x".repeat(5_000)), reader, {}, 1_000);
    assert(isMarked(text));
    assert(text.length < 1_100, `${text.length}`);
  });
});

Deno.test("labelOutput vouches for a hob-output tool only while nothing outside reached it", async (t) => {
  await t.step("its own words: as they are", () => {
    assertEquals(labelOutput(raw("Wrote 3 bytes"), writer, { path: "a" }, 1_000), "Wrote 3 bytes");
  });
  await t.step("labelled data a hob service handed it: labelled, saying so", () => {
    const text = labelOutput(
      raw("Done", { carried: "what tasks.list returned" }),
      writer,
      {},
      1_000,
    );
    assertEquals(untrustedSource(text), "write_file, with what tasks.list returned");
  });
  await t.step("a label inside its output: the whole is labelled", () => {
    const text = labelOutput(raw(`Saw: ${untrusted("web", "x")}`), writer, {}, 1_000);
    assert(isMarked(text));
  });
  await t.step("output labelled whole already: kept, not labelled twice", () => {
    const whole = untrusted("mcp:fs/read", "text");
    assertEquals(labelOutput(raw(whole), reader, {}, 1_000), whole);
  });
});

Deno.test("carriedTaint sees labels and tainted records anywhere in a host's answer", () => {
  assert(carriedTaint({ items: [{ text: untrusted("web", "x") }] }));
  assert(carriedTaint([{ id: 1, taint: "fetch_url: https://x" }]));
  assert(!carriedTaint({ id: 1, taint: null }));
  assert(!carriedTaint(undefined));
});
