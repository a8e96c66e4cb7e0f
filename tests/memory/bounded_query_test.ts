/** The bounded query: a text of any size becomes a query of a few thousand characters, both ends kept. */

import { assert, assertEquals } from "../helpers/assert.ts";
import { boundedQuery } from "../../src/memory/bounded_query.ts";

Deno.test("boundedQuery keeps a short text whole", () => {
  assertEquals(boundedQuery("where did I park?", 100), "where did I park?");
  assertEquals(boundedQuery("x".repeat(100), 100), "x".repeat(100));
});

Deno.test("boundedQuery keeps the head and the tail of a long text, cut between words", () => {
  const text = `Opening words here. ${"filler text ".repeat(10_000)}Which hotel in Kyoto?`;
  const query = boundedQuery(text, 200);
  assert(query.length <= 200 + 3, `${query.length} characters`);
  assert(query.startsWith("Opening words here."), query);
  assert(query.endsWith("Which hotel in Kyoto?"), query);
  assert(query.includes(" … "), "the gap is marked");
  for (const word of query.split(/\s+/)) {
    assert(
      ["filler", "text", "…", "Opening", "words", "here.", "Which", "hotel", "in", "Kyoto?"]
        .includes(word),
      `a cut word: '${word}'`,
    );
  }
});

Deno.test("boundedQuery cuts a text without spaces at the limit", () => {
  const query = boundedQuery("y".repeat(50_000), 40);
  assertEquals(query, `${"y".repeat(20)} … ${"y".repeat(20)}`);
});
