/** The page's routes in-process: sign-in, the session cookie and its cross-site guard, CSP, assets, fragments. */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml } from "../helpers/home.ts";
import { ASSET_NAMES } from "../../src/page/assets.ts";

Deno.test("signing in with the token link, the session cookie and what it may do", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const get = (path: string, headers: Record<string, string> = {}) =>
    api.http.request(path, { headers });
  let cookie = "";

  await t.step("without a session the page says how to sign in, under a strict CSP", async () => {
    const response = await get("/");
    assertEquals(response.status, 401);
    assertStringIncludes(await response.text(), "Open the link");
    const csp = response.headers.get("content-security-policy") ?? "";
    assertMatch(csp, /default-src 'self'/);
    assertMatch(csp, /script-src 'self'(;|$)/);
    assertEquals(response.headers.get("x-frame-options"), "DENY");
    assertEquals((await get("/?token=wrong-token-wrong-token")).status, 401);
  });

  await t.step(
    "the token link sets an HttpOnly SameSite=Strict cookie and drops the token from the URL",
    async () => {
      const response = await get(`/c/abc?token=${api.home.token}`);
      assertEquals(response.status, 303);
      assertEquals(response.headers.get("location"), "/c/abc");
      const setCookie = response.headers.get("set-cookie") ?? "";
      assertMatch(setCookie, /^hob_session=[\w-]+;/);
      assertMatch(setCookie, /HttpOnly/);
      assertMatch(setCookie, /SameSite=Strict/);
      assert(!setCookie.includes(api.home.token));
      cookie = setCookie.split(";")[0];
      const shell = await get("/", { cookie });
      assertEquals(shell.status, 200);
      const html = await shell.text();
      assertStringIncludes(html, '<script type="module" src="/static/app.js"></script>');
      assert(!/<script>(?!<\/script>)/.test(html), "no inline script");
      assert(!/\sstyle="/.test(html), "no inline style");
    },
  );

  await t.step(
    "the cookie reads the API; a write needs the page's header, so a cross-site form cannot",
    async () => {
      assertEquals((await get("/api/conversations", { cookie })).status, 200);
      const forged = await api.http.request("/api/conversations", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: "{}",
      });
      assertEquals(forged.status, 403);
      assertMatch((await forged.json()).error.message, /must come from the page/);
      const fromPage = await api.http.request("/api/conversations", {
        method: "POST",
        headers: { cookie, "content-type": "application/json", "x-hob-request": "1" },
        body: "{}",
      });
      assertEquals(fromPage.status, 201);
      // htmx's own header counts as the page's.
      const htmxDelete = await api.http.request("/ui/conversations/none", {
        method: "DELETE",
        headers: { cookie, "hx-request": "true" },
      });
      assertEquals(htmxDelete.status, 200);
      const formPost = await api.http.request("/ui/tasks", {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: "title=evil",
      });
      assertEquals(formPost.status, 403);
      assertEquals(api.runtime.background.tasks.list().length, 0);
      assertEquals((await get("/api/conversations", { cookie: "hob_session=forged" })).status, 401);
    },
  );
});

Deno.test("the page's files are embedded, gzipped and revalidated", async () => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  let gzipped = 0;
  for (const name of ASSET_NAMES) {
    const response = await api.http.request(`/static/${name}`, {
      headers: { "accept-encoding": "gzip" },
    });
    assertEquals(response.status, 200, name);
    assertEquals(response.headers.get("content-encoding"), "gzip");
    gzipped += (await response.arrayBuffer()).byteLength;
    const etag = response.headers.get("etag")!;
    const again = await api.http.request(`/static/${name}`, { headers: { "if-none-match": etag } });
    assertEquals(again.status, 304);
  }
  assert(gzipped < 100_000, `the page's files are ${gzipped} bytes gzipped`);
  const plain = await api.http.request("/static/app.js");
  assertEquals(plain.headers.get("content-type"), "text/javascript; charset=utf-8");
  assertStringIncludes(await plain.text(), "DOMPurify");
  assertEquals((await api.http.request("/static/../hob.yaml")).status, 404);
  assertEquals((await api.http.request("/static/nothing.js")).status, 404);
});

Deno.test("fragments: the conversation list escapes titles; panels render; bad forms are 422 with the reason", async () => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const ui = (path: string, init: RequestInit = {}) =>
    api.call(path, { ...init, headers: { "hx-request": "true", ...(init.headers ?? {}) } });
  api.runtime.conversations.createConversation({ title: '<img src=x onerror="alert(1)">' });

  const list = await (await ui("/ui/conversations")).text();
  assertStringIncludes(list, "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  assert(!list.includes("<img"));
  assertStringIncludes(
    await (await ui("/ui/conversations?q=nothing")).text(),
    "No conversation titled like",
  );

  for (
    const [name, heading] of Object.entries({
      memory: "Memory",
      schedules: "Schedules",
      tasks: "Background tasks",
      approvals: "Approvals",
      tools: "Tools",
      notifications: "Notifications",
      usage: "Usage",
    })
  ) {
    const response = await ui(`/ui/panel/${name}`);
    assertEquals(response.status, 200, name);
    assertStringIncludes(await response.text(), `<h1>${heading}</h1>`);
  }
  assertEquals((await ui("/ui/panel/secrets")).status, 404);

  // A memory hit shows its passage (here the whole chunk: it fits) line by line, escaped.
  const turns = Array.from({ length: 30 }, (_, i) => `Maya: turn ${i}, about the weather <b>.`);
  turns[21] = "Jonas: the camper van's new tyres came <today>!";
  await Deno.writeTextFile(`${api.home.home}/memory/chat.md`, `# Session 2\n${turns.join("\n")}\n`);
  await api.runtime.app.memory.reindex();
  const found = await (await ui("/ui/memory/search?q=camper%20tyres")).text();
  assertMatch(
    found,
    /<div class="passage">Maya: turn 0, [^<]*\nJonas: the camper van&#39;s new tyres came &lt;today&gt;!\n/,
  );

  const form = (body: string) =>
    ui("/ui/schedules", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  const bad = await form("name=x&schedule=sometimes&prompt=p");
  assertEquals(bad.status, 422);
  assertStringIncludes(await bad.text(), "is not a schedule");
  const good = await form(
    "name=digest&schedule=every+2h&prompt=Summarise&timezone=Europe%2FBerlin",
  );
  assertEquals(good.status, 200);
  assertStringIncludes(await good.text(), "Added “digest”.");
  assertEquals(api.runtime.background.jobs.get("digest")?.timezone, "Europe/Berlin");

  // Only the files the page edits: not hob.yaml, not the token.
  assertEquals((await ui("/ui/memory/file?name=token")).status, 404);
  const save = await ui("/ui/memory/file", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "path=token&content=x",
  });
  assertEquals(save.status, 404);
  assertEquals((await Deno.readTextFile(`${api.home.home}/token`)).trim(), api.home.token);
  const soul = await ui("/ui/memory/file", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "path=identity%2FSOUL.md&content=%23+Soul%0AI+am+hob%2C+briefly.",
  });
  assertEquals(soul.status, 200);
  assertEquals(
    await Deno.readTextFile(`${api.home.home}/identity/SOUL.md`),
    "# Soul\nI am hob, briefly.",
  );

  const badges = await (await ui("/ui/badges")).text();
  assertStringIncludes(badges, 'id="approvals-badge"');
});
