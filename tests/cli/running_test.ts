/**
 * How a read-only command asks the `hob serve` a home records (running.ts),
 * against a real TCP server on 127.0.0.1 that speaks as that server would, or
 * does not answer at all: only a server of this version is asked; a POST it
 * received and never answered is "did not answer" (it may have acted, so the
 * command must not act again), one that never reached it leaves the command
 * to open the home itself.
 */

import { runningServer } from "../../src/cli/running.ts";
import { openDatabase } from "../../src/store/database.ts";
import { SqliteKv } from "../../src/store/kv.ts";
import { PROCESS_OWNER } from "../../src/store/owner.ts";
import { ServerRecord } from "../../src/store/server_record.ts";
import { VERSION } from "../../src/version.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

const TOKEN = "a-token-of-sixteen-or-more";

/** One HTTP/1.1 answer that closes its connection. */
function answer(status: number, json: unknown): string {
  const body = JSON.stringify(json);
  return `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\nconnection: close\r\n` +
    `content-length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`;
}

/** A request's head and body, read whole (closing with bytes unread would reset the connection). */
async function readRequest(connection: Deno.Conn): Promise<string> {
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  while (true) {
    const read = await connection.read(buffer);
    if (read === null) return text;
    text += new TextDecoder().decode(buffer.subarray(0, read));
    const end = text.indexOf("\r\n\r\n");
    const length = Number(/^content-length: (\d+)$/im.exec(text)?.[1] ?? 0);
    if (end >= 0 && new TextEncoder().encode(text.slice(end + 4)).length >= length) return text;
  }
}

/**
 * A server that answers health as `version`, `GET /api/thing` with its
 * authorization, a refusal at `POST /api/refuse`, and reads `POST /api/drop`
 * and closes without a word; every request it read is in `seen`.
 */
function fakeServe(version: string) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: string[] = [];
  const serving = (async () => {
    for await (const connection of listener) {
      const text = await readRequest(connection);
      const line = text.split("\r\n")[0];
      seen.push(line);
      const auth = /^authorization: (.*)$/im.exec(text)?.[1];
      const reply = line.startsWith("GET /api/health ")
        ? answer(200, { version })
        : line.startsWith("GET /api/thing ")
        ? answer(200, { auth })
        : line.startsWith("POST /api/refuse ")
        ? answer(409, { error: { message: "not like that" } })
        : undefined;
      if (reply) await connection.write(new TextEncoder().encode(reply));
      connection.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    seen,
    async close() {
      try {
        listener.close();
      } catch { /* closed already */ }
      await serving.catch(() => {});
    },
  };
}

/** A home whose hob.db records a server at `url` run by this process, and its token. */
async function homeServedAt(url: string): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "hob-running-" });
  const db = openDatabase(`${home}/hob.db`);
  new ServerRecord(new SqliteKv(db)).write({ url, pid: Deno.pid, owner: PROCESS_OWNER });
  db.close();
  await Deno.writeTextFile(`${home}/token`, TOKEN);
  return home;
}

Deno.test("runningServer asks the recorded server of this version, and tells unsent from unanswered", async () => {
  const fake = fakeServe(VERSION);
  const home = await homeServedAt(fake.url);
  try {
    const server = await runningServer(home);
    assert(server, "a server of this version is asked");
    assertEquals(server.url, fake.url);
    assertEquals(server.pid, Deno.pid);
    assertEquals(await server.get("/api/thing"), { auth: `Bearer ${TOKEN}` });
    assertEquals(await server.get("/api/nothing"), undefined);
    assertEquals(await server.post("/api/refuse", { a: 1 }), {
      ok: false,
      message: "not like that",
    });
    // Received and not answered: the server may have acted on it.
    assertEquals(await server.post("/api/drop"), {
      ok: false,
      message: "hob serve did not answer in time",
    });
    assert(fake.seen.includes("POST /api/drop HTTP/1.1"), fake.seen.join(", "));
    // Nobody listening any more: never sent, so the command may do it itself.
    await fake.close();
    assertEquals(await server.post("/api/drop"), undefined);
  } finally {
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("runningServer asks no server of another version, and none that is not recorded", async () => {
  const other = fakeServe("0.0.0-other");
  const home = await homeServedAt(other.url);
  const empty = await Deno.makeTempDir({ prefix: "hob-running-" });
  try {
    assertEquals(await runningServer(home), undefined);
    assertEquals(other.seen, ["GET /api/health HTTP/1.1"]);
    assertEquals(await runningServer(empty), undefined);
  } finally {
    await other.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(empty, { recursive: true });
  }
});
