/**
 * hob orders text without ICU's collator (src/core/text_order.ts): the first
 * `localeCompare` of a process or a tool's Worker costs ~7 ms of locale data.
 */

import { assertEquals } from "../helpers/assert.ts";
import { compareText } from "../../src/core/text_order.ts";

const SRC = new URL("../../src/", import.meta.url);

Deno.test("compareText ignores case first, then orders by code units", () => {
  assertEquals(
    ["b.md", "B.md", "a.md", "A.md", "_x", "10", "9", "é"].sort(compareText),
    ["10", "9", "_x", "A.md", "a.md", "B.md", "b.md", "é"],
  );
  assertEquals(compareText("same", "same"), 0);
  assertEquals(
    ["2026-11-27T10:00:00.000Z", "2026-11-27T09:00:00.000Z"].sort(compareText),
    ["2026-11-27T09:00:00.000Z", "2026-11-27T10:00:00.000Z"],
  );
});

Deno.test("src/ never calls localeCompare", async () => {
  const calls: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (
        entry.name.endsWith(".ts") && /\.localeCompare\(/.test(await Deno.readTextFile(url))
      ) {
        calls.push(url.pathname.slice(SRC.pathname.length));
      }
    }
  };
  await walk(SRC);
  assertEquals(calls, [], "use compareText (src/core/text_order.ts)");
});
