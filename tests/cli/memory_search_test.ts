/** `hob memory search` as a user types it: the lines that answer, --limit and --mode. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";
import { untrusted } from "../../src/core/untrusted.ts";

Deno.test("hob memory search shows the lines that answer, deep in a long log, and takes --limit and --mode", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  const turns = Array.from(
    { length: 30 },
    (_, i) => `${i % 2 ? "Jonas" : "Maya"}: turn ${i}, small talk about the weather this week.`,
  );
  turns[22] = "Maya: thinking about going camping in the Brecon Beacons next month!";
  await Deno.writeTextFile(
    `${home.home}/memory/chat.md`,
    `# Session 5 — 3 June 2025\n${turns.join("\n")}\n`,
  );

  const found = await runHob([
    "memory",
    "search",
    "when is Maya going camping",
    "--limit",
    "1",
    ...h,
  ]);
  assertEquals(found.code, 0, found.stderr);
  assertMatch(found.stdout, /^memory\/chat\.md:\d+-31 {2}Session 5 — 3 June 2025\n/);
  assertStringIncludes(found.stdout, "  Maya: thinking about going camping in the Brecon Beacons");
  assert(!found.stdout.includes("turn 0,"), found.stdout);

  const keyword = await runHob([
    "memory",
    "search",
    "weather",
    "--mode",
    "keyword",
    "--limit",
    "1",
    "--json",
    ...h,
  ]);
  assertEquals(keyword.code, 0, keyword.stderr);
  assertEquals(JSON.parse(keyword.stdout).hits.length, 1);

  for (
    const [args, message] of [
      [["--mode", "fuzzy"], /^hob memory search: 'mode': Invalid option/],
      [["--mode", "meaning"], /^hob memory search: 'mode': searching by meaning needs an embedder/],
      [["--limit", "0"], /--limit must be an integer from 1 to 50/],
    ] as const
  ) {
    const refused = await runHob(["memory", "search", "camping", ...args, ...h]);
    assert(refused.code !== 0, args.join(" "));
    assertMatch(refused.stderr, message);
  }
  const elsewhere = await runHob(["memory", "stats", "--mode", "keyword", ...h]);
  assertEquals([elsewhere.code, elsewhere.stderr], [
    2,
    "hob memory stats: --mode is for 'search' only\n",
  ]);
});

Deno.test("memory search shows people text from outside with where it came from, never its labels", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  await Deno.writeTextFile(
    `${home.home}/memory/recipes.md`,
    `# Recipes\n\nMy own: porridge with apples.\n\n${
      untrusted("web: example.org/pancakes", "Pancakes: flour, eggs, milk, a pinch of salt.")
    }\n`,
  );
  const found = await runHob(["memory", "search", "pancakes flour eggs", "--limit", "1", ...h]);
  assertEquals(found.code, 0, found.stderr);
  assert(
    !found.stdout.includes("<untrusted") && !found.stdout.includes("</untrusted"),
    found.stdout,
  );
  assertStringIncludes(found.stdout, "[from web: example.org/pancakes]");
  assertStringIncludes(found.stdout, "Pancakes: flour, eggs, milk");

  // The API keeps the snippet as the model reads it, and gives people its parts.
  await using hob = await startHob(home.home);
  const response = await hob.fetch("/api/memory/search?q=pancakes%20flour&limit=1");
  const [hit] = (await response.json()).hits;
  assertStringIncludes(hit.snippet, '<untrusted source="web: example.org/pancakes">');
  const outside = hit.display.find((part: { source: string | null }) => part.source !== null);
  assertEquals(outside.source, "web: example.org/pancakes");
  assertStringIncludes(outside.text, "Pancakes: flour, eggs, milk");
  assert(hit.display.every((part: { text: string }) => !part.text.includes("untrusted")));

  // The page shows the source as a marker, the text as text.
  const page = await (await hob.fetch("/ui/memory/search?q=pancakes%20flour")).text();
  assert(!page.includes("&lt;untrusted") && !page.includes("<untrusted"), page);
  assertStringIncludes(page, '<span class="source">from web: example.org/pancakes</span>');
});
