/**
 * DNS rebinding, run for real: a DNS server on 127.0.0.1 answers a public
 * address to the first lookup of a name and 127.0.0.1 to every later one, and
 * a service on loopback records every request. fetch_url must connect to the
 * address it checked, so the service is never reached — asked directly, or
 * sent there by a redirect from a page the user allows.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";
import { startFakeDns } from "../tools/fake_dns.ts";

/**
 * The "public" answer. Nothing in the test listens there; on this offline
 * machine a connection to it on a high port fails at once (network
 * unreachable, measured: under 10 ms). Where it would hang, fetch_url gives up
 * after its 20 s response limit instead — slower, and the assertions the same.
 */
const PUBLIC = "93.184.215.14";
const LOOPBACK_SECRET = "loopback-only admin page";

/** A server on 127.0.0.1 that records each request and answers with `respond`. */
function serve(respond: (url: URL) => Response) {
  const hits: string[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    (request) => {
      const url = new URL(request.url);
      hits.push(`${request.headers.get("host")} ${url.pathname}`);
      return respond(url);
    },
  );
  return {
    port: server.addr.port,
    hits,
    [Symbol.asyncDispose]: async () => {
      controller.abort();
      await server.finished;
    },
  };
}

Deno.test("fetch_url connects to the address it checked, so rebinding reaches nothing on loopback", async (t) => {
  await using victim = serve(() => new Response(LOOPBACK_SECRET));
  await using dns = await startFakeDns({
    "rebind.test": [PUBLIC, "127.0.0.1"],
    "rebind-again.test": [PUBLIC, "127.0.0.1"],
    "origin.test": ["127.0.0.1"],
  });
  await using origin = serve(() =>
    Response.redirect(`http://rebind-again.test:${victim.port}/admin`, 302)
  );
  await using r = await tempRegistry({
    settings: {
      fetch_url: {
        web: { allow_private: false, allow_hosts: ["origin.test"], dns_server: dns.server },
      },
    },
  });
  const fetchUrl = async (url: string) => {
    const result = await r.registry.execute(
      { id: "1", name: "fetch_url", arguments: JSON.stringify({ url }) },
      { conversation_id: null },
    );
    return { ...result, content: unmark(result.content) };
  };

  await t.step("asked directly", async () => {
    const result = await fetchUrl(`http://rebind.test:${victim.port}/admin`);
    console.log(`direct: ${result.content.split("\n")[0]}`);
    assert(result.is_error, result.content);
    assert(!result.content.includes(LOOPBACK_SECRET), result.content);
    assertMatch(result.content, new RegExp(`cannot fetch http://rebind\\.test:${victim.port}/`));
    // One resolution for the one connection: the public answer, checked and used.
    assertEquals(dns.lookups("rebind.test"), 1);
  });

  await t.step("sent there by a redirect from an allowed page", async () => {
    const result = await fetchUrl(`http://origin.test:${origin.port}/go`);
    console.log(`redirected: ${result.content.split("\n")[0]}`);
    assert(result.is_error, result.content);
    assert(!result.content.includes(LOOPBACK_SECRET), result.content);
    assertEquals(origin.hits, [`origin.test:${origin.port} /go`]);
    assertEquals(dns.lookups("rebind-again.test"), 1);
  });

  await t.step("the loopback service was never reached", () => {
    console.log(`loopback hits: ${victim.hits.length}; DNS questions: ${dns.queries.length}`);
    assertEquals(victim.hits, []);
  });

  await t.step("once the name answers loopback to the check, it is refused outright", async () => {
    const refused = await fetchUrl(`http://rebind.test:${victim.port}/admin`);
    assert(refused.is_error, refused.content);
    assertMatch(
      refused.content,
      /rebind\.test resolves to 127\.0\.0\.1, which is a loopback address/,
    );
    assertEquals(victim.hits, []);
  });
});
