/**
 * Hostile input against a real `hob serve`: a seeded fuzz of every route the
 * OpenAPI document lists, `/v1`, `/mcp`, the page and its fragments — malformed
 * JSON, wrong types, missing and extra fields, huge and over-limit bodies,
 * invalid UTF-8, deep nesting, traversal in path parameters, bad query strings,
 * wrong content types and methods, bad credentials, raw protocol garbage, then
 * a flood of concurrent requests. Every answer must be a 4xx with the error in
 * its API's JSON shape (or a success), never a 5xx, never a hang, never a byte
 * of a file outside what the route may read; the server must keep serving.
 *
 * HOB_FUZZ_SEED and HOB_FUZZ_CASES replay or widen a run.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";
import {
  deepNesting,
  type Fuzzer,
  fuzzer,
  HOSTILE_STRINGS,
  hostileValue,
  invalidUtf8Json,
  MALFORMED_JSON,
  setOwn,
  TRAVERSAL_PATHS,
  TRAVERSAL_SEGMENTS,
} from "../helpers/fuzz.ts";

/** Printed with the summary, so a failing run can be replayed. */
const SEED = Number(Deno.env.get("HOB_FUZZ_SEED") ?? 0x0b0b_2026);
/** Cases before the flood. */
const CASES = Number(Deno.env.get("HOB_FUZZ_CASES") ?? 3_200);
/** Requests sent at once at the end. */
const FLOOD = 500;
/** Requests in flight during the main run: enough to interleave, few enough for a busy 2-core box. */
const CONCURRENCY = 6;
/** Longer than any answer should take on a loaded machine; reaching it is a hang. */
const REQUEST_TIMEOUT_MS = 15_000;
/** server.max_body_bytes of the fuzzed home: small, so the 413 path is cheap to reach. */
const MAX_BODY = 262_144;
/** server.max_upload_bytes of the fuzzed home. */
const MAX_UPLOAD = 65_536;
/** Longest value put in a URL: fetch refuses to send much longer ones (a client limit, not hob's). */
const MAX_URL_VALUE = 8_000;
/** Nesting depth of the deep-nesting cases: 200 KB of brackets, under MAX_BODY. */
const DEEP = 100_000;
/** As deep as fits under MAX_BODY: an object level (`{"a":…}`) takes six bytes, an array's two. */
const depthOf = (kind: "array" | "object") => kind === "array" ? DEEP : DEEP / 4;

type Area = "api" | "v1" | "mcp" | "ui" | "page";
type Json = Record<string, unknown>;

/** One request to send. */
interface Probe {
  /** The row of the table: `POST /api/chat`. */
  endpoint: string;
  /** What the case tries: `wrong_type`, `traversal`, … */
  kind: string;
  method: string;
  /** Path and query as they go on the wire (already encoded). */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | FormData | ReadableStream<Uint8Array>;
  /** Bytes for a raw TCP connection instead of fetch. */
  raw?: Uint8Array;
}

/** What came back. */
interface Outcome {
  status: number;
  contentType: string;
  text: string;
  /** fetch failed or the connection closed without an answer. */
  dropped?: string;
  timedOut?: boolean;
}

/** A route from the OpenAPI document. */
interface Operation {
  method: string;
  template: string;
  params: string[];
  query: [string, JsonSchema][];
  body?: { schema: JsonSchema; type: string; required: boolean };
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

/** Ids and names that exist, so cases reach past the 404s. */
interface Fixtures {
  conversations: string[];
  schedules: string[];
  tasks: string[];
  uploads: string[];
  tools: string[];
  memoryFiles: string[];
  notifications: string[];
  approvals: string[];
}

/** Tools with effects outside the home: denied by policy, so fuzzed arguments only meet validation. */
const DENIED_TOOLS = [
  "run_command",
  "run_python",
  "email_file",
  "fetch_url",
  "web_search",
  "build_tool",
  "build_skill",
];

const MCP_TOOLS: Record<string, Json> = {
  search_memory: { query: "birthday" },
  memory_get: { path: "MEMORY.md" },
  remember_this: { text: "The fuzzer was here." },
  log_note: { text: "A fuzzed note." },
  create_task: { title: "Fuzzed task", prompt: "Say ok" },
  ask_hob: { message: "Say ok" },
};

const UI_PANELS = ["memory", "schedules", "tasks", "approvals", "tools", "notifications"];
const PAGE_VIEWS = [
  "/",
  "/memory",
  "/schedules",
  "/tasks",
  "/approvals",
  "/tools",
  "/notifications",
];

Deno.test("every endpoint survives a seeded fuzz of hostile input and a flood, and keeps serving", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "ok" } });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `memory: { embedder: none }
server: { max_body_bytes: ${MAX_BODY}, max_upload_bytes: ${MAX_UPLOAD}, max_auth_failures: 10000 }
scheduler: { enabled: false }
heartbeat: { enabled: false }
agent: { auto_title: false }
tools:
  policies: { ${DENIED_TOOLS.map((name) => `${name}: deny`).join(", ")} }
`,
  ));
  // Files a traversal would reach: neither may ever appear in an answer.
  const canary = `CANARY-${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${home.home}/canary.md`, `${canary}\n`);
  await Deno.writeTextFile(`${home.home}/memory/MEMORY.md`, "# Memory\n\n- Ada likes tea.\n");
  await using hob = await startHob(home.home);
  const f = fuzzer(SEED);

  const session = await signIn(hob);
  const fixtures = await makeFixtures(hob);
  const operations = await listOperations(hob);
  const generate = caseGenerator(f, { hob, session, fixtures, operations });
  const secrets = [canary, hob.token, "root:x:0:0:"];

  const stats = new Map<string, { cases: number; by: Record<string, number> }>();
  /** Bad answers by endpoint and problem, each with its first example. */
  const failures = new Map<string, { count: number; example: string }>();
  let cases = 0;
  let fiveHundreds = 0;
  let timeouts = 0;
  const record = (probe: Probe, outcome: Outcome) => {
    cases++;
    const row = stats.get(probe.endpoint) ?? { cases: 0, by: {} };
    stats.set(probe.endpoint, row);
    row.cases++;
    const bucket = outcome.timedOut
      ? "hang"
      : outcome.dropped
      ? "drop"
      : `${Math.floor(outcome.status / 100)}xx`;
    row.by[bucket] = (row.by[bucket] ?? 0) + 1;
    if (outcome.status >= 500) fiveHundreds++;
    if (outcome.timedOut) timeouts++;
    const problem = judge(probe, outcome, secrets);
    if (problem) {
      const key = `${probe.endpoint}: ${problem.slice(0, 60)}`;
      const seen = failures.get(key);
      if (seen) seen.count++;
      else {
        failures.set(key, {
          count: 1,
          example: `${probe.endpoint} [${probe.kind}] ${probe.method} ${
            probe.target.slice(0, 160)
          }: ${problem.slice(0, 400)}`,
        });
      }
    }
  };

  // The main run: CASES cases, a few in flight at a time.
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < CASES) {
      next++;
      const probe = generate();
      record(probe, await send(hob.url, probe));
      // The fake keeps what it was sent; the fuzz needs none of it.
      if (fake.requests.length > 100) fake.requests.length = 0;
    }
  }));

  // The flood: FLOOD requests at once, ordinary and hostile mixed.
  const flood = Array.from(
    { length: FLOOD },
    (_, i) => i % 5 === 0 ? chatProbe(f, hob.token) : i % 5 === 1 ? healthProbe() : generate(),
  );
  const answers = await Promise.all(flood.map((probe) => send(hob.url, probe)));
  flood.forEach((probe, i) => record({ ...probe, kind: `flood:${probe.kind}` }, answers[i]));
  fake.requests.length = 0;

  // Still serving: health, an ordinary chat, and the process alive.
  const health = await hob.fetch("/api/health");
  assertEquals(health.status, 200);
  await health.body?.cancel();
  const chat = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "Are you still there?" }),
  });
  assertEquals(chat.status, 200);
  assertEquals((await chat.json()).content, "ok");
  const exited = await Promise.race([
    hob.process.status.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
  ]);
  assert(!exited, "hob serve exited during the fuzz");

  console.log(table(stats));
  console.log(
    `fuzz: seed ${SEED}, ${cases} cases, 5xx ${fiveHundreds}, timeouts ${timeouts}, server alive`,
  );
  const log = hob.stderr().split("\n");
  // A 500 is logged as an internal error; a crashed task worker (a poisoned row) as stopped.
  const internal = log.filter((line) => /internal error|worker stopped/i.test(line));
  // The first few errors with their stacks, to start debugging from.
  for (const line of internal.slice(0, 3)) {
    console.log(log.slice(log.indexOf(line), log.indexOf(line) + 12).join("\n"));
  }
  const bad = [...failures.values()].map(({ count, example }) => `${count}× ${example}`);
  assertEquals(bad, [], `bad answers (seed ${SEED})`);
  assertEquals(internal, [], "hob logged internal errors");
  assertEquals(fiveHundreds, 0);
  assertEquals(timeouts, 0);
  assert(cases >= CASES + FLOOD, `${cases} cases`);
});

// ------------------------------------------------------------------ setup

/** Opens the `?token=` link as the page does; returns the session cookie. */
async function signIn(hob: HobServer): Promise<string> {
  const response = await fetch(`${hob.url}/?token=${hob.token}`, { redirect: "manual" });
  await response.body?.cancel();
  const cookie = response.headers.get("set-cookie") ?? "";
  assert(/^hob_session=/.test(cookie), `no session cookie: ${response.status}`);
  return cookie.split(";")[0];
}

async function makeFixtures(hob: HobServer): Promise<Fixtures> {
  const post = async (path: string, body: unknown) => {
    const response = await hob.fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
    return await response.json() as Json;
  };
  const conversations: string[] = [];
  for (let i = 0; i < 8; i++) {
    conversations.push(String((await post("/api/conversations", { title: `c${i}` })).id));
  }
  conversations.push(String((await post("/api/chat", { message: "hello" })).conversation_id));
  const schedules: string[] = [];
  for (let i = 0; i < 5; i++) {
    const job = await post("/api/schedules", {
      name: `job-${i}`,
      prompt: "Say ok",
      schedule: "0 9 * * *",
    });
    schedules.push(String(job.id));
  }
  const tasks: string[] = [];
  for (let i = 0; i < 5; i++) {
    tasks.push(String((await post("/api/tasks", { title: `task ${i}` })).id));
  }
  const form = new FormData();
  form.append("file", new File(["a,b\n1,2\n"], "data.csv", { type: "text/csv" }));
  const upload = await hob.fetch("/api/uploads", { method: "POST", body: form });
  assertEquals(upload.status, 201);
  const uploads = ((await upload.json()).uploads as { path: string }[]).map((u) => u.path);
  const listed = await (await hob.fetch("/api/tools")).json() as { tools: { name: string }[] };
  const tools = listed.tools.map((tool) => tool.name);
  assert(tools.includes("read_file") && tools.includes("get_time"), tools.join(", "));
  await post("/api/memory/log", { text: "A note for today." });
  const files = await (await hob.fetch("/api/memory/files")).json() as { files: string[] };
  return {
    conversations,
    schedules,
    tasks,
    uploads,
    tools,
    memoryFiles: files.files,
    notifications: ["all", "1", "2"],
    approvals: [crypto.randomUUID()],
  };
}

/** Every operation of the OpenAPI document, the schemas the handlers validate with. */
async function listOperations(hob: HobServer): Promise<Operation[]> {
  const response = await hob.fetch("/api/openapi.json");
  assertEquals(response.status, 200);
  const document = await response.json() as {
    paths: Record<string, Record<string, Json>>;
  };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const parameters = (operation.parameters ?? []) as {
        name: string;
        in: string;
        schema: JsonSchema;
      }[];
      const request = operation.requestBody as
        | { required: boolean; content: Record<string, { schema: JsonSchema }> }
        | undefined;
      const [type, content] = request ? Object.entries(request.content)[0] : [];
      operations.push({
        method: method.toUpperCase(),
        template,
        params: parameters.filter((p) => p.in === "path").map((p) => p.name),
        query: parameters.filter((p) => p.in === "query").map((p) => [p.name, p.schema]),
        body: request && type && content
          ? { schema: content.schema, type, required: request.required }
          : undefined,
      });
    }
  }
  assert(operations.length >= 40, `only ${operations.length} operations documented`);
  return operations;
}

// ------------------------------------------------------------------ cases

interface World {
  hob: HobServer;
  session: string;
  fixtures: Fixtures;
  operations: Operation[];
}

/** A function that returns the next case; the sequence depends only on the seed and the world. */
function caseGenerator(f: Fuzzer, world: World): () => Probe {
  const { hob } = world;
  const bearer = { authorization: `Bearer ${hob.token}` };
  const generators: [number, () => Probe][] = [
    [62, () => apiCase(f, world, f.pick(world.operations))],
    [10, () => v1Case(f, hob.token)],
    [12, () => mcpCase(f, world)],
    [10, () => uiCase(f, world)],
    [3, () => pageCase(f, world)],
    [3, () => rawCase(f, world)],
  ];
  const total = generators.reduce((sum, [weight]) => sum + weight, 0);
  return () => {
    let roll = f.int(1, total);
    for (const [weight, generate] of generators) {
      roll -= weight;
      if (roll <= 0) {
        const probe = generate();
        // Now and then, credentials or an origin that must be refused.
        return f.chance(0.04) && !probe.raw ? hostileAuth(f, probe, bearer) : probe;
      }
    }
    throw new Error("unreachable");
  };
}

/** Replaces the credentials (or adds a foreign origin): the answer must be a 401/403/429 in shape. */
function hostileAuth(f: Fuzzer, probe: Probe, bearer: Record<string, string>): Probe {
  const headers = { ...probe.headers };
  delete headers.authorization;
  delete headers.cookie;
  const variant = f.int(0, 9);
  const token = bearer.authorization.slice(7);
  if (variant === 1) headers.authorization = `Bearer ${token}x`;
  if (variant === 2) headers.authorization = "Bearer";
  if (variant === 3) headers.authorization = `Basic ${btoa(`hob:${token}`)}`;
  if (variant === 4) headers.authorization = `Bearer ${token} ${token}`;
  if (variant === 5) headers.authorization = `Bearer ${"A".repeat(20_000)}`;
  if (variant === 6) {
    headers.cookie = `hob_session=${f.pick(["", "%ff", "x".repeat(5_000), token])}`;
  }
  if (variant === 7) {
    Object.assign(headers, bearer, { origin: f.pick(["null", "https://evil.example", "file://"]) });
  }
  if (variant === 8) Object.assign(headers, bearer, { "sec-fetch-site": "cross-site" });
  if (variant === 9) headers.authorization = `Bearer ${token.slice(0, -1)}`;
  return { ...probe, kind: `auth:${probe.kind}`, headers };
}

/** One case against a documented /api route. */
function apiCase(f: Fuzzer, world: World, op: Operation): Probe {
  const headers: Record<string, string> = { authorization: `Bearer ${world.hob.token}` };
  const endpoint = `${op.method} ${op.template}`;
  const kinds = ["valid", "bad_query", "method"];
  if (op.params.length > 0) kinds.push("traversal", "traversal", "bad_param");
  if (op.body) {
    kinds.push(
      "missing",
      "wrong_type",
      "wrong_type",
      "extra",
      "hostile",
      "hostile",
      "huge_string",
      "not_object",
      "malformed_json",
      "invalid_utf8",
      "deep_nesting",
      "too_large",
      "content_type",
    );
  } else if (op.method === "DELETE") kinds.push("too_large");
  else if (op.method !== "GET") kinds.push("too_large", "malformed_json");
  const kind = f.pick(kinds);
  const path = fillPath(
    f,
    op,
    world.fixtures,
    kind === "traversal" ? "traversal" : kind === "bad_param" ? "bad" : "valid",
  );
  const query = op.query.length > 0 || kind === "bad_query"
    ? queryString(f, op.query, kind === "bad_query")
    : "";
  const probe: Probe = { endpoint, kind, method: op.method, target: path + query, headers };
  if (kind === "method") {
    probe.method = f.pick(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND"]);
    if (!["GET", "HEAD"].includes(probe.method) && f.chance(0.5)) {
      headers["content-type"] = "application/json";
      probe.body = JSON.stringify(hostileValue(f));
    }
    return probe;
  }
  if (op.method === "GET") return probe;
  if (kind === "too_large") {
    headers["content-type"] = op.body?.type ?? "application/json";
    probe.body = tooLarge(f, MAX_BODY);
    if (op.template === "/api/uploads") {
      headers["content-type"] = "multipart/form-data; boundary=x";
      probe.body = tooLarge(f, MAX_UPLOAD);
    }
    return probe;
  }
  if (op.method === "DELETE") return probe;
  if (op.template === "/api/uploads") return uploadCase(f, probe);
  if (!op.body) {
    if (kind === "malformed_json") {
      headers["content-type"] = "application/json";
      probe.body = f.pick(MALFORMED_JSON);
    }
    return probe;
  }
  headers["content-type"] = "application/json";
  const valid = sample(f, op.body.schema, world.fixtures, "") as Json;
  probe.body = jsonBody(f, kind, valid, op.body.schema, headers);
  return probe;
}

/** A JSON body for `kind`, built from a valid one. */
function jsonBody(
  f: Fuzzer,
  kind: string,
  valid: Json,
  schema: JsonSchema | undefined,
  headers: Record<string, string>,
): string | Uint8Array<ArrayBuffer> {
  switch (kind) {
    case "valid":
      return JSON.stringify(valid);
    case "missing":
      return JSON.stringify(dropRequired(f, valid, schema));
    case "wrong_type":
      return JSON.stringify(mutate(f, valid, (value) => wrongType(f, value)));
    case "extra":
      return JSON.stringify({
        ...valid,
        [f.pick(["__proto__", "constructor", "extra", f.word(10), "toString"])]: hostileValue(f),
      });
    case "hostile":
      return JSON.stringify(mutate(f, valid, () => hostileValue(f)));
    case "huge_string":
      return JSON.stringify(mutate(f, valid, () => "x".repeat(f.int(50_000, MAX_BODY - 1_000))));
    case "not_object":
      return JSON.stringify(f.pick([[], [valid], "text", 42, null, true]));
    case "malformed_json":
      return f.pick(MALFORMED_JSON);
    case "invalid_utf8": {
      const text = JSON.stringify(valid);
      const at = text.lastIndexOf('"', text.length - 2);
      return invalidUtf8Json(
        f,
        at > 0 ? `${text.slice(0, at)}@@${text.slice(at)}` : `{"a":"@@"}`,
      );
    }
    case "deep_nesting": {
      const kindOf = f.pick(["array", "object"] as const);
      if (f.chance(0.4)) return deepNesting(depthOf(kindOf), kindOf);
      const key = Object.keys(valid)[0] ?? "a";
      const depth = f.pick([1_000, 10_000, depthOf(kindOf)]);
      return `{${JSON.stringify(key)}:${deepNesting(depth, kindOf)}}`;
    }
    case "content_type": {
      headers["content-type"] = f.pick([
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=zzz",
        "application/xml",
        "application/json; charset=utf-16",
        "application/jsonx",
        "json",
        "",
        "*/*",
      ]);
      if (headers["content-type"] === "" || f.chance(0.2)) delete headers["content-type"];
      return JSON.stringify(valid);
    }
    default:
      return JSON.stringify(valid);
  }
}

/** Multipart bodies for /api/uploads. */
function uploadCase(f: Fuzzer, probe: Probe): Probe {
  const variant = f.int(0, 7);
  const form = new FormData();
  const name = f.chance(0.5) ? f.pick(TRAVERSAL_PATHS) : f.pick(HOSTILE_STRINGS) || "x";
  if (variant === 0) form.append("file", new File(["hello"], name));
  if (variant === 1) form.append("file", "not a file");
  if (variant === 2) form.append("other", new File(["x"], "x.txt"));
  if (variant === 3) {
    for (let i = 0; i < 30; i++) form.append("file", new File([f.word(5)], `f${i}.txt`));
  }
  if (variant === 4) form.append("file", new File([""], ""));
  if (variant <= 4) {
    probe.body = form;
    return { ...probe, kind: `upload_${variant}` };
  }
  probe.headers["content-type"] = f.pick([
    "multipart/form-data",
    "multipart/form-data; boundary=",
    "multipart/form-data; boundary=abc",
    "multipart/form-data; boundary=" + "b".repeat(500),
  ]);
  probe.body = f.pick([
    '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello',
    "--abc\r\n\r\n--abc--",
    "garbage",
    "",
    '--abc\r\nContent-Disposition: form-data; name="file"; filename="../../x"\r\n\r\nx\r\n--abc--\r\n',
  ]);
  return { ...probe, kind: "upload_malformed" };
}

/** `/v1/chat/completions` and `/v1/models`. */
function v1Case(f: Fuzzer, token: string): Probe {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
  };
  if (f.chance(0.12)) {
    const target = f.pick([
      "/v1/models",
      "/v1/models?x=%ff",
      "/v1/models/hob",
      "/v1/completions",
      "/v1/embeddings",
      `/v1/${f.pick(TRAVERSAL_SEGMENTS)}`,
    ]);
    const method = f.pick(["GET", "GET", "POST", "DELETE"]);
    return { endpoint: `${method} /v1/*`, kind: "route", method, target, headers };
  }
  const valid: Json = {
    model: f.pick(["hob", "hob", "hob/fake/fake-model"]),
    messages: [
      ...(f.chance(0.3) ? [{ role: "system", content: "Be brief." }] : []),
      { role: "user", content: f.chance(0.8) ? "Say ok" : [{ type: "text", text: "Say ok" }] },
    ],
    ...(f.chance(0.3) ? { stream: true } : {}),
    ...(f.chance(0.2)
      ? {
        tools: [{
          type: "function",
          function: { name: "lookup", parameters: { type: "object", properties: {} } },
        }],
      }
      : {}),
  };
  const kind = f.pick([
    "valid",
    "missing",
    "wrong_type",
    "wrong_type",
    "extra",
    "hostile",
    "hostile",
    "huge_string",
    "not_object",
    "malformed_json",
    "invalid_utf8",
    "deep_nesting",
    "too_large",
    "content_type",
    "messages",
  ]);
  const probe: Probe = {
    endpoint: "POST /v1/chat/completions",
    kind,
    method: "POST",
    target: "/v1/chat/completions",
    headers,
  };
  if (kind === "too_large") probe.body = tooLarge(f, MAX_BODY);
  else if (kind === "messages") probe.body = JSON.stringify({ ...valid, messages: badMessages(f) });
  else if (kind === "missing") {
    probe.body = JSON.stringify(
      dropRequired(f, valid, { required: ["model", "messages"], properties: {} }),
    );
  } else probe.body = jsonBody(f, kind, valid, undefined, headers);
  return probe;
}

/** Message lists an OpenAI client should never send. */
function badMessages(f: Fuzzer): unknown {
  return f.pick<() => unknown>([
    () => [],
    () => [{ role: "assistant", content: "hi" }],
    () => [{ role: "tool", content: "x", tool_call_id: "nope" }],
    () => [{ role: "tool", content: "x" }],
    () => [{ role: "wizard", content: "x" }],
    () => [{ content: "x" }],
    () => [{ role: "user" }],
    () => [{
      role: "user",
      content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }],
    }],
    () => [{ role: "user", content: [{ type: 42 }] }],
    () => [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "", function: { name: "x", arguments: "{" } }],
    }, { role: "tool", content: "r", tool_call_id: "c" }],
    () => [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{" } }],
    }, { role: "tool", content: "r", tool_call_id: "c1" }],
    () => Array.from({ length: f.pick([1_000, 10_001]) }, () => ({ role: "user", content: "x" })),
    () => [{ role: "system", content: "x" }],
    () => [{ role: "user", content: "a" }, { role: "assistant", content: "b" }],
    () => "Say ok",
    () => ({ role: "user", content: "x" }),
  ])();
}

/** JSON-RPC over `/mcp`: wrong envelopes, wrong params, unknown tools, traversal in resource URIs, batches. */
function mcpCase(f: Fuzzer, world: World): Probe {
  const headers: Record<string, string> = {
    authorization: `Bearer ${world.hob.token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const probe: Probe = { endpoint: "POST /mcp", kind: "", method: "POST", target: "/mcp", headers };
  const message = () => mcpMessage(f);
  const kind = f.pick([
    "valid",
    "valid",
    "tool_args",
    "tool_args",
    "tool_args",
    "resource",
    "envelope",
    "envelope",
    "batch",
    "malformed_json",
    "invalid_utf8",
    "deep_nesting",
    "too_large",
    "headers",
    "method",
  ]);
  probe.kind = kind;
  switch (kind) {
    case "tool_args": {
      const name = f.chance(0.85) ? f.pick(Object.keys(MCP_TOOLS)) : f.pick(HOSTILE_STRINGS);
      const args = f.chance(0.15)
        ? f.pick<unknown>(["text", 42, [], null, [1, 2]])
        : mutate(f, { ...(MCP_TOOLS[name] ?? {}) }, () => hostileValue(f));
      probe.body = JSON.stringify(rpc(f, "tools/call", { name, arguments: args }));
      break;
    }
    case "resource":
      probe.body = JSON.stringify(rpc(f, "resources/read", {
        uri: f.pick([
          "hob://memory/MEMORY.md",
          "hob://memory/../../token",
          "hob://memory/..%2F..%2Ftoken",
          "hob://memory/%2e%2e%2fcanary.md",
          "hob://memory/../canary.md",
          "hob://memory/%ff",
          "hob://memory/%",
          "hob://memory/",
          "hob://memory/a%00b.md",
          "hob://conversations/../../token",
          "hob://conversations/" + "x".repeat(10_000),
          "hob://conversations/%ff",
          "file:///etc/passwd",
          "http://127.0.0.1/",
          "",
          "hob://",
        ]),
      }));
      break;
    case "envelope":
      probe.body = JSON.stringify(mutate(f, message(), () => hostileValue(f)));
      break;
    case "batch":
      probe.body = JSON.stringify(
        f.chance(0.2)
          ? f.pick<unknown>([[], [1, 2], [null], ["x"]])
          : Array.from({ length: f.int(1, 25) }, () => f.chance(0.7) ? message() : hostileValue(f)),
      );
      break;
    case "malformed_json":
      probe.body = f.pick(MALFORMED_JSON);
      break;
    case "invalid_utf8":
      probe.body = invalidUtf8Json(
        f,
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"@@"}}}`,
      );
      break;
    case "deep_nesting":
      probe.body = f.chance(0.5)
        ? deepNesting(DEEP)
        : `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember_this","arguments":{"text":${
          deepNesting(depthOf("object"), "object", '"x"')
        }}}}`;
      break;
    case "too_large":
      probe.body = tooLarge(f, MAX_BODY);
      break;
    case "headers":
      headers.accept = f.pick(["", "text/html", "application/json", "text/event-stream", "*/*"]);
      if (!headers.accept) delete headers.accept;
      if (f.chance(0.5)) headers["content-type"] = f.pick(["text/plain", "application/xml"]);
      headers["mcp-protocol-version"] = f.pick(["1999-01-01", "garbage", "2025-06-18"]);
      if (f.chance(0.3)) headers["mcp-session-id"] = f.pick(["x", "%ff", "a".repeat(1_000)]);
      probe.body = JSON.stringify(message());
      break;
    case "method":
      probe.method = f.pick(["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]);
      probe.target = f.pick(["/mcp", "/mcp?token=%ff", "/mcp/x", `/mcp?token=${world.hob.token}`]);
      if (!["GET", "HEAD"].includes(probe.method)) probe.body = JSON.stringify(message());
      break;
    default:
      probe.body = JSON.stringify(message());
  }
  return probe;
}

function mcpMessage(f: Fuzzer): Json {
  const method = f.pick([
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "completion/complete",
    "notifications/initialized",
    "notifications/cancelled",
    "no/such/method",
  ]);
  const params: Record<string, Json> = {
    initialize: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "fuzz", version: "1" },
    },
    "tools/call": { name: "search_memory", arguments: { query: "tea" } },
    "resources/read": { uri: "hob://memory/MEMORY.md" },
    "prompts/get": { name: f.pick(["brief", "", "../x"]), arguments: { input: "x" } },
    "logging/setLevel": { level: f.pick(["debug", "loud"]) },
    "notifications/cancelled": { requestId: 1 },
  };
  const message: Json = {
    jsonrpc: "2.0",
    method,
    ...(params[method] ? { params: params[method] } : {}),
  };
  if (!method.startsWith("notifications/")) message.id = rpcId(f);
  return message;
}

function rpc(f: Fuzzer, method: string, params: unknown): Json {
  return { jsonrpc: "2.0", id: rpcId(f), method, params };
}

function rpcId(f: Fuzzer): unknown {
  return f.chance(0.7) ? f.int(1, 1_000) : f.pick<unknown>([
    0,
    -1,
    1.5,
    1e308,
    2 ** 64,
    "id",
    "",
    "x".repeat(50_000),
    null,
    {},
    [],
    true,
  ]);
}

/** The page's fragments under /ui: forms with hostile fields, traversal in ids, writes without the page's header. */
function uiCase(f: Fuzzer, world: World): Probe {
  const { fixtures } = world;
  const headers: Record<string, string> = f.chance(0.85)
    ? { cookie: world.session, "x-hob-request": "1" }
    : { authorization: `Bearer ${world.hob.token}` };
  if (f.chance(0.05)) delete headers["x-hob-request"];
  const id = (pool: string[]) => f.chance(0.6) ? encode(f.pick(pool)) : f.pick(TRAVERSAL_SEGMENTS);
  const hostile = () => {
    const value = hostileValue(f, 0);
    return typeof value === "string" ? value : JSON.stringify(value) ?? "";
  };
  const routes: [string, string, string, Record<string, () => string>?][] = [
    ["GET", "/ui/conversations", `?q=${encode(hostile().slice(0, MAX_URL_VALUE))}`],
    ["DELETE", "/ui/conversations/{id}", id(fixtures.conversations)],
    ["GET", "/ui/badges", ""],
    [
      "GET",
      "/ui/panel/{name}",
      f.chance(0.7) ? f.pick(UI_PANELS) : f.pick(TRAVERSAL_SEGMENTS),
    ],
    ["GET", "/ui/memory/search", `?q=${encode(hostile().slice(0, MAX_URL_VALUE))}`],
    [
      "GET",
      "/ui/memory/file",
      `?name=${
        f.chance(0.5)
          ? f.pick(["TODAY", "MEMORY.md", "memory/MEMORY.md", "identity/USER.md"])
          : f.chance(0.5)
          ? encode(f.pick(TRAVERSAL_PATHS))
          : f.pick(TRAVERSAL_SEGMENTS)
      }`,
    ],
    ["POST", "/ui/memory/file", "", {
      path: () =>
        f.chance(0.5)
          ? f.pick(["memory/MEMORY.md", "identity/USER.md", "TODAY"])
          : f.pick(TRAVERSAL_PATHS),
      content: hostile,
    }],
    ["POST", "/ui/schedules", "", {
      name: hostile,
      schedule: () => f.pick(["0 9 * * *", "every 10m", "once:2099-01-01T09:00", hostile()]),
      prompt: hostile,
      timezone: () => f.pick(["UTC", "Atlantis", hostile()]),
      missed_policy: () => f.pick(["skip", "run_once", hostile()]),
    }],
    [
      "POST",
      `/ui/schedules/{id}/${f.pick(["toggle", "delete", "toggle"])}`,
      id(fixtures.schedules),
    ],
    ["POST", "/ui/tasks", "", { title: hostile, prompt: hostile, priority: hostile }],
    ["POST", `/ui/tasks/{id}/${f.pick(["cancel", "resume"])}`, id(fixtures.tasks)],
    ["POST", "/ui/approvals/{id}", id(fixtures.approvals), {
      decision: () => f.pick(["approve", "deny", hostile()]),
      remember: hostile,
    }],
    ["POST", "/ui/notifications/read", ""],
  ];
  const [method, template, fill, fields] = f.pick(routes);
  const target = template.includes("{") ? template.replace(/\{\w+\}/, fill) : template + fill;
  const probe: Probe = {
    endpoint: `${method} ${template}`,
    kind: "form",
    method,
    target,
    headers,
  };
  if (method !== "POST") return probe;
  const values = Object.fromEntries(
    Object.entries(fields ?? {}).filter(() => f.chance(0.85)).map(([k, v]) => [k, v()]),
  );
  const variant = f.int(0, 9);
  if (variant <= 3) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    probe.body = new URLSearchParams(values).toString();
  } else if (variant <= 5) {
    const form = new FormData();
    for (const [k, v] of Object.entries(values)) form.append(k, v);
    probe.body = form;
  } else if (variant === 6) {
    probe.kind = "too_large";
    headers["content-type"] = f.pick([
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]);
    probe.body = tooLarge(f, MAX_BODY);
  } else if (variant === 7) {
    probe.kind = "invalid_utf8";
    headers["content-type"] = "application/x-www-form-urlencoded";
    probe.body = f.pick([
      "path=%ff%fe&content=%c0%af",
      "%ff=%ff",
      "content=%&path=%",
      "path=memory%2FMEMORY.md&content=%ed%a0%80",
    ]);
  } else if (variant === 8) {
    probe.kind = "malformed";
    headers["content-type"] = f.pick([
      "multipart/form-data",
      "multipart/form-data; boundary=abc",
      "application/json",
      "text/plain",
    ]);
    probe.body = f.pick(["--abc\r\n\r\n", "garbage", '{"path": 1}', "", "--abc--"]);
  } else {
    probe.kind = "deep_nesting";
    headers["content-type"] = "application/x-www-form-urlencoded";
    probe.body = `content=${"%5B".repeat(20_000)}&path=${"a[".repeat(5_000)}`;
  }
  return probe;
}

/** The page's shell, static files and the client module, with hostile names and tokens. */
function pageCase(f: Fuzzer, world: World): Probe {
  const variant = f.int(0, 4);
  const headers: Record<string, string> = f.chance(0.5) ? { cookie: world.session } : {};
  if (variant === 0) {
    return {
      endpoint: "GET /static/{name}",
      kind: "traversal",
      method: "GET",
      target: `/static/${
        f.chance(0.3) ? f.pick(["app.js", "style.css", "icon.svg"]) : f.pick(TRAVERSAL_SEGMENTS)
      }`,
      headers,
    };
  }
  if (variant === 1) {
    return {
      endpoint: "GET /c/{id}",
      kind: "traversal",
      method: "GET",
      // With the token, the page redirects to the path: a decoded `%0d%0a` there would split headers.
      target: `/c/${f.pick(TRAVERSAL_SEGMENTS)}${f.chance(0.5) ? `?token=${world.hob.token}` : ""}`,
      headers,
    };
  }
  if (variant === 2) {
    return {
      endpoint: "GET /client.ts",
      kind: "headers",
      method: f.pick(["GET", "HEAD", "POST"]),
      target: "/client.ts",
      headers: { "if-none-match": f.pick(['"x"', "*", "%ff"]), "accept-encoding": "gzip, br" },
    };
  }
  return {
    endpoint: "GET /{view}",
    kind: "token",
    method: "GET",
    target: `${f.pick(PAGE_VIEWS)}?token=${
      f.pick(["", "wrong", "%ff", encode(f.pick(HOSTILE_STRINGS)), "a".repeat(9_000)])
    }`,
    headers,
  };
}

/** Bytes no HTTP client library would send: raw dot segments, bytes that are not UTF-8, broken framing. */
function rawCase(f: Fuzzer, world: World): Probe {
  const auth = `Authorization: Bearer ${world.hob.token}\r\n`;
  const file = f.pick(world.fixtures.memoryFiles);
  const target = f.pick([
    "/api/memory/files/../../token",
    "/api/memory/files/../../canary.md",
    `/api/memory/files/${file}/../../../canary.md`,
    "/api/uploads/../../token",
    "/api/uploads/../canary.md",
    "/static/../../token",
    "/api/memory/files/\xff\xfe",
    "/api/conversations/\xc0\xaf",
    "/api/memory/files/a\x00b",
    "/../../../etc/passwd",
    "/api/tools/\xff/invoke",
    "/ui/panel/..%2f..%2f",
  ]);
  const variant = f.int(0, 6);
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
  let request: string;
  let kind: string;
  if (variant <= 2) {
    kind = "raw_path";
    request = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`;
  } else if (variant === 3) {
    kind = "raw_host";
    request = `GET /api/health HTTP/1.1\r\nHost: ${
      f.pick(["evil.example", "\xff", "", "127.0.0.1:99999", "[::1", "a@b"])
    }\r\n${auth}Connection: close\r\n\r\n`;
  } else if (variant === 4) {
    kind = "raw_header";
    request =
      `GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \xff\xfe${world.hob.token}\r\nX-Long: ${
        "a".repeat(f.pick([100, 70_000]))
      }\r\nConnection: close\r\n\r\n`;
  } else if (variant === 5) {
    kind = "raw_chunked";
    request =
      `POST /api/memory/log HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${
        f.pick([
          "zz\r\n{}\r\n0\r\n\r\n",
          '5\r\n{"tex\r\n0\r\n\r\n',
          "ffffffffffffffff\r\n{}\r\n0\r\n\r\n",
        ])
      }`;
  } else {
    kind = "raw_framing";
    request = f.pick([
      "GARBAGE\r\n\r\n",
      "GET /api/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
      `POST /api/memory/log HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: -5\r\nConnection: close\r\n\r\n{}`,
      `POST /api/memory/log HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{}`,
      `POST /api/memory/log HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{"text":`,
    ]);
  }
  return {
    endpoint: "raw HTTP",
    kind,
    method: "RAW",
    target: request.split("\r\n")[0],
    headers: {},
    raw: latin1(request),
  };
}

/** A normal chat: the flood's steady traffic. */
function chatProbe(f: Fuzzer, token: string): Probe {
  const v1 = f.chance(0.3);
  return {
    endpoint: v1 ? "POST /v1/chat/completions" : "POST /api/chat",
    kind: "valid",
    method: "POST",
    target: v1 ? "/v1/chat/completions" : "/api/chat",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(
      v1
        ? { model: "hob", messages: [{ role: "user", content: "Say ok" }] }
        : { message: `Flood ${f.int(1, 1e6)}` },
    ),
  };
}

function healthProbe(): Probe {
  return {
    endpoint: "GET /api/health",
    kind: "valid",
    method: "GET",
    target: "/api/health",
    headers: {},
  };
}

// ------------------------------------------------------------------ values

/** A path for an operation, each `{param}` valid, hostile or traversal. */
function fillPath(
  f: Fuzzer,
  op: Operation,
  fixtures: Fixtures,
  mode: "valid" | "bad" | "traversal",
): string {
  return op.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (mode === "traversal" && f.chance(0.8)) return f.pick(TRAVERSAL_SEGMENTS);
    if (mode !== "valid") {
      return encode(
        f.pick([...HOSTILE_STRINGS.filter(Boolean), ...TRAVERSAL_PATHS, "-1", "0", "1.5", "1e3"]),
      );
    }
    const pool = validParam(op.template, name, fixtures);
    const value = f.pick(pool);
    return name === "path" ? value.split("/").map(encodeURIComponent).join("/") : encode(value);
  });
}

function validParam(template: string, name: string, fixtures: Fixtures): string[] {
  if (template.startsWith("/api/conversations")) return fixtures.conversations;
  if (template.startsWith("/api/schedules")) return fixtures.schedules;
  if (template.startsWith("/api/tasks")) return fixtures.tasks;
  if (template.startsWith("/api/uploads")) return fixtures.uploads;
  if (template.startsWith("/api/memory/files")) return fixtures.memoryFiles;
  if (template.startsWith("/api/notifications")) return fixtures.notifications;
  if (template.startsWith("/api/approvals")) return fixtures.approvals;
  if (template.startsWith("/api/tools")) return fixtures.tools;
  return [name];
}

/** A query string for the operation's parameters: sampled, or hostile. */
function queryString(f: Fuzzer, params: [string, JsonSchema][], hostile: boolean): string {
  const parts: string[] = [];
  for (const [name, schema] of params) {
    if (!hostile) {
      if (f.chance(0.6)) {
        parts.push(`${name}=${encode(String(sample(f, schema, undefined, name)))}`);
      }
      continue;
    }
    if (f.chance(0.3)) continue;
    const value = f.pick([
      () => encode(String(hostileValue(f, 0)).slice(0, MAX_URL_VALUE)),
      () => f.pick(TRAVERSAL_SEGMENTS),
      () =>
        f.pick(["-1", "0", "1.5", "1e309", "NaN", "Infinity", "0x10", "", "99999999999999999999"]),
      () => `1&${name}=2`,
      () => "%ff%fe",
    ])();
    parts.push(`${f.chance(0.1) ? `${name}[]` : name}=${value}`);
  }
  if (hostile) {
    parts.push(
      f.pick([
        "%ff=%ff",
        "&&&",
        "=",
        "a=%",
        `${f.word(6)}=${encode(f.word(10))}`,
        "__proto__=1",
        "x".repeat(5_000) + "=1",
      ]),
    );
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

/** A value the schema accepts (most of the time: strings are random), with hints for fields that need real values. */
function sample(
  f: Fuzzer,
  schema: JsonSchema,
  fixtures: Fixtures | undefined,
  name: string,
): unknown {
  const hint = hintFor(f, name, fixtures);
  if (hint !== undefined) return hint;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return f.pick(schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return sample(f, f.pick(options), fixtures, name);
  const type = Array.isArray(schema.type) ? f.pick(schema.type) : schema.type;
  switch (type) {
    case "string": {
      const min = schema.minLength ?? 1;
      const max = Math.min(schema.maxLength ?? 40, 40);
      let text = f.word(Math.max(min, max));
      while (text.length < min) text += "x";
      return text.slice(0, Math.max(min, max));
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1;
      const max = schema.maximum ?? min + 100;
      return f.int(Math.ceil(min), Math.min(Math.floor(max), Math.ceil(min) + 100));
    }
    case "boolean":
      return f.chance(0.5);
    case "null":
      return null;
    case "array": {
      const length = Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, f.int(0, 2)));
      return Array.from({ length }, () => sample(f, schema.items ?? {}, fixtures, name));
    }
    case "object": {
      const object: Json = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || f.chance(0.5)) {
          object[key] = sample(f, property, fixtures, key);
        }
      }
      return object;
    }
    default:
      return f.word(8);
  }
}

function hintFor(f: Fuzzer, name: string, fixtures: Fixtures | undefined): unknown {
  switch (name) {
    case "model":
      return f.pick(["fake/fake-model", "fake/fake-model", "nope/none", null]);
    case "schedule":
      return f.pick(["0 9 * * *", "every 10m", "once:2099-01-01T09:00", "61 * * * *"]);
    case "timezone":
      return f.pick(["UTC", "Europe/Oslo", "Atlantis"]);
    case "conversation_id":
      return fixtures ? f.pick(fixtures.conversations) : undefined;
    case "attachments":
      return fixtures ? [f.pick(fixtures.uploads)] : undefined;
    case "blocked_by":
      return fixtures ? [Number(f.pick(fixtures.tasks))] : undefined;
    case "message":
    case "title":
    case "text":
    case "prompt":
      return f.chance(0.7) ? `Fuzz ${f.word(10)}` : undefined;
    case "q":
      return f.pick(["tea", "Ada", "NEAR(", '"', "*"]);
    default:
      return undefined;
  }
}

/** A value of another type than `value`. */
function wrongType(f: Fuzzer, value: unknown): unknown {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const others: [string, unknown][] = [
    ["string", "wrong"],
    ["number", 42],
    ["number", -1.5],
    ["boolean", true],
    ["null", null],
    ["array", [1, "2"]],
    ["object", { nested: true }],
  ];
  return f.pick(others.filter(([k]) => k !== kind))[1];
}

/** A copy of `value` with one node (at any depth) replaced by `replace(old)`, or deleted. */
function mutate<T>(f: Fuzzer, value: T, replace: (old: unknown) => unknown): T {
  const copy = structuredClone(value) as unknown;
  const nodes: [Json | unknown[], string | number][] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        nodes.push([node, i]);
        walk(child);
      });
    } else if (node && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        nodes.push([node as Json, key]);
        walk(child);
      }
    }
  };
  walk(copy);
  if (nodes.length === 0) return replace(copy) as T;
  const [parent, key] = f.pick(nodes);
  if (f.chance(0.1) && !Array.isArray(parent)) delete (parent as Json)[key as string];
  else setOwn(parent, key, replace((parent as Record<string | number, unknown>)[key]));
  return copy as T;
}

/** A copy without one of the required fields (or empty). */
function dropRequired(f: Fuzzer, value: Json, schema: JsonSchema | undefined): Json {
  const required = schema?.required ?? Object.keys(value);
  if (required.length === 0 || f.chance(0.2)) return {};
  const copy = { ...value };
  delete copy[f.pick(required)];
  return copy;
}

/** A body over `limit`: sized, or streamed without a Content-Length. */
function tooLarge(f: Fuzzer, limit: number): string | ReadableStream<Uint8Array> {
  const size = limit + f.pick([1, 1_000, limit]);
  if (f.chance(0.7)) return `{"message":"${"x".repeat(size)}"}`;
  const chunk = new TextEncoder().encode("x".repeat(16_384));
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

// ------------------------------------------------------------------ sending and judging

async function send(base: string, probe: Probe): Promise<Outcome> {
  if (probe.raw) return await sendRaw(base, probe.raw);
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    const response = await fetch(`${base}${probe.target}`, {
      method: probe.method,
      headers: probe.headers,
      body: probe.body,
      redirect: "manual",
      signal,
    });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      text,
    };
  } catch (error) {
    if (signal.aborted) return { status: 0, contentType: "", text: "", timedOut: true };
    return { status: 0, contentType: "", text: "", dropped: String(error) };
  }
}

/** Sends bytes over a fresh connection and reads until the server closes it. */
async function sendRaw(base: string, bytes: Uint8Array): Promise<Outcome> {
  const { port } = new URL(base);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const timer = setTimeout(() => conn.close(), REQUEST_TIMEOUT_MS);
  let timedOut = false;
  const received: number[] = [];
  try {
    await conn.write(bytes).catch(() => {});
    await conn.closeWrite().catch(() => {});
    const buffer = new Uint8Array(65_536);
    while (true) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      received.push(...buffer.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // The timer closed it: the server held the connection open.
      timedOut = true;
    }
  }
  const text = new TextDecoder().decode(new Uint8Array(received));
  const head = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
  if (!head) {
    return timedOut
      ? { status: 0, contentType: "", text: "", timedOut: true }
      : { status: 0, contentType: "", text, dropped: "closed without an answer" };
  }
  const headers = head[2].toLowerCase();
  const contentType = /^content-type:\s*(.*)$/m.exec(headers)?.[1].trim() ?? "";
  const body = /^transfer-encoding:\s*chunked/m.test(headers) ? dechunk(head[3]) : head[3];
  return { status: Number(head[1]), contentType, text: body, timedOut };
}

function dechunk(text: string): string {
  let out = "";
  let rest = text;
  while (rest) {
    const line = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) break;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
  return out;
}

/** encodeURIComponent, except that a lone surrogate goes as the bytes a careless client would send. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.toWellFormed()).replaceAll("%EF%BF%BD", "%ED%A0%80");
  }
}

function areaOf(probe: Probe): Area {
  // The path as the server saw it: `..` and `%2e%2e` segments are resolved on the way.
  const target = probe.raw ? probe.target.split(" ")[1] ?? "/" : probe.target;
  const path = new URL(target, "http://x").pathname;
  if (path === "/mcp" || path.startsWith("/mcp/")) return "mcp";
  if (path.startsWith("/api/")) return "api";
  if (path.startsWith("/v1/") || path === "/v1") return "v1";
  if (path.startsWith("/ui/")) return "ui";
  return "page";
}

/** What is wrong with an answer, or null. */
function judge(probe: Probe, outcome: Outcome, secrets: string[]): string | null {
  if (outcome.timedOut) return `no answer within ${REQUEST_TIMEOUT_MS} ms`;
  if (outcome.dropped) {
    // A server may close on a body it will not read (an over-limit upload) or on framing it cannot parse.
    const tolerated = probe.kind.endsWith("too_large") || probe.raw !== undefined;
    return tolerated ? null : `connection dropped: ${outcome.dropped}`;
  }
  const { status, contentType, text } = outcome;
  if (status >= 500) return `${status}: ${text.slice(0, 300)}`;
  for (const secret of secrets) {
    if (text.includes(secret)) return `answer leaks '${secret.slice(0, 12)}…'`;
  }
  if (
    probe.kind.endsWith("too_large") && status !== 413 && ![401, 403, 404, 405].includes(status)
  ) {
    return `an over-limit body got ${status}, not 413`;
  }
  if (probe.method === "HEAD" || status < 400) {
    if (status < 300 && /json/.test(contentType) && text) {
      const parsed = parseJson(text);
      if (parsed === undefined) return `${status} with a body that is not JSON`;
      if (areaOf(probe) === "mcp") return rpcProblem(parsed);
    }
    return null;
  }
  // Protocol-level refusals (bad framing, a header too large) come from the HTTP server, not hob.
  if ((probe.raw && !text && status === 400) || status === 431) return null;
  const area = areaOf(probe);
  // The page answers a browser's navigation with a page; htmx swaps 422 form errors.
  if (area === "page" && /^text\/html/.test(contentType) && [401, 429].includes(status)) {
    return null;
  }
  if (area === "ui" && status === 422) {
    return /^text\/html/.test(contentType) ? null : `422 fragment is ${contentType}`;
  }
  if (!/^application\/json/.test(contentType)) {
    return `${status} is ${contentType || "no content type"}, not JSON: ${text.slice(0, 120)}`;
  }
  const body = parseJson(text) as Json | undefined;
  if (!body || typeof body !== "object") return `${status} body is not a JSON object`;
  const error = body.error as Json | undefined;
  if (area === "mcp") {
    if (
      body.jsonrpc !== "2.0" || typeof error?.code !== "number" ||
      typeof error?.message !== "string"
    ) {
      return `${status} is not a JSON-RPC error: ${text.slice(0, 200)}`;
    }
    return null;
  }
  if (area === "v1") {
    if (typeof error?.message !== "string" || typeof error?.type !== "string") {
      return `${status} is not an OpenAI error: ${text.slice(0, 200)}`;
    }
    return null;
  }
  if (typeof error?.code !== "string" || typeof error?.message !== "string") {
    return `${status} is not {error: {code, message}}: ${text.slice(0, 200)}`;
  }
  return null;
}

/** A JSON-RPC answer that reports an internal error is a 500 in disguise. */
function rpcProblem(body: unknown): string | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    const code = (message as { error?: { code?: unknown } })?.error?.code;
    if (code === -32603) {
      return `JSON-RPC internal error: ${JSON.stringify(message).slice(0, 200)}`;
    }
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The per-endpoint counts, one row each. */
function table(stats: Map<string, { cases: number; by: Record<string, number> }>): string {
  const rows = [...stats.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(...rows.map(([name]) => name.length));
  const columns = ["2xx", "3xx", "4xx", "5xx", "drop", "hang"];
  const lines = [
    `${"endpoint".padEnd(width)}  ${"cases".padStart(5)}  ${
      columns.map((c) => c.padStart(4)).join(" ")
    }`,
  ];
  for (const [name, row] of rows) {
    lines.push(
      `${name.padEnd(width)}  ${String(row.cases).padStart(5)}  ${
        columns.map((c) => String(row.by[c] ?? 0).padStart(4)).join(" ")
      }`,
    );
  }
  return lines.join("\n");
}
