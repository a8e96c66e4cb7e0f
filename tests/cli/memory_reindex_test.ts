/** `hob memory reindex` as a user runs it: a progress bar with its rate at a terminal, and a last line saying how long and how fast. */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { runHob, runHobInTerminal } from "../helpers/hob_process.ts";

const LAST_LINE =
  /^Indexed \d+ file\(s\): (\d+) chunks, (\d+) vectors \(([^)]+)\) in \d+\.\d s, \d+(\.\d)? chunks\/s\.$/m;

Deno.test("hob memory reindex says how long it took and how fast it went", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  await Deno.writeTextFile(
    `${home.home}/memory/trip.md`,
    "# Trip\n\n## Kyoto\nTemples at dawn.\n\n## Osaka\nStreet food by the river.\n",
  );
  const result = await runHob(["memory", "reindex", "--home", home.home]);
  assertEquals([result.code, result.stderr], [0, ""], "no bar when stderr is not a terminal");
  const [, chunks, vectors, embedder] = result.stdout.match(LAST_LINE) ?? [];
  assertEquals([Number(chunks) > 0, vectors, embedder], [true, "0", "keyword search only"]);
});

Deno.test("hob memory reindex at a terminal shows each phase's progress and rate", async () => {
  await using home = await tempHome("memory: { embedder: use-lite }\n");
  const { code, transcript } = await runHobInTerminal(["memory", "reindex", "--home", home.home]);
  assertEquals(code, 0, transcript);
  assertMatch(transcript, /files\s+\[█+\] (\d+)\/\1 files · \d+(\.\d)?\/s/);
  assertMatch(transcript, /embedding \[█+\] (\d+)\/\1 chunks · \d+(\.\d)?\/s/);
  const [, chunks, vectors] = transcript.match(LAST_LINE) ?? [];
  assertEquals(Number(vectors) >= Number(chunks) && Number(chunks) > 0, true, transcript);
});
