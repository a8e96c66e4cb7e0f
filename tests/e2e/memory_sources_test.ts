/**
 * Documents and links added to memory, as a user meets it over the API and
 * the agent's tool: one file of each format and a page served on 127.0.0.1,
 * each found by meaning with the offline embedder; a refreshed page is a new
 * version; the text stays labelled, so a turn that reads it is tainted.
 */

import { Document, HeadingLevel, Packer, Paragraph } from "docx";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempApi } from "../helpers/api.ts";
import { fakeProviderYaml } from "../helpers/home.ts";

const encode = (text: string) => new TextEncoder().encode(text);

/** One document per format, and a question about it that shares no word with it. */
const DOCUMENTS: { name: string; bytes: () => Promise<Uint8Array>; ask: string }[] = [
  {
    name: "sourdough.md",
    bytes: () =>
      Promise.resolve(encode(
        "# Sourdough\n\nFeed the starter equal weights of flour and water each morning; bake when it has doubled.\n",
      )),
    ask: "looking after the yeast culture for loaves",
  },
  {
    name: "passport.txt",
    bytes: () =>
      Promise.resolve(encode(
        "Passport renewal: book an appointment at the consulate, bring two photographs and the expired passport.\n",
      )),
    ask: "travel identity document replacement",
  },
  {
    name: "bicycle.html",
    bytes: () =>
      Promise.resolve(encode(
        `<html><head><title>Bicycle care</title></head><body><nav>Home | Shop</nav><article><h1>Bicycle care</h1>
<p>Clean and oil the chain every three hundred kilometres, and pump the tyres weekly.</p></article></body></html>`,
      )),
    ask: "bike maintenance routine",
  },
  {
    name: "report.pdf",
    bytes: () => Deno.readFile(new URL("../fixtures/documents/report.pdf", import.meta.url)),
    ask: "when is the jetty underwater",
  },
  {
    name: "garden.docx",
    bytes: async () =>
      new Uint8Array(
        await Packer.toArrayBuffer(
          new Document({
            sections: [{
              children: [
                new Paragraph({ text: "Garden plan", heading: HeadingLevel.HEADING_1 }),
                new Paragraph("Plant tulip bulbs in October along the south fence."),
              ],
            }],
          }),
        ),
      ),
    ask: "which flowers go in this autumn",
  },
  {
    name: "spending.csv",
    bytes: () =>
      Promise.resolve(encode(
        "month,category,amount\nJanuary,Rent,1200\nJanuary,Groceries,310\nFebruary,Rent,1200\n",
      )),
    ask: "household expenses",
  },
];

Deno.test("a file of each format and a page are added, found by meaning, refreshed as versions", async (t) => {
  await using fake = startFakeOpenAI({ fallback: { text: "ok" } });
  await using api = await tempApi(fakeProviderYaml(fake.url));
  const dir = await Deno.makeTempDir({ prefix: "hob-sources-" });
  let page = `<html><head><title>Lentil soup</title></head><body><article><h1>Lentil soup</h1>
<p>Soften onions and carrots, add red lentils and stock, simmer for twenty minutes.</p></article></body></html>`;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/recipes/lentil-soup`;
  const add = async (source: string) => {
    const response = await api.call("/api/memory/sources", { method: "POST", json: { source } });
    assertEquals(response.status, 201, await response.clone().text());
    return await response.json();
  };
  const search = async (q: string) =>
    (await (await api.call(`/api/memory/search?limit=3&q=${encodeURIComponent(q)}`))
      .json()).hits as { path: string; text: string }[];

  try {
    const added: Record<string, string> = {};
    await t.step("one file of each format becomes Markdown under memory/sources/", async () => {
      for (const document of DOCUMENTS) {
        const file = `${dir}/${document.name}`;
        await Deno.writeFile(file, await document.bytes());
        const result = await add(file);
        assertEquals(result.changed, true);
        assertMatch(result.path, /^sources\/[a-z0-9-]+\.md$/);
        added[document.name] = result.path;
        const text = await Deno.readTextFile(`${api.home.home}/memory/${result.path}`);
        assertMatch(text, new RegExp(`^---\\nsource: ${file}\\nformat: \\w+\\nfetched_at: `));
        assertMatch(text, /\ncontent_hash: sha256:[0-9a-f]{64}\n---\n/);
        // The document's words, title included, stay inside their label.
        assertMatch(text, /\n<untrusted source="[^"]+">\n# /);
      }
      assertEquals(
        DOCUMENTS.map((d) => added[d.name]),
        [
          "sources/sourdough.md",
          "sources/passport.md",
          "sources/bicycle.md",
          "sources/report.md",
          "sources/garden.md",
          "sources/spending.md",
        ],
      );
    });

    await t.step("a page served on 127.0.0.1 is added too", async () => {
      const result = await add(url);
      assertEquals([result.path, result.format, result.title], [
        "sources/127-0-0-1-recipes-lentil-soup.md",
        "html",
        "Lentil soup",
      ]);
      added.url = result.path;
    });

    await api.runtime.memory.settle();
    await t.step("each is found by meaning: no word of the question is in it", async () => {
      for (const document of DOCUMENTS) {
        const hits = await search(document.ask);
        assert(
          hits.some((hit) => hit.path === added[document.name]),
          `${document.ask}: ${hits.map((hit) => hit.path).join(", ")}`,
        );
      }
      const soup = await search("a warming pulse stew");
      assert(soup.some((hit) => hit.path === added.url), soup.map((hit) => hit.path).join(", "));
      // What a search returns from a source is marked as untrusted.
      assertStringIncludes(soup.find((hit) => hit.path === added.url)!.text, "<untrusted source=");
    });

    await t.step(
      "adding the same again changes nothing; a refreshed page is a new version",
      async () => {
        assertEquals((await add(url)).changed, false);
        page = page.replace("twenty minutes", "twenty-five minutes, then blend half");
        const response = await api.call("/api/memory/sources/refresh", {
          method: "POST",
          json: { path: added.url },
        });
        assertEquals(response.status, 200);
        const refreshed = await response.json();
        assertEquals(refreshed.changed, true);
        const versions = (await (await api.call(`/api/memory/history?path=${added.url}`)).json())
          .versions as { id: number; author: string; via: string }[];
        assertEquals(versions.map((v) => `${v.author} ${v.via}`), ["owner api", "owner api"]);
        assertEquals(refreshed.version.id, versions[0].id);
        const diff = await (await api.call(`/api/memory/diff?from=${versions[0].id}`)).json();
        assertMatch(diff.diff, /^\+.*twenty-five minutes, then blend half/m);
      },
    );

    await t.step("what cannot be read is refused with the field named", async () => {
      for (
        const [source, status] of [
          [`${dir}/missing.pdf`, 404],
          ["relative/path.md", 400],
          ["ftp://example.com/x", 400],
        ] as const
      ) {
        const response = await api.call("/api/memory/sources", {
          method: "POST",
          json: { source },
        });
        assertEquals(response.status, status, source);
        const { error } = await response.json();
        if (status === 404) assertEquals(error.message, `No file ${source}`);
        else assertEquals(error.field, "source");
      }
      await Deno.writeFile(
        `${dir}/photo.png`,
        new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0]),
      );
      const png = await api.call("/api/memory/sources", {
        method: "POST",
        json: { source: `${dir}/photo.png` },
      });
      assertEquals(png.status, 400);
      assertMatch((await png.json()).error.message, /PDF/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the agent adds a page with memory_add: loopback is refused unless allowed, and the turn is tainted", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response("# Notes\n\nThe gate code is 4071.\n", {
        headers: { "content-type": "text/markdown" },
      }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/notes.md`;
  for (const allowed of [false, true]) {
    await using fake = startFakeOpenAI({ fallback: { text: "Done." } });
    fake.enqueue({ tool_calls: [{ name: "memory_add", arguments: { source: url } }] });
    await using api = await tempApi(fakeProviderYaml(
      fake.url,
      `memory: { embedder: none }\ntools: { web: { allow_private: ${allowed} }, taint: { exempt: [memory_add] } }`,
    ));
    const reply = await (await api.call("/api/chat", {
      method: "POST",
      json: { message: `Add ${url} to my memory.` },
    })).json();
    const call = reply.tool_calls[0];
    if (!allowed) {
      assertEquals(call.is_error, true);
      assertMatch(call.result, /refuses .*loopback/);
      continue;
    }
    assertEquals(call.is_error, false, call.result);
    assertMatch(call.result, /Added .* as memory\/sources\/127-0-0-1-notes\.md/);
    const { versions } =
      await (await api.call("/api/memory/history?path=sources/127-0-0-1-notes.md"))
        .json();
    assertEquals([versions[0].author, versions[0].via], ["agent", "memory_add"]);
    // A later turn that searches it reads labelled text: it is tainted.
    fake.enqueue({ tool_calls: [{ name: "search_memory", arguments: { query: "gate code" } }] });
    const later = await (await api.call("/api/chat", {
      method: "POST",
      json: { message: "What is the gate code?" },
    })).json();
    assertStringIncludes(later.tool_calls[0].result, "<untrusted source=");
    const stored = await (await api.call(`/api/conversations/${later.conversation_id}/messages`))
      .json();
    assert(
      stored.messages.some((m: { taint: string | null }) => m.taint),
      "the turn that read the source is not tainted",
    );
  }
});
