/** The front door of a starting `hob serve`: health at once, the rest once the API is in. */

import { assert, assertEquals } from "../helpers/assert.ts";
import { openGate } from "../../src/http/gate.ts";
import { DATA_CSP } from "../../src/http/guard.ts";
import { VERSION } from "../../src/version.ts";

const request = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:8484${path}`, { headers });

Deno.test("openGate answers /api/health before the API is admitted, behind the guard", async (t) => {
  const gate = openGate({ bind: "127.0.0.1" }, Date.now() - 1_000);

  await t.step("health, with the version and the time since listening", async () => {
    const response = await gate.fetch(request("/api/health"));
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-security-policy"), DATA_CSP);
    const body = await response.json();
    assertEquals([body.ok, body.version], [true, VERSION]);
    assert(body.uptime_ms >= 1_000, String(body.uptime_ms));
  });

  await t.step("a Host that is not this machine is refused, as by the API", async () => {
    const response = await gate.fetch(request("/api/health", { host: "evil.example:8484" }));
    assertEquals(response.status, 403);
    assertEquals(response.headers.get("x-frame-options"), "DENY");
    assertEquals((await response.json()).error.code, "forbidden");
  });

  await t.step("HEAD is answered as GET, without a body", async () => {
    const response = await gate.fetch(
      new Request("http://127.0.0.1:8484/api/health", { method: "HEAD" }),
    );
    assertEquals([response.status, await response.text()], [200, ""]);
    assertEquals(response.headers.get("content-type"), "application/json");
  });
});

Deno.test("openGate answers health the way the API does", async () => {
  // The gate runs without Hono; the API's route is Hono's. A client must not tell them apart.
  const { Hono } = await import("hono");
  const { guard } = await import("../../src/http/guard.ts");
  const { health } = await import("../../src/http/gate.ts");
  const startedAt = Date.now();
  const api = new Hono();
  api.use("*", guard({ bind: "127.0.0.1" }));
  api.get("/api/health", health(startedAt));
  const gate = openGate({ bind: "127.0.0.1" }, startedAt);
  const cases: Record<string, string>[] = [
    {},
    { host: "evil.example" },
    { origin: "http://other.example" },
    { "sec-fetch-site": "cross-site" },
  ];
  for (const headers of cases) {
    const [early, late] = [
      await gate.fetch(request("/api/health", headers)),
      await api.fetch(request("/api/health", headers)),
    ];
    assertEquals(early.status, late.status, JSON.stringify(headers));
    assertEquals([...early.headers].sort(), [...late.headers].sort(), JSON.stringify(headers));
    const [a, b] = [await early.json(), await late.json()];
    if (a.uptime_ms !== undefined) a.uptime_ms = b.uptime_ms = 0;
    assertEquals(a, b);
  }
});

Deno.test("openGate holds other requests until the API is admitted, then hands them over", async () => {
  const gate = openGate({ bind: "127.0.0.1" }, Date.now());
  const seen: string[] = [];
  let answered = false;
  const held = Promise.resolve(gate.fetch(request("/api/conversations"))).then((response) => {
    answered = true;
    return response;
  });
  // Health goes by while the other request waits.
  assertEquals((await gate.fetch(request("/api/health"))).status, 200);
  assertEquals(answered, false);

  gate.admit((req) => {
    seen.push(new URL(req.url).pathname);
    return new Response("from the API", { status: 418 });
  });
  const response = await held;
  assertEquals([response.status, await response.text()], [418, "from the API"]);
  // Once admitted, the API answers everything, health included.
  assertEquals((await gate.fetch(request("/api/health"))).status, 418);
  assertEquals(seen, ["/api/conversations", "/api/health"]);
});

Deno.test("openGate answers 503 to held and later requests when hob could not start", async () => {
  const gate = openGate({ bind: "127.0.0.1" }, Date.now());
  const held = gate.fetch(request("/api/conversations"));
  gate.refuse();
  for (const response of [await held, await gate.fetch(request("/"))]) {
    assertEquals(response.status, 503);
    assertEquals((await response.json()).error.code, "unavailable");
  }
  // Health still says the process answers; the process is about to exit anyway.
  assertEquals((await gate.fetch(request("/api/health"))).status, 200);
});

Deno.test("openGate holds a request whose URL Deno cannot build until the API answers it", async () => {
  const gate = openGate({ bind: "127.0.0.1" }, Date.now());
  const errors: unknown[] = [];
  const arrived = Promise.withResolvers<void>();
  await using server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: (error) => {
      errors.push(error);
      return new Response("internal error", { status: 500 });
    },
  }, (request) => {
    arrived.resolve();
    return gate.fetch(request);
  });
  const connection = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  // `Host: [::1` makes Deno's request.url "http://[::1/api/health", which does not parse.
  await connection.write(
    new TextEncoder().encode("GET /api/health HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n"),
  );
  const read = new Response(connection.readable).arrayBuffer();
  // Admitted only once the request is at the gate, so the gate holds it first (an answer
  // that comes sooner, from Deno itself, fails the assertion below instead of hanging).
  await Promise.race([arrived.promise, read]);
  gate.admit(() => new Response("refused by the API", { status: 403 }));
  const answer = new TextDecoder().decode(await read);
  assertEquals(answer.split("\r\n")[0], "HTTP/1.1 403 Forbidden");
  assertEquals(errors, []);
});
