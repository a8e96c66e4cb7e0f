/** resolveFetchable: one resolution, checked, against a real DNS server on 127.0.0.1. */

import { assertEquals, assertMatch, assertRejects } from "../../helpers/assert.ts";
import { parseDnsServer, resolveFetchable } from "../../../src/tools/web/address.ts";
import { startFakeDns } from "../fake_dns.ts";

const closed = { allow_private: false, allow_hosts: [] as string[] };

Deno.test("resolveFetchable returns the checked addresses to connect to", async (t) => {
  await using dns = await startFakeDns({
    "public.test": ["93.184.215.14"],
    "private.test": ["10.1.2.3"],
    "flips.test": ["93.184.215.14", "127.0.0.1"],
  });
  const policy = { ...closed, dns_server: dns.server };
  await t.step("a public name, asked of the configured server", async () => {
    assertEquals(await resolveFetchable(new URL("http://public.test/"), policy), [
      { address: "93.184.215.14", family: 4 },
    ]);
  });
  await t.step("a private answer is refused, naming the setting that allows it", async () => {
    const error = await assertRejects(() =>
      resolveFetchable(new URL("http://private.test/"), policy)
    );
    assertMatch(
      error.message,
      /private\.test resolves to 10\.1\.2\.3, which is a private-network address — allow it with tools\.web\.allow_hosts/,
    );
  });
  await t.step("an allowed name is resolved but not checked", async () => {
    assertEquals(
      await resolveFetchable(new URL("http://private.test/"), {
        ...policy,
        allow_hosts: ["Private.Test"],
      }),
      [{ address: "10.1.2.3", family: 4 }],
    );
  });
  await t.step(
    "each call is a resolution of its own: what flips is caught when it flips",
    async () => {
      await resolveFetchable(new URL("http://flips.test/"), policy);
      await assertRejects(() => resolveFetchable(new URL("http://flips.test/"), policy));
      assertEquals(dns.lookups("flips.test"), 2);
    },
  );
  await t.step("unknown names, literals, localhost, credentials and schemes", async () => {
    assertMatch(
      (await assertRejects(() => resolveFetchable(new URL("http://nope.test/"), policy))).message,
      /cannot resolve the host 'nope\.test'/,
    );
    assertEquals(await resolveFetchable(new URL("http://[2606:4700::1111]/"), policy), [
      { address: "2606:4700::1111", family: 6 },
    ]);
    assertMatch(
      (await assertRejects(() => resolveFetchable(new URL("http://[::ffff:10.0.0.1]/"), policy)))
        .message,
      /private-network/,
    );
    assertMatch(
      (await assertRejects(() => resolveFetchable(new URL("http://app.localhost/"), policy)))
        .message,
      /app\.localhost resolves to 127\.0\.0\.1/,
    );
    assertMatch(
      (await assertRejects(() => resolveFetchable(new URL("http://u:p@public.test/"), policy)))
        .message,
      /credentials/,
    );
    assertMatch(
      (await assertRejects(() => resolveFetchable(new URL("ftp://public.test/"), policy))).message,
      /only http and https/,
    );
  });
});

Deno.test("parseDnsServer takes IP:port and [IPv6]:port", () => {
  assertEquals(parseDnsServer("127.0.0.1:5353"), { ipAddr: "127.0.0.1", port: 5353 });
  assertEquals(parseDnsServer("1.1.1.1"), { ipAddr: "1.1.1.1", port: 53 });
  assertEquals(parseDnsServer("[2606:4700:4700::1111]:53"), {
    ipAddr: "2606:4700:4700::1111",
    port: 53,
  });
  for (const bad of ["dns.example:53", "1.1.1.1:99999", "[zz]:53", ""]) {
    let threw = false;
    try {
      parseDnsServer(bad);
    } catch (error) {
      threw = /tools\.web\.dns_server/.test((error as Error).message);
    }
    assertEquals(threw, true, bad);
  }
});
