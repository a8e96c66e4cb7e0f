/**
 * pinnedGet connects to the checked address whatever the URL's name, and
 * still speaks to the name: Host header, and for https SNI and the
 * certificate check — against real servers on 127.0.0.1.
 */

import { gzipSync } from "node:zlib";
import { assert, assertEquals, assertMatch, assertRejects } from "../../helpers/assert.ts";
import { runHobCode } from "../../helpers/hob_process.ts";
import { makeCertificates } from "../../helpers/tls.ts";
import { pinnedGet } from "../../../src/tools/web/pinned_http.ts";

const LOOPBACK = [{ address: "127.0.0.1", family: 4 as const }];
const options = () => ({ headers: {}, signal: new AbortController().signal, timeoutMs: 30_000 });

Deno.test("pinnedGet reaches the pinned address under the URL's name", async (t) => {
  const hosts: string[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    (request) => {
      hosts.push(request.headers.get("host") ?? "");
      const path = new URL(request.url).pathname;
      if (path === "/gzip") {
        return new Response(new Uint8Array(gzipSync("squeezed ".repeat(1_000))), {
          headers: { "content-encoding": "gzip", "content-type": "text/plain" },
        });
      }
      return new Response("x".repeat(100_000), { headers: { "content-type": "text/plain" } });
    },
  );
  const base = `http://never-resolved.test:${server.addr.port}`;
  try {
    await t.step("the name is never looked up; the Host header carries it", async () => {
      const response = await pinnedGet(new URL(`${base}/big`), LOOPBACK, options());
      assertEquals(response.status, 200);
      assertEquals((await response.read(1_000)).length, 1_000);
      assertEquals(hosts, [`never-resolved.test:${server.addr.port}`]);
    });
    await t.step("a gzip body is decoded, and capped after decoding", async () => {
      const whole = await pinnedGet(new URL(`${base}/gzip`), LOOPBACK, options());
      assertEquals(
        new TextDecoder().decode(await whole.read(1_000_000)),
        "squeezed ".repeat(1_000),
      );
      const capped = await pinnedGet(new URL(`${base}/gzip`), LOOPBACK, options());
      assertEquals(new TextDecoder().decode(await capped.read(20)), "squeezed squeezed sq");
    });
    await t.step(
      "only the pinned address is tried: nothing listens on ::1, so it fails",
      async () => {
        const error = await assertRejects(() =>
          pinnedGet(new URL(`${base}/big`), [{ address: "::1", family: 6 }], options())
        );
        assertMatch(error.message, /cannot fetch http:\/\/never-resolved\.test/);
        assertEquals(hosts.length, 3, "no request reached the server on 127.0.0.1");
      },
    );
  } finally {
    controller.abort();
    await server.finished;
  }
});

Deno.test("pinnedGet over https checks the certificate against the URL's name, not the address", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hob-tls-" });
  try {
    if (!(await makeCertificates(dir, "pinned.test"))) return; // no openssl here: nothing to test
    const controller = new AbortController();
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      onListen: () => {},
      cert: await Deno.readTextFile(`${dir}/pinned.test.pem`),
      key: await Deno.readTextFile(`${dir}/pinned.test.key`),
    }, (request) => new Response(`tls for ${request.headers.get("host")}`));
    try {
      // Deno trusts DENO_CERT, read at start: hence a process of its own, with hob's flags.
      const fetchAs = (name: string) => runPinned(`https://${name}:${server.addr.port}/`, dir);
      assertEquals(await fetchAs("pinned.test"), `200 tls for pinned.test:${server.addr.port}`);
      assertMatch(await fetchAs("other.test"), /^error: .*(altnames|certificate)/);
    } finally {
      controller.abort();
      await server.finished;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** "STATUS BODY" or "error: …" from pinnedGet, run as hob in a Deno trusting `dir`'s CA. */
async function runPinned(url: string, dir: string): Promise<string> {
  const module = new URL("../../../src/tools/web/pinned_http.ts", import.meta.url).href;
  const script = `
    import { pinnedGet } from ${JSON.stringify(module)};
    try {
      const response = await pinnedGet(new URL(${JSON.stringify(url)}),
        [{ address: "127.0.0.1", family: 4 }],
        { headers: {}, signal: new AbortController().signal, timeoutMs: 30000 });
      console.log(response.status, new TextDecoder().decode(await response.read(1000)));
    } catch (error) {
      console.log("error:", error.message);
    }`;
  const output = await runHobCode(script, { env: { DENO_CERT: `${dir}/ca.pem` } });
  const text = output.stdout.trim();
  assert(text, output.stderr);
  return text;
}
