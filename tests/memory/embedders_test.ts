/** The embedder adapters: an OpenAI-compatible endpoint, transformers, and what happens when they fail. */

import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { createOpenAiEmbedder } from "../../src/memory/openai_embeddings.ts";
import { createTransformersEmbedder } from "../../src/memory/transformers.ts";
import { MemoryIndex } from "../../src/memory/search_index.ts";
import { openDatabase } from "../../src/store/database.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { closedPort, providerConfig } from "../helpers/providers.ts";
import { tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";

Deno.test("createOpenAiEmbedder embeds through /v1/embeddings with nomic's task prefixes", async () => {
  await using fake = startFakeOpenAI();
  const embedder = createOpenAiEmbedder(
    providerConfig({ name: "ollama", base_url: fake.url }),
    "nomic-embed-text",
  );
  assertEquals(embedder.id, "openai:ollama/nomic-embed-text");
  const doc = await embedder.embed(["tomatoes need sun"], "document");
  await embedder.embed(["sunny tomatoes"], "query");
  assertEquals(doc[0].length, 16);
  const norm = Math.sqrt(doc[0].reduce((n, x) => n + x * x, 0));
  assert(Math.abs(norm - 1) < 1e-6, "vectors are unit length");
  const sent = fake.requests.filter((r) => r.path === "/v1/embeddings").map((r) => r.body.input);
  assertEquals(sent, [["search_document: tomatoes need sun"], ["search_query: sunny tomatoes"]]);
  assert(embedder.isReady());
});

Deno.test("an embedder that is down leaves keyword search working", async () => {
  const home = await Deno.makeTempDir({ prefix: "hob-embed-down-" });
  try {
    await Deno.mkdir(`${home}/memory`);
    await Deno.writeTextFile(`${home}/memory/a.md`, "# Garden\nThe tomatoes need more sun.\n");
    const db = openDatabase(`${home}/hob.db`);
    const embedder = createOpenAiEmbedder(
      providerConfig({
        name: "ollama",
        base_url: `http://127.0.0.1:${closedPort()}/v1`,
        timeout_ms: 2_000,
      }),
      "nomic-embed-text",
    );
    const index = new MemoryIndex(db, `${home}/memory`, embedder);
    await index.sync();
    await index.settle();
    assertEquals(index.stats().pending, 1, "the chunk waits for its vector");
    const hits = await index.search("tomatoes sun");
    assertEquals(hits.map((h) => h.path), ["a.md"]);
    await index.stop();
    db.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("createTransformersEmbedder says clearly when its model cannot be loaded", async () => {
  const embedder = createTransformersEmbedder("/nonexistent/model-folder");
  assertEquals(embedder.id, "transformers:/nonexistent/model-folder");
  const error = await assertRejects(() => embedder.load());
  assertMatch(error.message, /could not be (loaded|found)|not be loaded/);
});

Deno.test("createTransformersEmbedder under hob's own flags says it needs FFI, and tries nothing", async () => {
  // Its packages load native code, which only --allow-ffi permits: hob never runs with it. The
  // audit of hob's permissions fails this test if the package is imported all the same.
  await using home = await tempHome(
    'memory: { embedder: "transformers:/nonexistent/model-folder" }\n',
  );
  const doctor = await runHob(["doctor", "--skip-model", "--home", home.home]);
  assertMatch(
    doctor.stdout,
    /memory .*keyword search only: the transformers: embedder runs native code .*needs --allow-ffi/,
  );
  const search = await runHob(["memory", "search", "goals", "--home", home.home]);
  assertEquals(search.code, 0, search.stderr);
  assertMatch(search.stderr, /searching by keywords only: .*--allow-ffi/);
});

Deno.test("createUseLiteEmbedder loads offline and survives empty texts", async () => {
  const { createUseLiteEmbedder } = await import("../../src/memory/use_lite.ts");
  const embedder = createUseLiteEmbedder();
  try {
    const [empty, text] = await embedder.embed(
      ["", "The spare key is under the flowerpot."],
      "document",
    );
    assertEquals([empty.length, text.length], [512, 512]);
    const [alone] = await embedder.embed([""], "query");
    assertEquals(alone.length, 512);
  } finally {
    embedder.close();
  }
});

Deno.test("requestsOf groups texts of about one length, within the characters a request may hold", async () => {
  const { requestsOf } = await import("../../src/memory/use_lite.ts");
  const texts = ["a".repeat(450), "hi", "b".repeat(200), "c".repeat(450), "d".repeat(450)];
  // Shortest first; a request costs its longest text times its texts (1,800 at most).
  assertEquals(requestsOf(texts), [[1, 2, 0, 3], [4]]);
  // Short texts share a request, 16 at most; a text longer than a request's room goes alone.
  assertEquals(requestsOf(Array(20).fill("short")).map((r) => r.length), [16, 4]);
  assertEquals(requestsOf(["x".repeat(2_000), "y"]), [[1], [0]]);
  assertEquals(requestsOf([]), []);
});

Deno.test("createUseLiteEmbedder returns each text's vector in the order asked, however it groups them", async () => {
  const { createUseLiteEmbedder } = await import("../../src/memory/use_lite.ts");
  const embedder = createUseLiteEmbedder({ threads: 1 });
  try {
    const texts = [
      "The boiler was serviced in March by Harbourside Heating; the next service is due in March next year, and the engineer said the pressure valve should be checked before winter because it dripped.",
      "Spare key: under the flowerpot.",
      "Dentist on Friday at noon, bring the insurance card and ask about the crown on the lower left molar.",
      "Camping next month?",
    ];
    const together = await embedder.embed(texts, "document");
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text], "document");
      const cosine = alone.reduce((sum, x, k) => sum + x * together[i][k], 0);
      assert(
        Math.abs(1 - cosine) < 1e-5,
        `text ${i} came back as another's vector (cosine ${cosine})`,
      );
    }
  } finally {
    embedder.close();
  }
});

Deno.test("createUseLiteEmbedder answers a query before the documents waiting, and unloads when unused", async () => {
  const { createUseLiteEmbedder } = await import("../../src/memory/use_lite.ts");
  const embedder = createUseLiteEmbedder({ idleUnloadMs: 50 });
  try {
    await embedder.load();
    assert(embedder.isReady());
    const answered: string[] = [];
    const documents = embedder.embed(
      Array.from({ length: 24 }, (_, i) => `Note ${i}: the spare key is under the flowerpot.`),
      "document",
    ).then((vectors) => {
      answered.push("documents");
      return vectors;
    });
    const query = embedder.embed(["where is the key?"], "query").then((vectors) => {
      answered.push("query");
      return vectors;
    });
    const [docs, [vector]] = await Promise.all([documents, query]);
    assertEquals(answered, ["query", "documents"], "the query did not wait for 24 documents");
    assertEquals([docs.length, vector.length], [24, 512]);
    // Identical text embeds identically, whether asked as one of many or alone.
    const [again] = await embedder.embed(
      ["Note 3: the spare key is under the flowerpot."],
      "query",
    );
    assert(Math.abs(1 - again.reduce((sum, x, i) => sum + x * docs[3][i], 0)) < 1e-4);

    while (embedder.isReady()) await new Promise((resolve) => setTimeout(resolve, 20));
    const [reloaded] = await embedder.embed(["where is the key?"], "query");
    assert(Math.abs(1 - reloaded.reduce((sum, x, i) => sum + x * vector[i], 0)) < 1e-4);
    assert(embedder.isReady(), "loaded again on use");
  } finally {
    embedder.close();
  }
});
