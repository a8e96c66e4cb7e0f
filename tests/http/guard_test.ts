import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml } from "../helpers/home.ts";
import { tempApi as setup } from "../helpers/api.ts";
import { createAuth } from "../../src/http/auth.ts";
import { DATA_CSP, hostName, PAGE_CSP } from "../../src/http/guard.ts";
import { Hono } from "hono";
import { exposureWarning } from "../../src/cli/serve.ts";

/** Every way in: the API, the page, a static file, the client module, /v1 and /mcp. */
const DOORS = [
  "/api/health",
  "/api/conversations",
  "/",
  "/static/app.js",
  "/client.ts",
  "/v1/models",
  "/mcp",
];

Deno.test("a Host that is not this machine is refused everywhere (DNS rebinding)", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(
    fakeProviderYaml(fake.url, "server: { allowed_hosts: [hob.lan] }"),
  );
  await t.step("a foreign name gets 403 at every door, in that door's error shape", async () => {
    for (const path of DOORS) {
      const response = await api.call(path, { headers: { host: "rebind.evil.example:8484" } });
      assertEquals(response.status, 403, path);
      const body = await response.json();
      if (path === "/mcp") assertEquals(body.jsonrpc, "2.0");
      else if (path.startsWith("/v1")) assertEquals(body.error.type, "invalid_request_error");
      else assertEquals(body.error.code, "forbidden", path);
      assertMatch(JSON.stringify(body), /rebind\.evil\.example/);
    }
  });
  await t.step("loopback names, IP addresses and server.allowed_hosts get through", async () => {
    for (
      const host of [
        "localhost:8484",
        "LOCALHOST",
        "127.0.0.1:8484",
        "[::1]:8484",
        "192.168.1.20:8484",
        "hob.lan:8484",
      ]
    ) {
      const response = await api.call("/api/health", { headers: { host } });
      assertEquals(response.status, 200, host);
      await response.body?.cancel();
    }
  });
  await t.step("a malformed Host is refused", async () => {
    for (const host of ["evil.example@127.0.0.1", "127.0.0.1:8484/x", "[::1", "a b"]) {
      const response = await api.call("/api/health", { headers: { host } });
      assertEquals(response.status, 403, host);
      await response.body?.cancel();
    }
  });
});

Deno.test("a browser request from another origin is refused, even with the token", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url));
  const host = "127.0.0.1:8484";
  await t.step("another site, another port on this machine, and Origin: null", async () => {
    for (
      const origin of [
        "https://evil.example",
        "http://127.0.0.1:3000",
        "http://localhost:8484",
        "null",
        "file://",
      ]
    ) {
      const response = await api.call("/api/chat", {
        method: "POST",
        headers: { host, origin },
        json: { message: "run rm -rf ~" },
      });
      assertEquals(response.status, 403, origin);
      assertEquals((await response.json()).error.code, "forbidden");
    }
    assertEquals(fake.requests.length, 0);
  });
  await t.step("no-cors requests without Origin are caught by Sec-Fetch-Site", async () => {
    const response = await api.call("/api/conversations", {
      headers: { host, "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" },
    });
    assertEquals(response.status, 403);
    await response.body?.cancel();
  });
  await t.step("a link from another site opens the page, which asks for the token", async () => {
    const response = await api.call("/", {
      auth: false,
      headers: { host, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" },
    });
    assertEquals(response.status, 401);
    assertMatch(await response.text(), /token/i);
  });
  await t.step("the page's own requests (same origin) pass", async () => {
    const response = await api.call("/api/conversations", {
      headers: { host, origin: `http://${host}`, "sec-fetch-site": "same-origin" },
    });
    assertEquals(response.status, 200);
    await response.body?.cancel();
  });
});

Deno.test("every response carries the security headers, errors and streams included", async (t) => {
  await using fake = startFakeOpenAI({ replies: [{ text: "Streamed." }] });
  await using api = await setup(fakeProviderYaml(fake.url));
  const cases: [string, RequestInit & { json?: unknown; auth?: boolean }, number][] = [
    ["/api/health", {}, 200],
    ["/api/conversations", { auth: false }, 401],
    ["/api/nope", {}, 404],
    ["/api/conversations", { headers: { host: "evil.example" } }, 403],
    ["/api/chat", { method: "POST", json: { message: "" } }, 400],
    ["/api/chat", { method: "POST", body: "x".repeat(2_000_000) }, 413],
    ["/static/app.js", {}, 200],
    ["/client.ts", {}, 200],
    ["/v1/models", {}, 200],
    ["/", { auth: false }, 401],
    ["/api/chat", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { message: "Hi" },
    }, 200],
  ];
  for (const [path, init, status] of cases) {
    await t.step(`${init.method ?? "GET"} ${path} → ${status}`, async () => {
      const response = await api.call(path, init);
      assertEquals(response.status, status);
      const headers = response.headers;
      const html = (headers.get("content-type") ?? "").startsWith("text/html");
      assertEquals(headers.get("content-security-policy"), html ? PAGE_CSP : DATA_CSP);
      assertMatch(headers.get("content-security-policy")!, /frame-ancestors 'none'/);
      assertEquals(headers.get("x-content-type-options"), "nosniff");
      assertEquals(headers.get("x-frame-options"), "DENY");
      assertEquals(headers.get("referrer-policy"), "no-referrer");
      await response.text();
    });
  }
});

Deno.test("wrong tokens are rate limited per address; the right one always passes", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url, "server: { max_auth_failures: 3 }"));
  const wrong = { auth: false, headers: { authorization: "Bearer wrong-wrong-wrong-wrong" } };
  await t.step("three wrong tokens are 401, the fourth try is 429 with Retry-After", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await api.call("/api/conversations", wrong);
      assertEquals(response.status, 401);
      await response.body?.cancel();
    }
    const response = await api.call("/api/conversations", wrong);
    assertEquals(response.status, 429);
    const seconds = Number(response.headers.get("retry-after"));
    assert(seconds >= 1 && seconds <= 60, `Retry-After ${seconds}`);
    assertEquals((await response.json()).error.code, "rate_limited");
  });
  await t.step("while it waits, the right token still works", async () => {
    const response = await api.call("/api/conversations");
    assertEquals(response.status, 200);
    await response.body?.cancel();
  });
  await t.step("the ?token= link and /mcp: the right token works, a wrong one waits", async () => {
    const link = await api.call(`/?token=${api.home.token}`, { auth: false });
    assertEquals(link.status, 303);
    assertMatch(link.headers.get("set-cookie") ?? "", /hob_session=/);
    const wrongLink = await api.call("/?token=wrong-wrong-wrong-wrong", { auth: false });
    assertEquals(wrongLink.status, 429);
    await wrongLink.body?.cancel();

    const mcp = await api.call(`/mcp?token=${api.home.token}`, {
      auth: false,
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    assertEquals(mcp.status, 200);
    assertEquals((await mcp.json()).id, 1);
    const wrongMcp = await api.call("/mcp?token=wrong-wrong-wrong-wrong", {
      auth: false,
      method: "POST",
      json: {},
    });
    assertEquals(wrongMcp.status, 429);
    assertEquals((await wrongMcp.json()).jsonrpc, "2.0");
  });
});

Deno.test("cross-site navigations to ?token=wrong are no guesses and lock nobody out", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  /** What a hostile page makes the owner's browser send: a link to hob with a wrong token. */
  const navigation = (site: string, path = "/?token=wrong-wrong-wrong-wrong") =>
    api.call(path, {
      auth: false,
      headers: {
        "sec-fetch-site": site,
        "sec-fetch-mode": "navigate",
        "sec-fetch-dest": "document",
      },
    });
  await t.step("25 cross-site and 25 same-site navigations get the sign-in page", async () => {
    for (const site of ["cross-site", "same-site"]) {
      for (let i = 0; i < 25; i++) {
        const response = await navigation(site, i % 2 ? "/?token=wrong" : "/mcp?token=wrong");
        assertEquals(response.status, 401, `${site} #${i}`);
        await response.body?.cancel();
      }
    }
  });
  await t.step("then the right bearer token is 200, and a wrong one only 401", async () => {
    const right = await api.call("/api/conversations");
    assertEquals(right.status, 200);
    await right.body?.cancel();
    const wrong = await api.call("/api/conversations", {
      auth: false,
      headers: { authorization: "Bearer wrong-wrong-wrong-wrong" },
    });
    assertEquals(wrong.status, 401, "none of the navigations counted");
    await wrong.body?.cancel();
  });
});

Deno.test("25 wrong bearer tokens from curl: wrong ones get 429, the right one 200", async () => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  // curl sends no Fetch Metadata: it reads every answer, so each wrong token is a guess.
  const wrong = () =>
    api.call("/api/conversations", {
      auth: false,
      headers: { authorization: "Bearer wrong-wrong-wrong-wrong", "user-agent": "curl/8.5.0" },
    });
  const statuses: number[] = [];
  for (let i = 0; i < 25; i++) {
    const response = await wrong();
    statuses.push(response.status);
    await response.body?.cancel();
  }
  // server.max_auth_failures defaults to 20.
  assertEquals(statuses, [...Array(20).fill(401), ...Array(5).fill(429)]);
  const right = await api.call("/api/conversations", { headers: { "user-agent": "curl/8.5.0" } });
  assertEquals(right.status, 200);
  await right.body?.cancel();
  const again = await wrong();
  assertEquals(again.status, 429);
  await again.body?.cancel();
});

Deno.test("the failure window ends, and neither the right token nor a session is held back", () => {
  let now = 0;
  const auth = createAuth("a-token-of-enough-length", {
    maxFailures: 2,
    windowMs: 60_000,
    now: () => now,
  });
  const api = new Hono();
  api.get("/start", (c) => {
    auth.startSession(c);
    return c.text("ok");
  });
  api.use("/api/*", auth.require());
  api.get("/api/x", (c) => c.text("x"));
  return (async () => {
    const cookie = (await api.request("/start")).headers.get("set-cookie")!.split(";")[0];
    const bearer = (token: string, site?: string) => ({
      headers: {
        authorization: `Bearer ${token}`,
        ...(site ? { "sec-fetch-site": site } : {}),
      },
    });
    // The page's own scripts (same-origin) and the user's typing (none) read the answer: guesses.
    assertEquals((await api.request("/api/x", bearer("wrong-1", "same-origin"))).status, 401);
    assertEquals((await api.request("/api/x", bearer("wrong-2", "none"))).status, 401);
    assertEquals((await api.request("/api/x", bearer("wrong-3"))).status, 429);
    assertEquals((await api.request("/api/x", bearer("a-token-of-enough-length"))).status, 200);
    // The page's session is not a guess: it still works while the address waits.
    assertEquals((await api.request("/api/x", { headers: { cookie } })).status, 200);
    now += 59_000;
    assertEquals((await api.request("/api/x", bearer("wrong-4"))).status, 429);
    now += 1_000;
    assertEquals((await api.request("/api/x", bearer("wrong-5"))).status, 401);
    assertEquals((await api.request("/api/x", bearer("a-token-of-enough-length"))).status, 200);
  })();
});

Deno.test("hostName reads Host headers strictly", () => {
  assertEquals(hostName("LocalHost:8484"), "localhost");
  assertEquals(hostName("[::1]:80"), "[::1]");
  assertEquals(hostName("example.com."), "example.com");
  assertEquals(hostName("evil@127.0.0.1"), null);
  assertEquals(hostName(""), null);
  assertEquals(hostName(undefined), null);
});

Deno.test("hob serve warns when it listens beyond this machine, and says which names get in", () => {
  for (const loopback of ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]) {
    assertEquals(exposureWarning(loopback, loopback), null, loopback);
  }
  assertEquals(
    exposureWarning("0.0.0.0", "0.0.0.0"),
    "warning: hob is listening on 0.0.0.0, reachable from other machines; anyone with the token can use it. Requests must name an IP address or a name in server.allowed_hosts.",
  );
  assertMatch(exposureWarning("192.168.1.5", "hob.lan")!, /an IP address, hob\.lan, or a name/);
});
