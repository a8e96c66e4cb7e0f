/**
 * A `hob serve` already running on the home a command names: a read-only
 * command asks it over the API instead of opening the home itself, which
 * answers in the time a request takes rather than the time hob takes to
 * load. Only a server of this very version is asked (the answers' shapes are
 * this version's); anything else, or any failure, leaves the command to open
 * the home as usual.
 */

import { inHome, readToken } from "../home/where.ts";
import { isLiveOwner } from "../store/owner.ts";
import { readServerRecord } from "../store/server_record.ts";
import { VERSION } from "../version.ts";

/** How long the server may take to answer before the command opens the home itself. */
const ASK_TIMEOUT_MS = 5_000;

/** A running server, and how to read from its API. */
export interface RunningServer {
  url: string;
  pid: number;
  /** The JSON at `path` (with its query), or undefined when the server would not say. */
  get<T>(path: string): Promise<T | undefined>;
  /**
   * POSTs to `path` (with `json` as its body, when given): the server's
   * answer, or its refusal's message (the API's `{error: {message}}`, or that
   * no answer came after it was asked); undefined only when the request
   * never reached it.
   */
  post<T>(
    path: string,
    json?: unknown,
  ): Promise<{ ok: true; body: T } | { ok: false; message: string } | undefined>;
}

/**
 * The `hob serve` running on `home`, when there is one of this version.
 *
 * @example
 * ```ts
 * const server = await runningServer(home);
 * const status = await server?.get<HobStatus>("/api/status");
 * ```
 */
export async function runningServer(home: string): Promise<RunningServer | undefined> {
  const record = readServerRecord(inHome(home, "hob.db"));
  if (!record || !isLiveOwner(record.owner)) return undefined;
  const health = await getJson<{ version?: string }>(`${record.url}/api/health`);
  if (health?.version !== VERSION) return undefined;
  let token: string;
  try {
    token = await readToken(home);
  } catch {
    return undefined;
  }
  return {
    url: record.url,
    pid: record.pid,
    get: (path) => getJson(`${record.url}${path}`, token),
    post: (path, json) => postJson(`${record.url}${path}`, token, json),
  };
}

/**
 * The line a command's text output ends with when a server answered for it.
 *
 * @example
 * ```ts
 * seenBy(server); // "(as hob serve, pid 4242, sees it)\n"
 * ```
 */
export function seenBy(server: RunningServer): string {
  return `(as hob serve, pid ${server.pid}, sees it)\n`;
}

/** An answer read whole, or none: `unsent` when the request never reached the server, `unread` when it did. */
type Answer = { status: number; body: string } | { failed: "unsent" | "unread" };

/** One request to the server, bounded by {@linkcode ASK_TIMEOUT_MS} from sending to the body read. */
async function ask(
  method: "GET" | "POST",
  url: string,
  options: { token?: string; json?: unknown } = {},
): Promise<Answer> {
  const { token, json } = options;
  try {
    const response = await fetch(url, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { failed: refused(error) ? "unsent" : "unread" };
  }
}

/**
 * Whether fetch failed to connect (nobody listening any more): Deno says so
 * only in the words of its error's cause ("client error (Connect)"). Anything
 * else, a timeout included, counts as asked and not answered.
 */
function refused(error: unknown): boolean {
  const cause = error instanceof TypeError ? error.cause : undefined;
  return cause instanceof Error && cause.message.includes("(Connect)");
}

async function getJson<T>(url: string, token?: string): Promise<T | undefined> {
  const response = await ask("GET", url, { token });
  if ("failed" in response || response.status < 200 || response.status > 299) return undefined;
  try {
    return JSON.parse(response.body) as T;
  } catch {
    return undefined;
  }
}

async function postJson<T>(
  url: string,
  token: string,
  json?: unknown,
): Promise<{ ok: true; body: T } | { ok: false; message: string } | undefined> {
  const response = await ask("POST", url, { token, json });
  // Asked, but no answer read: the server may have acted, so the command must not do it again.
  const unread = { ok: false as const, message: "hob serve did not answer in time" };
  if ("failed" in response) return response.failed === "unsent" ? undefined : unread;
  let body;
  try {
    body = JSON.parse(response.body);
  } catch {
    return unread;
  }
  return response.status >= 200 && response.status < 300
    ? { ok: true, body: body as T }
    : { ok: false, message: String(body?.error?.message ?? `HTTP ${response.status}`) };
}
