/**
 * The embedding queue with a real SQLite file: it keeps two batches in
 * flight (so every model thread has work between batches), reports its
 * progress and rate, and with the real USE-lite model writes the same vectors
 * on two threads as on one.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { until } from "../helpers/until.ts";
import { type Embedder, normalize } from "../../src/memory/embedder.ts";
import { type IndexProgress, MemoryIndex } from "../../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../../src/memory/use_lite.ts";
import { openDatabase } from "../../src/store/database.ts";

/** `sections` sections of ~500 characters, 20 to a file: a chunk each. */
async function writeNotes(dir: string, sections: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (let f = 0; f * 20 < sections; f++) {
    const parts = [`# Notes ${f}`];
    for (let s = f * 20; s < Math.min(sections, (f + 1) * 20); s++) {
      parts.push(
        `## Topic ${s}\n\n${`Topic ${s} is about item ${s % 7} and place ${s % 5}. `.repeat(14)}`,
      );
    }
    await Deno.writeTextFile(`${dir}/notes-${f}.md`, parts.join("\n\n"));
  }
}

async function tempHome(sections: number) {
  const home = await Deno.makeTempDir({ prefix: "hob-embedding-queue-" });
  await writeNotes(`${home}/memory`, sections);
  return {
    home,
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** An embedder that answers each call only when the test says, counting the calls in flight. */
function gatedEmbedder() {
  const waiting: (() => void)[] = [];
  const state = { inFlight: 0, most: 0, calls: 0 };
  const embedder: Embedder = {
    id: "gated@1",
    maxChars: 450,
    isReady: () => true,
    load: () => Promise.resolve(),
    embed(texts) {
      state.calls++;
      state.most = Math.max(state.most, ++state.inFlight);
      return new Promise((resolve) =>
        waiting.push(() => {
          state.inFlight--;
          resolve(texts.map((_, i) => normalize([1, i + 1])));
        })
      );
    },
    close() {},
  };
  return { embedder, waiting, state };
}

Deno.test("EmbeddingQueue asks for the next batch while one is being embedded, two at most", async () => {
  await using t = await tempHome(200);
  const { embedder, waiting, state } = gatedEmbedder();
  const db = openDatabase(`${t.home}/hob.db`);
  const index = new MemoryIndex(db, `${t.home}/memory`, embedder);
  try {
    const progress: IndexProgress[] = [];
    const synced = index.sync((p) => progress.push(p), true);
    let finished = false;
    synced.then(() => finished = true, () => finished = true);
    await until(() => state.calls === 2, "the second batch to be asked for");
    assertEquals(state.inFlight, 2, "the second batch was asked for before the first was answered");
    while (!finished) {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await synced;
    assertEquals(state.most, 2);
    assertEquals(index.stats().pending, 0);
    const embedding = progress.filter((p) => p.phase === "embedding");
    assertEquals(embedding.map((p) => p.done), [64, 128, 192, 200]);
    assert(embedding.every((p) => p.total === 200 && p.seconds >= 0 && p.perSecond >= 0));
  } finally {
    await index.stop();
    db.close();
  }
});

Deno.test({
  name: "MemoryIndex writes the same vectors on two model threads as on one",
  // The embedder caps its threads at the machine's cores.
  ignore: navigator.hardwareConcurrency < 2,
  async fn() {
    await using t = await tempHome(40);
    const vectors = async (threads: number) => {
      const model = createUseLiteEmbedder({ threads });
      let most = 0;
      // Counts the model threads right after each batch is asked for: a helper starts then.
      const embedder: Embedder = {
        ...model,
        embed(texts, kind) {
          const embedded = model.embed(texts, kind);
          most = Math.max(most, model.runningThreads());
          return embedded;
        },
      };
      const db = openDatabase(`${t.home}/hob-${threads}.db`);
      const index = new MemoryIndex(db, `${t.home}/memory`, embedder);
      try {
        await index.sync(undefined, true);
        const rows = db.prepare(
          `SELECT c.path, c.seq, v.window, v.vector FROM memory_vectors v
             JOIN memory_chunks c ON c.id = v.chunk_id ORDER BY c.path, c.seq, v.window`,
        ).all();
        return { rows, most };
      } finally {
        await index.stop();
        db.close();
        model.close();
      }
    };
    const one = await vectors(1);
    const two = await vectors(2);
    assertEquals([one.most, two.most], [1, 2]);
    assert(one.rows.length >= 80, `${one.rows.length} windows: too few for a backlog`);
    assertEquals(two.rows, one.rows);
  },
});

Deno.test("MemoryIndex.reindex ends a deferred run after its batches in flight, not after its last", async () => {
  await using t = await tempHome(200);
  const { embedder, waiting, state } = gatedEmbedder();
  const db = openDatabase(`${t.home}/hob.db`);
  const index = new MemoryIndex(db, `${t.home}/memory`, embedder);
  try {
    await index.sync();
    await until(() => state.calls === 2, "the deferred run's two batches");
    const rebuilt = index.reindex();
    let finished = false;
    rebuilt.then(() => finished = true, () => finished = true);
    while (!finished) {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await rebuilt;
    // Two batches of the deferred run, then the rebuild's four: none for chunks about to go.
    assertEquals(state.calls, 2 + 4);
    assertEquals(index.stats().pending, 0);
  } finally {
    await index.stop();
    db.close();
  }
});
