/**
 * One HTTP/1.1 request over a plain TCP connection, for a read-only command
 * asking the `hob serve` on this machine (running.ts). `fetch` would do, but
 * its first use in a process costs ~12 ms (Deno compiling its Request,
 * Response and stream classes) — a third of an empty `deno run`, paid by every
 * `hob status` — where this takes ~1.5 ms. It speaks only what that server
 * answers a `Connection: close` request with: a status line, headers, and a
 * body sized by `Content-Length`, sent chunked, or ended by the close. The
 * answer is read as soon as it is whole, whether or not the server closes.
 * Anything else is no answer, and the command opens the home itself.
 */

/** The most a response may hold: more is no answer. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** A response: its status and its body as text. */
export interface PlainResponse {
  status: number;
  body: string;
}

/**
 * No response: `unsent` when the request never reached the server (nobody
 * listening, the signal first), `unread` when it did and no answer was read —
 * the server may have acted on it.
 */
export interface PlainFailure {
  failed: "unsent" | "unread";
}

/** What {@linkcode plainRequest} sends. */
export interface PlainRequest {
  method: "GET" | "POST";
  /** An `http:` URL: the server's base and the path, with its query. */
  url: string;
  headers?: Record<string, string>;
  /** A JSON body, sent as `application/json`. */
  json?: unknown;
  signal?: AbortSignal;
}

/**
 * Sends `request` and reads the response.
 *
 * @example
 * ```ts
 * const answer = await plainRequest({ method: "GET", url: "http://127.0.0.1:8484/api/health" });
 * if (!("failed" in answer)) answer.status; // 200
 * ```
 */
export async function plainRequest(request: PlainRequest): Promise<PlainResponse | PlainFailure> {
  const url = new URL(request.url);
  const body = new TextEncoder().encode(
    request.json === undefined ? "" : JSON.stringify(request.json),
  );
  const lines = [
    `${request.method} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    "Connection: close",
    `Content-Length: ${body.length}`,
    ...(request.json === undefined ? [] : ["Content-Type: application/json"]),
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  if (url.protocol !== "http:" || lines.some((line) => /[\r\n]/.test(line))) {
    return { failed: "unsent" };
  }
  const { signal } = request;
  let connection: Deno.TcpConn;
  try {
    connection = await Deno.connect({
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: Number(url.port || 80),
      signal,
    });
  } catch {
    return { failed: "unsent" };
  }
  const close = () => {
    try {
      connection.close();
    } catch { /* closed already */ }
  };
  signal?.addEventListener("abort", close, { once: true });
  try {
    if (signal?.aborted) return { failed: "unsent" };
    const head = new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
    await writeAll(connection, body.length ? concat(head, body) : head);
    return await readResponse(connection) ?? { failed: "unread" };
  } catch {
    return { failed: "unread" };
  } finally {
    signal?.removeEventListener("abort", close);
    close();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  return both;
}

async function writeAll(connection: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  for (let sent = 0; sent < bytes.length;) sent += await connection.write(bytes.subarray(sent));
}

/** Reads until the response is whole (or the server closes), then parses it. */
async function readResponse(connection: Deno.TcpConn): Promise<PlainResponse | undefined> {
  let buffer = new Uint8Array(64 * 1024);
  let length = 0;
  while (true) {
    if (length === buffer.length) {
      if (buffer.length >= MAX_RESPONSE_BYTES) return undefined;
      const larger = new Uint8Array(buffer.length * 2);
      larger.set(buffer);
      buffer = larger;
    }
    const read = await connection.read(buffer.subarray(length));
    if (read === null) return parseResponse(buffer.subarray(0, length));
    length += read;
    if (isWhole(buffer.subarray(0, length))) return parseResponse(buffer.subarray(0, length));
  }
}

/**
 * A whole HTTP/1.1 response, or undefined when it is not one this reads; a
 * body with neither a length nor chunks is all the bytes there are.
 *
 * @example
 * ```ts
 * parseResponse(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n")); // { status: 204, body: "" }
 * ```
 */
export function parseResponse(bytes: Uint8Array): PlainResponse | undefined {
  const head = readHead(bytes);
  if (!head) return undefined;
  const rest = bytes.subarray(head.end);
  let body: Uint8Array | undefined;
  if (head.framing === "none") body = new Uint8Array();
  else if (head.framing === "chunked") body = unchunk(rest);
  else if (head.framing === "close") body = rest;
  else if (head.framing === "unknown") body = undefined;
  else body = head.framing <= rest.length ? rest.subarray(0, head.framing) : undefined;
  if (!body) return undefined;
  return { status: head.status, body: new TextDecoder().decode(body) };
}

/** Whether `bytes` hold a whole response that says where it ends (one ended by the close never does). */
function isWhole(bytes: Uint8Array): boolean {
  const head = readHead(bytes);
  if (!head) return false;
  const rest = bytes.subarray(head.end);
  if (head.framing === "none") return true;
  if (head.framing === "chunked") return chunks(rest) !== undefined;
  if (typeof head.framing === "number") return rest.length >= head.framing;
  return false;
}

/** A response's head: its status, how its body is framed, and where the body starts. */
interface Head {
  status: number;
  /** A byte count (Content-Length), chunks, none (204, 304), until the close, or unknown (refused). */
  framing: number | "chunked" | "none" | "close" | "unknown";
  end: number;
}

function readHead(bytes: Uint8Array): Head | undefined {
  const end = headEnd(bytes);
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = new TextDecoder().decode(bytes.subarray(0, end)).split(
    "\r\n",
  );
  const status = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine)?.[1];
  if (!status) return undefined;
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = headers.get("transfer-encoding")?.toLowerCase();
  const length = headers.get("content-length");
  let framing: Head["framing"];
  if (status === "204" || status === "304") framing = "none";
  else if (encoding !== undefined) framing = encoding === "chunked" ? "chunked" : "unknown";
  else if (length !== undefined) framing = /^\d+$/.test(length) ? Number(length) : "unknown";
  else framing = "close";
  return { status: Number(status), framing, end: end + 4 };
}

/** Where the head ends (the index of its blank line's CRLFCRLF), or -1. */
function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/**
 * A chunked body's chunks (views, not copies: this runs after every read), or
 * undefined when it is cut short or malformed.
 */
function chunks(bytes: Uint8Array): Uint8Array[] | undefined {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (true) {
    let lineEnd = at;
    while (lineEnd + 1 < bytes.length && !(bytes[lineEnd] === 13 && bytes[lineEnd + 1] === 10)) {
      lineEnd++;
    }
    if (lineEnd + 1 >= bytes.length) return undefined;
    const size = /^([0-9a-fA-F]+)(;.*)?$/.exec(
      new TextDecoder().decode(bytes.subarray(at, lineEnd)),
    )?.[1];
    if (size === undefined) return undefined;
    const length = parseInt(size, 16);
    const start = lineEnd + 2;
    if (length === 0) return parts;
    if (start + length + 2 > bytes.length) return undefined;
    if (bytes[start + length] !== 13 || bytes[start + length + 1] !== 10) return undefined;
    parts.push(bytes.subarray(start, start + length));
    at = start + length + 2;
  }
}

/** A chunked body's bytes, joined, or undefined when it is cut short or malformed. */
function unchunk(bytes: Uint8Array): Uint8Array | undefined {
  const parts = chunks(bytes);
  if (!parts) return undefined;
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}
