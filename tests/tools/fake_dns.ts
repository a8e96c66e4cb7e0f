/**
 * A DNS server on 127.0.0.1 (UDP) for tests, speaking the real wire format
 * (RFC 1035) so Deno.resolveDns can ask it. Each name has a script: the
 * addresses to answer on each A lookup, the last one repeated. AAAA lookups
 * of a known name get no records; unknown names get NXDOMAIN.
 */

import dgram from "node:dgram";

const TYPE_A = 1;
const TYPE_AAAA = 28;
const CLASS_IN = 1;

/** A question the server was asked. */
export interface DnsQuery {
  name: string;
  type: "A" | "AAAA" | string;
}

/** A running fake DNS server. */
export interface FakeDns extends AsyncDisposable {
  /** "127.0.0.1:port", as tools.web.dns_server takes it. */
  server: string;
  /** Every question, in order. */
  queries: DnsQuery[];
  /** How many A lookups of `name` it answered. */
  lookups(name: string): number;
}

/**
 * Starts a server answering A lookups of each name in `answers` with its
 * list, one entry per lookup: `{ "rebind.test": ["93.184.215.14", "127.0.0.1"] }`
 * answers a public address first and 127.0.0.1 from then on.
 */
export async function startFakeDns(answers: Record<string, string[]>): Promise<FakeDns> {
  const socket = dgram.createSocket("udp4");
  const queries: DnsQuery[] = [];
  const seen = new Map<string, number>();
  socket.on("message", (message: Uint8Array, peer: { port: number; address: string }) => {
    const question = parseQuestion(message);
    if (!question) return;
    const type = question.type === TYPE_A ? "A" : question.type === TYPE_AAAA ? "AAAA" : "other";
    queries.push({ name: question.name, type });
    const script = answers[question.name];
    let addresses: string[] = [];
    if (script && type === "A") {
      const count = seen.get(question.name) ?? 0;
      seen.set(question.name, count + 1);
      addresses = [script[Math.min(count, script.length - 1)]];
    }
    socket.send(reply(message, question.end, script ? 0 : 3, addresses), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    lookups: (name) => queries.filter((q) => q.name === name && q.type === "A").length,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The first question of a query: its name (lower case), type, and where it ends. */
function parseQuestion(message: Uint8Array): { name: string; type: number; end: number } | null {
  if (message.length < 12) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at];
    labels.push(new TextDecoder().decode(message.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  at += 1; // the root label
  if (at + 4 > message.length) return null;
  const type = (message[at] << 8) | message[at + 1];
  return { name: labels.join(".").toLowerCase(), type, end: at + 4 };
}

/** A response: the query's id and question, `rcode`, and one A record per address. */
function reply(query: Uint8Array, questionEnd: number, rcode: number, addresses: string[]) {
  const header = new Uint8Array(12);
  header.set(query.subarray(0, 2)); // id
  header[2] = 0x84 | (query[2] & 0x01); // QR, AA, and the query's RD
  header[3] = 0x80 | rcode; // RA
  header[5] = 1; // one question
  header[7] = addresses.length;
  const records = addresses.map((address) => {
    const record = new Uint8Array(16);
    record.set([0xc0, 0x0c, 0, TYPE_A, 0, CLASS_IN, 0, 0, 0, 0, 0, 4]); // name → the question; TTL 0
    record.set(address.split(".").map(Number), 12);
    return record;
  });
  const question = query.subarray(12, questionEnd);
  const out = new Uint8Array(12 + question.length + records.length * 16);
  out.set(header);
  out.set(question, 12);
  records.forEach((record, i) => out.set(record, 12 + question.length + i * 16));
  return out;
}
