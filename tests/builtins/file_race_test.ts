/**
 * The check-then-open race, run for real: while a second process keeps
 * swapping a directory in the workspace between a real directory and a
 * symlink to a directory outside (which holds a secret file of the same
 * name), read_file is called through the registry and its Workers, and must
 * never return the secret.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";
import { startSwapper } from "../tools/swapper.ts";

/** Calls made while the swapper runs. */
const CALLS = 500;
const INSIDE = "an ordinary note inside the workspace";
const SECRET = "TOP SECRET: outside the workspace";

/** What one read_file call came back with. */
type Outcome = "secret" | "inside" | "changed" | "missing" | "refused" | "other";

function classify(content: string, isError: boolean): Outcome {
  if (content.includes("TOP SECRET")) return "secret";
  if (!isError && content === INSIDE) return "inside";
  if (/moved or swapped/.test(content)) return "changed";
  if (/does not exist|vanished/.test(content)) return "missing";
  if (/outside the allowed directories|symbolic link/.test(content)) return "refused";
  return "other";
}

Deno.test({
  name: "read_file never returns a file outside while a directory is swapped for a link",
  // It keeps a core busy swapping for a minute or more; CI runs it in a step of its own (.ci/run)
  // rather than beside the parallel suite, whose other tests it would slow.
  ignore: Deno.env.get("HOB_RACE_TEST_APART") === "1",
}, async () => {
  await using r = await tempRegistry();
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-outside-" }));
  try {
    await Deno.mkdir(`${outside}/box`);
    await Deno.writeTextFile(`${outside}/box/secret.txt`, SECRET);
    await Deno.mkdir(`${r.workspace}/box`);
    await Deno.writeTextFile(`${r.workspace}/box/secret.txt`, INSIDE);
    await Deno.symlink(`${outside}/box`, `${r.workspace}/parked-link`);
    const others: string[] = [];
    const call = async () => {
      const result = await r.registry.execute(
        { id: "1", name: "read_file", arguments: JSON.stringify({ path: "box/secret.txt" }) },
        { conversation_id: null },
      );
      const content = unmark(result.content);
      const outcome = classify(content, result.is_error);
      if (outcome === "other") others.push(content);
      return outcome;
    };
    // Before any swapping the file reads normally: the defence costs nothing when no one races.
    assertEquals(await call(), "inside");

    const swapper = await startSwapper(
      `${r.workspace}/box`,
      `${r.workspace}/parked-dir`,
      `${r.workspace}/parked-link`,
    );
    const counts: Record<Outcome, number> = {
      secret: 0,
      inside: 0,
      changed: 0,
      missing: 0,
      refused: 0,
      other: 0,
    };
    try {
      for (let i = 0; i < CALLS; i++) counts[await call()]++;
    } finally {
      const cycles = await swapper.stop();
      console.log(
        `read_file, ${CALLS} calls during ${cycles} swap cycles: ${JSON.stringify(counts)}`,
      );
      for (const text of new Set(others)) console.log(`  other: ${text.slice(0, 200)}`);
      assert(cycles > 0, "the swapper never swapped");
    }
    assertEquals(counts.secret, 0, `the secret leaked ${counts.secret} time(s)`);
    // The race was live: calls met the link (refused) or a swap under them (changed).
    assert(counts.refused + counts.changed > 0, JSON.stringify(counts));
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
