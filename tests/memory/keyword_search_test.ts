/** The keyword side of memory search: which words of a query are matched, and how hits score. */

import { assert, assertEquals } from "../helpers/assert.ts";
import {
  keywordRanking,
  queryTerms,
  type TermCounts,
  termWeights,
} from "../../src/memory/keyword_search.ts";
import { openDatabase } from "../../src/store/database.ts";
import { type Sql, type Statement, statements } from "../../src/store/statements.ts";

/** An index of one file whose chunks the test inserts (`insert.run(seq, text)`), in a temporary home. */
async function chunksIndex() {
  const home = await Deno.makeTempDir({ prefix: "hob-keyword-" });
  const db = openDatabase(`${home}/hob.db`);
  const sql = statements(db);
  sql("INSERT INTO memory_files (path, hash, size, indexed_at) VALUES ('a.md', '', 0, '')").run();
  const insert = sql(
    "INSERT INTO memory_chunks (path, seq, heading, start_line, end_line, text, hash) VALUES ('a.md', ?, '', 1, 1, ?, '')",
  );
  return {
    sql,
    insert,
    async [Symbol.asyncDispose]() {
      db.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

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

Deno.test("keywordRanking scores every query term once, in a chunk of average length, at 1", async () => {
  await using index = await chunksIndex();
  const { sql, insert } = index;
  // Every chunk four words long, so each is of average length.
  const texts = [
    "kyoto ryokan onsen breakfast",
    "kyoto temple garden walk",
    "lisbon tram hill view",
    "bristol harbour ferry boat",
    "oat milk flat white",
    "boiler pressure filling loop",
    "garlic planted raised beds",
    "passport renewal spring travel",
  ];
  const ids = texts.map((text, seq) => Number(insert.run(seq, text).lastInsertRowid));
  const ranking = keywordRanking(sql, "which kyoto ryokan", () => texts.length);
  assertEquals(ranking.map((hit) => hit.id), [ids[0], ids[1]]);
  // FTS5 computes the score; the test only knows what a full match must come to.
  assertClose(ranking[0].score, 1);
  const idf = (n: number) => Math.log((texts.length - n + 0.5) / (n + 0.5));
  // One of the two terms: its share of the score, scaled by the square root of its share.
  const share = idf(2) / (idf(2) + idf(1));
  assertClose(ranking[1].score, share * Math.sqrt(share));
  // A word found nowhere counts against every chunk: half the question is unmatched.
  const partly = keywordRanking(sql, "kyoto ryokan zanzibar", () => texts.length);
  assert(partly[0].score < 0.6, `${partly[0].score}`);
});

Deno.test("keywordRanking puts a chunk holding more of the query above one repeating a word of it", async () => {
  await using index = await chunksIndex();
  const { sql, insert } = index;
  const texts = [
    "onsen onsen onsen towels", // the rarer word three times: BM25 alone ranks it first
    "onsen booking confirmed friday", // both words once
    "booking train seats reserved",
    "booking dentist checkup tuesday",
    "lisbon tram hill view",
    "bristol harbour ferry boat",
    "oat milk flat white",
    "garlic planted raised beds",
  ];
  const ids = texts.map((text, seq) => Number(insert.run(seq, text).lastInsertRowid));
  const ranking = keywordRanking(sql, "onsen booking", () => texts.length);
  assertEquals(ranking.slice(0, 2).map((hit) => hit.id), [ids[1], ids[0]]);
  assertClose(ranking[0].score, 1);
});

Deno.test("A search counts each term's chunks once: the passages' weights reuse the ranking's counts", async () => {
  await using index = await chunksIndex();
  const { sql, insert } = index;
  const texts = [
    "kyoto ryokan onsen breakfast",
    "kyoto temple garden walk",
    "walking the kyoto hills",
    "lisbon tram hill view",
    "oat milk flat white",
  ];
  texts.forEach((text, seq) => insert.run(seq, text));
  const counted: unknown[] = [];
  const watched: Sql = <Row>(text: string): Statement<Row> => {
    const statement = sql<Row>(text);
    if (!text.startsWith("SELECT COUNT(*) AS n FROM memory_fts")) return statement;
    return {
      ...statement,
      one: (...params) => (counted.push(...params), statement.one(...params)),
    };
  };
  // A term found nowhere, and two words of one stem ("walk").
  const query = "which kyoto ryokan for a walk, walking or zanzibar";
  const alone = termWeights(sql, query, () => texts.length);
  const counts: TermCounts = new Map();
  keywordRanking(watched, query, () => texts.length, counts);
  const reused = termWeights(watched, query, () => texts.length, counts);
  assertEquals([...reused], [...alone]);
  assertEquals(counted, ['"kyoto"', '"ryokan"', '"walk"', '"walking"', '"zanzibar"']);
  // Without the ranking's counts (a search by meaning alone), the weights count for themselves.
  assertEquals([...termWeights(watched, query, () => texts.length)], [...alone]);
  assertEquals(counted.length, 10);
});

function assertClose(actual: number, expected: number): void {
  assert(Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);
}
