/**
 * The plain HTTP/1.1 request a read-only command asks a running `hob serve`
 * with: against a real Deno.serve on 127.0.0.1 (sized, chunked and empty
 * bodies, statuses, headers), a server that never answers or never closes,
 * and raw bytes that are no HTTP response.
 */

import { parseResponse, plainRequest } from "../../src/cli/plain_http.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("plainRequest reads what Deno.serve answers: sized, chunked and empty bodies", async () => {
  const big = "é".repeat(300_000);
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/json") {
      return Response.json({
        method: request.method,
        auth: request.headers.get("authorization"),
        query: url.search,
      });
    }
    if (url.pathname === "/stream") {
      // A body of unknown length goes out chunked.
      const parts = [big.slice(0, 1000), big.slice(1000)];
      return new Response(
        new ReadableStream({
          pull(controller) {
            const next = parts.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(bytes(next));
          },
        }),
      );
    }
    if (url.pathname === "/none") return new Response(null, { status: 204 });
    return Response.json({ error: { message: "no such thing" } }, { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;

  const asked = await plainRequest({
    method: "POST",
    url: `${base}/json?q=1`,
    headers: { authorization: "Bearer t0ken" },
  });
  assert(!("failed" in asked));
  assertEquals(asked.status, 200);
  assertEquals(JSON.parse(asked.body), { method: "POST", auth: "Bearer t0ken", query: "?q=1" });

  const streamed = await plainRequest({ method: "GET", url: `${base}/stream` });
  assert(!("failed" in streamed));
  assertEquals(streamed.body.length, big.length);
  assertEquals(streamed.body, big);

  assertEquals(await plainRequest({ method: "GET", url: `${base}/none` }), {
    status: 204,
    body: "",
  });
  const missing = await plainRequest({ method: "GET", url: `${base}/elsewhere` });
  assert(!("failed" in missing));
  assertEquals(missing.status, 404);
  assertEquals(JSON.parse(missing.body).error.message, "no such thing");
});

Deno.test("plainRequest gives up: no answer before the signal, a signal gone before it connects, a header with a newline", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  // Accepts and never answers.
  const silent: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const connection of listener) silent.push(connection);
  })();
  try {
    assertEquals(
      await plainRequest({
        method: "GET",
        url: `http://127.0.0.1:${port}/api/health`,
        signal: AbortSignal.timeout(200),
      }),
      { failed: "unread" },
    );
    const accepted = silent.length;
    assertEquals(
      await plainRequest({
        method: "POST",
        url: `http://127.0.0.1:${port}/api/channels/x/test`,
        signal: AbortSignal.abort(),
      }),
      { failed: "unsent" },
    );
    assertEquals(
      await plainRequest({
        method: "GET",
        url: `http://127.0.0.1:${port}/`,
        headers: { authorization: "Bearer x\r\nX-Injected: 1" },
      }),
      { failed: "unsent" },
    );
    assertEquals(
      await plainRequest({ method: "GET", url: `https://127.0.0.1:${port}/` }),
      { failed: "unsent" },
    );
    // None of the three refused before sending reached the server.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assertEquals(silent.length, accepted);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const connection of silent) connection.close();
  }
});

Deno.test("plainRequest reads a whole answer on a connection the server keeps open", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const serving = (async () => {
    for await (const connection of listener) {
      held.push(connection);
      // Reads the request, answers in two writes, and keeps the connection open.
      await connection.read(new Uint8Array(4096));
      const body = JSON.stringify({ version: "0.1.0" });
      await connection.write(bytes(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`));
      await connection.write(bytes(body));
    }
  })();
  try {
    const answer = await plainRequest({
      method: "GET",
      url: `http://127.0.0.1:${listener.addr.port}/api/health`,
      signal: AbortSignal.timeout(20_000),
    });
    assertEquals(answer, { status: 200, body: '{"version":"0.1.0"}' });
  } finally {
    listener.close();
    await serving.catch(() => {});
    for (const connection of held) connection.close();
  }
});

Deno.test("parseResponse reads a response whole or not at all", () => {
  const parse = (text: string) => parseResponse(bytes(text));
  assertEquals(parse("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"), {
    status: 200,
    body: "{}",
  });
  // Past Content-Length is not the body; short of it is no answer.
  assertEquals(parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}xyz")?.body, "{}");
  assertEquals(parse("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}"), undefined);
  // Ended by the close.
  assertEquals(parse("HTTP/1.0 200 OK\r\n\r\nall of it")?.body, "all of it");
  assertEquals(
    parse(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n",
    )
      ?.body,
    "Wikipedia",
  );
  for (
    const broken of [
      "",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n",
      "SMTP 220 hello\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nxx",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nWiki\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nWiki\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nWiki\r\n0\r\n\r\n",
    ]
  ) {
    assertEquals(parse(broken), undefined, JSON.stringify(broken));
  }
});
