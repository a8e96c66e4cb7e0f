/** The keyword side of memory search: which words of a query are matched, and how hits score. */

import { assertEquals } from "../helpers/assert.ts";
import { queryTerms } from "../../src/memory/keyword_search.ts";

Deno.test("queryTerms keeps the words a question is about and drops its frame", async (t) => {
  await t.step("stop words, single letters and duplicates go; a digit stays", () => {
    assertEquals(queryTerms("Where is the 2 o'clock train? The train!"), ["2", "clock", "train"]);
  });
  await t.step("the quantity after 'how' goes, the same word elsewhere stays", () => {
    assertEquals(queryTerms("how much does the pet insurance cost"), ["pet", "insurance", "cost"]);
    assertEquals(queryTerms("How long was the talk?"), ["talk"]);
    assertEquals(queryTerms("which long-distance trail"), ["long", "distance", "trail"]);
  });
  await t.step("auxiliaries and negated auxiliaries go", () => {
    assertEquals(queryTerms("can I take the painkiller"), ["take", "painkiller"]);
    assertEquals(queryTerms("why don't we use app notifications"), ["use", "app", "notifications"]);
    assertEquals(queryTerms("why can’t we get a kitten"), ["get", "kitten"]);
    assertEquals(queryTerms("what am I aiming for"), ["aiming"]);
  });
  await t.step("a month that is also an auxiliary stays", () => {
    assertEquals(queryTerms("what renews in May"), ["renews", "may"]);
  });
});
