/**
 * The embedding model's threads, with the real USE-lite model in real
 * Workers: a backlog shared by two threads gives the vectors one gives, in
 * order; queries still go first; the helper leaves when the backlog drains;
 * closing stops every Worker. Ordering and events only, never timing.
 */

import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { until } from "../helpers/until.ts";
import { HELPER_BACKLOG } from "../../src/memory/model_threads.ts";
import { createUseLiteEmbedder } from "../../src/memory/use_lite.ts";

/** Two threads need two cores: the embedder caps its threads at the machine's. */
const ignore = navigator.hardwareConcurrency < 2;

/** A sentence to make a note as long as a full window. */
const FILLER = " It was written down so it would not be forgotten, with the date and the place."
  .repeat(8);

/**
 * Distinct texts, so a vector given to the wrong text would show, each 400
 * characters long like a backlog's full windows: four go to a request.
 */
function notes(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `Note ${i}: ${["the spare key", "Grace's birthday", "the boiler"][i % 3]} is ${i}.${FILLER}`
        .slice(0, 400),
  );
}

Deno.test({
  name: "ModelThreads gives a backlog the same vectors, in order, on two threads as on one",
  ignore,
  async fn() {
    const texts = notes(48);
    const one = createUseLiteEmbedder({ threads: 1 });
    const two = createUseLiteEmbedder({ threads: 2 });
    try {
      const alone = await one.embed(texts, "document");
      assertEquals(one.runningThreads(), 1);
      const shared = two.embed(texts, "document");
      assertEquals(two.runningThreads(), 2, "a backlog of 12 requests starts a helper");
      assertEquals(await shared, alone);
    } finally {
      one.close();
      two.close();
    }
  },
});

Deno.test({
  name: "ModelThreads starts no helper for a write smaller than a backlog",
  ignore,
  async fn() {
    const embedder = createUseLiteEmbedder({ threads: 2 });
    try {
      // One request running, the rest waiting: one fewer than a backlog.
      const vectors = embedder.embed(notes(4 * HELPER_BACKLOG), "document");
      assertEquals(embedder.runningThreads(), 1);
      assertEquals((await vectors).length, 4 * HELPER_BACKLOG);
      assertEquals(embedder.runningThreads(), 1);
    } finally {
      embedder.close();
    }
  },
});

Deno.test({
  name: "ModelThreads answers a query asked during a backlog before the backlog ends",
  ignore,
  async fn() {
    const embedder = createUseLiteEmbedder({ threads: 2 });
    try {
      await embedder.load();
      const answered: string[] = [];
      const documents = embedder.embed(notes(96), "document").then(() => {
        answered.push("documents");
      });
      assertEquals(embedder.runningThreads(), 2);
      const query = embedder.embed(["where is the spare key?"], "query").then(([vector]) => {
        answered.push("query");
        return vector;
      });
      const [, vector] = await Promise.all([documents, query]);
      assertEquals(answered, ["query", "documents"], "the query waited for 96 documents");
      assertEquals(vector.length, 512);
    } finally {
      embedder.close();
    }
  },
});

Deno.test({
  name: "ModelThreads stops the helper once the backlog drains, and keeps the first loaded",
  ignore,
  async fn() {
    const embedder = createUseLiteEmbedder({ threads: 2, helperLingerMs: 10 });
    try {
      const backlog = embedder.embed(notes(48), "document");
      assertEquals(embedder.runningThreads(), 2);
      await backlog;
      await until(() => embedder.runningThreads() === 1, "the helper to stop");
      assert(embedder.isReady(), "the first thread stays loaded for queries");
      // A query after the helper left is answered by the first thread alone.
      const [vector] = await embedder.embed(["where is the spare key?"], "query");
      assertEquals([vector.length, embedder.runningThreads()], [512, 1]);
    } finally {
      embedder.close();
    }
  },
});

Deno.test({
  name: "ModelThreads stops every Worker on close, failing what waits",
  ignore,
  async fn() {
    const embedder = createUseLiteEmbedder({ threads: 2 });
    const backlog = embedder.embed(notes(48), "document");
    assertEquals(embedder.runningThreads(), 2);
    embedder.close();
    assertEquals(embedder.runningThreads(), 0);
    const error = await assertRejects(() => backlog);
    assertEquals(error.message, "the embedder was closed");
    assert(!embedder.isReady());
  },
});
