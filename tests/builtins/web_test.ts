/** fetch_url and web_search against real HTTP servers on 127.0.0.1 standing in for the web. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { tempRegistry } from "../helpers/tools.ts";

type R = Awaited<ReturnType<typeof tempRegistry>>;
const call = (r: R, name: string, args: unknown) =>
  r.registry.execute({ id: "1", name, arguments: JSON.stringify(args) }, {
    conversation_id: null,
  });

const PAGE = `<!doctype html><html><head><title>T</title><style>.x{color:red}</style>
<script>window.secretScript = "never shown";</script></head>
<body><header>SITE HEADER</header><nav>MENU ITEMS</nav>
<article><h1>The Article</h1><p>First paragraph with a <a href="/x">link</a>.</p><p>Second paragraph.</p></article>
<footer>FOOTER TEXT</footer><noscript>NOSCRIPT</noscript></body></html>`;

function startSite() {
  const requests: { path: string; headers: Headers }[] = [];
  const controller = new AbortController();
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: () => {},
  }, (request): Response => {
    const url = new URL(request.url);
    requests.push({ path: url.pathname + url.search, headers: request.headers });
    switch (url.pathname) {
      case "/page":
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/data.json":
        return Response.json({ answer: 42, list: [1, 2, 3] });
      case "/long.txt":
        return new Response("z".repeat(12_000), { headers: { "content-type": "text/plain" } });
      case "/image.png":
        return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), {
          headers: { "content-type": "image/png" },
        });
      case "/hop":
        return Response.redirect(`http://127.0.0.1:${server.addr.port}/page`, 302);
      case "/html/": {
        const q = url.searchParams.get("q");
        return new Response(
          `<div class="results">
            <div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=${
            encodeURIComponent("https://deno.com/blog")
          }&rut=x">Deno Blog</a>
            <a class="result__snippet">News about ${q}</a></div>
            <div class="result"><a class="result__a" href="https://example.org/2">Second</a><a class="result__snippet">  more
              text </a></div></div>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      case "/search":
        return Response.json({
          results: [{
            title: "SearX hit",
            url: "https://s.example/1",
            content: `about ${url.searchParams.get("q")}`,
          }],
        });
      case "/brave":
        if (request.headers.get("x-subscription-token") !== "brave-key") {
          return new Response("no", { status: 401 });
        }
        return Response.json({
          web: {
            results: [{
              title: "Brave hit",
              url: "https://b.example",
              description: "<strong>bold</strong> snippet",
            }],
          },
        });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    requests,
    [Symbol.asyncDispose]: async () => {
      controller.abort();
      await server.finished;
    },
  };
}

const web = (extra: Record<string, unknown> = {}) => ({
  web: { allow_private: false, allow_hosts: [], search: { provider: "duckduckgo" }, ...extra },
});

Deno.test("fetch_url refuses local, private and metadata addresses by default", async (t) => {
  await using site = startSite();
  await using r = await tempRegistry({ settings: { fetch_url: web() } });
  const refused: [string, RegExp][] = [
    [`${site.base}/page`, /127\.0\.0\.1 is a loopback address/],
    [
      `http://localhost:${site.port}/page`,
      /localhost resolves to 127\.0\.0\.1, which is a loopback address/,
    ],
    ["http://169.254.169.254/latest/meta-data/", /link-local \(cloud metadata\)/],
    ["http://10.1.2.3/", /private-network/],
    ["http://192.168.1.1/admin", /private-network/],
    [`http://[::1]:${site.port}/page`, /loopback/],
    [`http://[::ffff:127.0.0.1]:${site.port}/page`, /loopback/],
    ["http://0.0.0.0/", /unspecified/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
  ];
  for (const [url, reason] of refused) {
    await t.step(url, async () => {
      const result = await call(r, "fetch_url", { url });
      assert(result.is_error, result.content);
      assertMatch(result.content, reason);
      assertStringIncludes(result.content, "tools.web.allow_hosts");
    });
  }
  await t.step("nothing reached the local server", () => assertEquals(site.requests.length, 0));
  await t.step("non-http schemes are refused by the schema", async () => {
    assertMatch(
      (await call(r, "fetch_url", { url: "file:///etc/passwd" })).content,
      /Invalid arguments/,
    );
  });
});

Deno.test("fetch_url checks every redirect", async () => {
  await using site = startSite();
  await using r = await tempRegistry({
    settings: { fetch_url: web({ allow_hosts: ["localhost"] }) },
  });
  const result = await call(r, "fetch_url", { url: `http://localhost:${site.port}/hop` });
  assert(result.is_error, result.content);
  assertMatch(
    result.content,
    /refuses http:\/\/127\.0\.0\.1:\d+\/page: 127\.0\.0\.1 is a loopback address/,
  );
  assertEquals(site.requests.map((q) => q.path), ["/hop"]);
});

Deno.test("fetch_url turns pages into readable text and marks them untrusted", async (t) => {
  await using site = startSite();
  await using r = await tempRegistry({ settings: { fetch_url: web({ allow_private: true }) } });
  await t.step("HTML without scripts, styles, navigation, header or footer", async () => {
    const { content, is_error } = await call(r, "fetch_url", { url: `${site.base}/hop` });
    assertEquals(is_error, false);
    assertMatch(
      content,
      new RegExp(`^<untrusted source="${site.base}/page">\\nURL: ${site.base}/page\\nStatus: 200`),
    );
    assertStringIncludes(content, "THE ARTICLE");
    assertStringIncludes(content, "First paragraph with a link.");
    for (
      const hidden of [
        "secretScript",
        "color:red",
        "SITE HEADER",
        "MENU ITEMS",
        "FOOTER TEXT",
        "NOSCRIPT",
      ]
    ) {
      assert(!content.includes(hidden), `${hidden} leaked`);
    }
    assert(content.endsWith("</untrusted>"));
    assertMatch(site.requests.at(-1)!.headers.get("user-agent")!, /hob/);
  });
  await t.step("the page's links after its text, absolute, inside the label", async () => {
    const { content } = await call(r, "fetch_url", { url: `${site.base}/page` });
    assertStringIncludes(content, `\n\nLinks:\n- link: ${site.base}/x\n</untrusted>`);
  });
  await t.step("JSON as is", async () => {
    assertStringIncludes(
      (await call(r, "fetch_url", { url: `${site.base}/data.json` })).content,
      '{"answer":42,"list":[1,2,3]}',
    );
  });
  await t.step("other text cut at 5,000 characters", async () => {
    const { content } = await call(r, "fetch_url", { url: `${site.base}/long.txt` });
    assertStringIncludes(content, "[… cut at 5000 of 12000 characters]");
  });
  await t.step("binary content is not shown", async () => {
    assertStringIncludes(
      (await call(r, "fetch_url", { url: `${site.base}/image.png` })).content,
      "(binary content, 7 bytes, not shown)",
    );
  });
});

Deno.test("web_search through DuckDuckGo's HTML, SearXNG and Brave", async (t) => {
  await using site = startSite();
  await t.step("DuckDuckGo", async () => {
    await using r = await tempRegistry({
      settings: {
        web_search: web({ search: { provider: "duckduckgo", url: `${site.base}/html/` } }),
      },
    });
    const result = await call(r, "web_search", { query: "deno 3" });
    assertEquals(
      result.content,
      '<untrusted source="web_search (duckduckgo): deno 3">\n1. Deno Blog\n   https://deno.com/blog\n   News about deno 3\n\n2. Second\n   https://example.org/2\n   more text\n</untrusted>',
    );
  });
  await t.step("SearXNG", async () => {
    await using r = await tempRegistry({
      settings: { web_search: web({ search: { provider: "searxng", url: site.base } }) },
    });
    assertStringIncludes(
      (await call(r, "web_search", { query: "q1" })).content,
      "1. SearX hit\n   https://s.example/1\n   about q1",
    );
    assertStringIncludes(site.requests.at(-1)!.path, "format=json");
  });
  await t.step("Brave, with its key", async () => {
    await using r = await tempRegistry({
      settings: {
        web_search: web({
          search: { provider: "brave", url: `${site.base}/brave`, api_key: "brave-key" },
        }),
      },
    });
    assertStringIncludes(
      (await call(r, "web_search", { query: "x" })).content,
      "1. Brave hit\n   https://b.example\n   bold snippet",
    );
  });
  await t.step("Brave without a key says what to set", async () => {
    await using r = await tempRegistry({
      settings: { web_search: web({ search: { provider: "brave", url: `${site.base}/brave` } }) },
    });
    assertMatch(
      (await call(r, "web_search", { query: "x" })).content,
      /needs tools\.web\.search\.api_key/,
    );
  });
});
