/**
 * Secrets are declared once, in the config schema, and nothing that shows the
 * configuration — `hob config show`, `GET /api/status`, `hob doctor` — shows one.
 */

import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { tempApi } from "../helpers/api.ts";
import { tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";
import { loadConfig } from "../../src/config/load.ts";
import { redactConfig, REDACTED, scrubSecrets, secretValues } from "../../src/config/redact.ts";
import { schemaKeys, sensitivityOf, unwrapSchema } from "../../src/config/schema_marks.ts";
import { configSchema } from "../../src/config/schema.ts";

type Schema = z.core.$ZodType;

/** Key names that say "credential" (the brief's list and its near relatives). */
const SECRET_LOOKING = /key|token|secret|passw|auth|cookie|credential/i;
/** Records whose values are credentials: environments and headers. */
const CREDENTIAL_RECORD = /env|header/i;

/** The schema a definition field holds, by name; undefined when it holds none. */
function field(schema: Schema, name: string): Schema | undefined {
  return (schema._zod.def as unknown as Record<string, Schema | undefined>)[name];
}

/** Whether a value of this schema can be free text (numbers, booleans and enums cannot). */
function canHoldText(schema: Schema): boolean {
  const inner = unwrapSchema(schema);
  const def = inner._zod.def as unknown as {
    type: string;
    shape?: Record<string, Schema>;
    options?: Schema[];
  };
  switch (def.type) {
    case "string":
    case "template_literal":
    case "any":
    case "unknown":
    case "custom":
      return true;
    case "object":
      return Object.values(def.shape ?? {}).some(canHoldText);
    case "record":
      return canHoldText(field(inner, "valueType")!);
    case "array":
      return canHoldText(field(inner, "element")!);
    case "union":
      return (def.options ?? []).some(canHoldText);
    case "pipe":
      return canHoldText(field(inner, "in")!) || canHoldText(field(inner, "out")!);
    default:
      return false;
  }
}

/** Keys of `schema` that look secret but carry no mark, each with what is wrong. */
function unmarkedSecrets(schema: Schema): string[] {
  const problems: string[] = [];
  for (const key of schemaKeys(schema)) {
    if (sensitivityOf(key.schema)) continue;
    if (SECRET_LOOKING.test(key.name) && canHoldText(key.schema)) {
      problems.push(`${key.path}: its name looks secret; mark it secret, or public if it is not`);
    }
    const inner = unwrapSchema(key.schema);
    if (
      inner._zod.def.type === "record" && CREDENTIAL_RECORD.test(key.name) &&
      sensitivityOf(field(inner, "valueType")!) !== "secret"
    ) {
      problems.push(`${key.path}: a record of ${key.name} whose values are not marked secret`);
    }
  }
  return problems;
}

/** Whether a key holds something redacted: it is marked, or its entries are. */
function holdsSecrets(schema: Schema): boolean {
  const mark = sensitivityOf(schema);
  if (mark) return mark !== "public";
  const inner = unwrapSchema(schema);
  const type = inner._zod.def.type;
  if (type === "record") return holdsSecrets(field(inner, "valueType")!);
  if (type === "array") return holdsSecrets(field(inner, "element")!);
  return false;
}

/** The values at a schemaKeys path (`mcpServers.*.env`) in a parsed config. */
function valuesAt(value: unknown, path: string): unknown[] {
  let nodes = [value];
  for (const part of path.split(".")) {
    const [name, arrays] = [part.replace(/(\[\])+$/, ""), part.match(/\[\]/g)?.length ?? 0];
    nodes = nodes.flatMap((node) => {
      if (!node || typeof node !== "object") return [];
      const record = node as Record<string, unknown>;
      return name === "*" ? Object.values(record) : name in record ? [record[name]] : [];
    });
    for (let i = 0; i < arrays; i++) nodes = nodes.flatMap((n) => Array.isArray(n) ? n : []);
  }
  return nodes;
}

Deno.test("every secret-looking key of hob.yaml is marked in the schema", async (t) => {
  await t.step("the walk reaches keys inside records, unions and optional sections", () => {
    const paths = new Set([...schemaKeys(configSchema)].map((key) => key.path));
    for (
      const path of [
        "providers.*.api_key",
        "providers.*.headers",
        "tools.web.search.api_key",
        "tools.web.dns_server",
        "email.smtp.password",
        "mcpServers.*.env",
        "mcpServers.*.headers",
        "mcpServers.*.url",
      ]
    ) {
      assert(paths.has(path), `the walk misses ${path}`);
    }
  });
  await t.step("none is unmarked", () => {
    assertEquals(unmarkedSecrets(configSchema), []);
  });
  await t.step("a new secret added without its mark is caught", () => {
    const careless = configSchema.extend({
      github_token: z.string().optional(),
      hooks: z.object({ client_secret: z.string(), extra_env: z.record(z.string(), z.string()) }),
      /** A count is no secret, whatever its name. */
      max_tokens: z.number().optional(),
    });
    assertEquals(unmarkedSecrets(careless), [
      "github_token: its name looks secret; mark it secret, or public if it is not",
      "hooks.client_secret: its name looks secret; mark it secret, or public if it is not",
      "hooks.extra_env: a record of extra_env whose values are not marked secret",
    ]);
  });
});

/** A port nothing listens on, so every provider and server fails fast. */
const PORT = closedPort();

/** Every secret hob.yaml can hold, each a distinct string with "secret-" in it. */
const YAML = `model: corp/chat-model
memory: { embedder: none }
providers:
  corp:
    type: openai
    base_url: "http://user:pw-secret-01@127.0.0.1:${PORT}/v1?key=query-secret-02"
    api_key: sk-secret-03
    max_retries: 0
    headers: { Authorization: "Bearer header-secret-04", X-Team: team-secret-05 }
  claude: { type: anthropic, base_url: "http://127.0.0.1:${PORT}", api_key: ant-secret-06, max_retries: 0 }
  anthropic: { base_url: "http://127.0.0.1:${PORT}", api_key: builtin-secret-07, max_retries: 0 }
tools:
  web:
    dns_server: "127.0.0.1:${PORT}"
    search:
      provider: searxng
      url: "http://searx:searx-secret-08@127.0.0.1:${PORT}/search?token=searx-secret-09#frag-secret-10"
      api_key: brave-secret-11
email:
  smtp: { host: 127.0.0.1, port: ${PORT}, user: me, password: smtp-secret-12 }
  from: me@example.com
mcpServers:
  gh:
    command: sh
    args: ["-c", "echo token is $GITHUB_TOKEN >&2; exit 1", "--api-key", "arg-secret-13", "--token=arg-secret-14"]
    env: { GITHUB_TOKEN: env-secret-15 }
  zap:
    url: "http://127.0.0.1:${PORT}/s/pathsecret-16abcdef0123456789/mcp?token=url-secret-17"
    headers: { Authorization: "Bearer mcp-header-secret-18" }
channels:
  telegram:
    enabled: false
    token: "123456:tg-secret-19-abcdefghijklmnop"
    api_root: "http://bot:tgroot-secret-20@127.0.0.1:${PORT}/"
  email:
    enabled: false
    address: hob@example.org
    imap: { host: 127.0.0.1, password: imap-secret-21 }
    smtp: { host: 127.0.0.1, password: smtp-secret-22 }
  matrix:
    enabled: false
    homeserver: "http://hob:hs-secret-23@127.0.0.1:${PORT}/"
    user_id: "@hob:example.org"
    access_token: mx-secret-24
speech:
  transcribe: { provider: command, command: [whisper-cli, --api-key, stt-arg-secret-25, -f, "{input}"] }
  speak: { provider: command, command: [piper, "--token=tts-arg-secret-26", --output_file, "{output}"] }
`;
const SECRETS = [...YAML.matchAll(/[\w.-]*secret-\d\d[\w-]*/g)].map((match) => match[0]);

/** Fails naming the secret when `text` shows any of the fixture's (or `more`). */
function assertNoSecret(text: string, where: string, more: string[] = []): void {
  for (const secret of [...SECRETS, ...more]) {
    assert(!text.includes(secret), `${where} shows ${secret}:\n${text}`);
  }
  assert(!/secret-\d\d/.test(text), `${where} shows a secret:\n${text}`);
}

Deno.test("redactConfig hides every secret, and the fixture sets every secret key", async () => {
  await using home = await tempHome(YAML);
  const { config } = await loadConfig({ home: home.home, env: {} });
  for (const key of schemaKeys(configSchema)) {
    if (!holdsSecrets(key.schema)) continue;
    const values = valuesAt(config, key.path).filter((v) =>
      v !== undefined && JSON.stringify(v) !== "{}" && JSON.stringify(v) !== "[]"
    );
    assert(values.length > 0, `the fixture sets no ${key.path}: add one, so it is tested`);
  }
  assertEquals(SECRETS.length, 26);
  const shown = redactConfig(config);
  assertNoSecret(JSON.stringify(shown), "redactConfig");
  // What is not secret stays, so the output still helps.
  assertEquals(
    shown.providers.corp.base_url,
    `http://${REDACTED}@127.0.0.1:${PORT}/v1?${REDACTED}`,
  );
  assertEquals(shown.providers.corp.headers, { Authorization: REDACTED, "X-Team": REDACTED });
  assertEquals(shown.providers.anthropic.api_key_env, "ANTHROPIC_API_KEY");
  assertEquals(shown.email?.smtp.user, "me");
  assertEquals(shown.tools.web.dns_server, `127.0.0.1:${PORT}`);
  const gh = shown.mcpServers.gh as { args: string[]; env: Record<string, string> };
  assertEquals(gh.args, [
    "-c",
    "echo token is $GITHUB_TOKEN >&2; exit 1",
    "--api-key",
    REDACTED,
    `--token=${REDACTED}`,
  ]);
  assertEquals(gh.env, { GITHUB_TOKEN: REDACTED });
  const zap = shown.mcpServers.zap as { url: string };
  assertEquals(zap.url, `http://127.0.0.1:${PORT}/s/${REDACTED}/mcp?${REDACTED}`);
  assertEquals(config.providers.corp.api_key, "sk-secret-03", "the original is untouched");

  // Text that quotes a secret — an error, a server's stderr — loses it too.
  const secrets = secretValues(config);
  assertEquals(
    scrubSecrets({ error: ["401: bad key sk-secret-03", "token is env-secret-15"] }, secrets),
    { error: [`401: bad key ${REDACTED}`, `token is ${REDACTED}`] },
  );
  assert(!secrets.includes("ollama"), "a built-in's public placeholder key is not hunted in text");
});

Deno.test("hob config show and hob doctor show no secret, from hob.yaml or the environment", async (t) => {
  await using home = await tempHome(YAML);
  const env = {
    OPENAI_API_KEY: "env-openai-secret-91",
    OPENROUTER_API_KEY: "env-openrouter-secret-92",
    ANTHROPIC_API_KEY: "env-anthropic-secret-93",
  };
  const fromEnv = Object.values(env);
  await t.step("config show, as YAML and as JSON", async () => {
    const yaml = await runHob(["config", "show", "--home", home.home], { env });
    assertEquals(yaml.code, 0, yaml.stderr);
    assertStringIncludes(yaml.stdout, `api_key: ${REDACTED}`);
    assertStringIncludes(yaml.stdout, "GITHUB_TOKEN:");
    assertNoSecret(yaml.stdout + yaml.stderr, "hob config show", fromEnv);
    const json = await runHob(["config", "show", "--json", "--home", home.home], { env });
    assertEquals(json.code, 0, json.stderr);
    assertEquals(JSON.parse(json.stdout).providers.openai.api_key, REDACTED);
    assertNoSecret(json.stdout + json.stderr, "hob config show --json", fromEnv);
  });
  await t.step("doctor, whose checks quote providers' and MCP servers' errors", async () => {
    const doctor = await runHob(["doctor", "--skip-model", "--json", "--home", home.home], { env });
    const report = JSON.parse(doctor.stdout) as { checks: { name: string; detail: string }[] };
    assert(report.checks.some((check) => check.name === "provider"), doctor.stdout);
    assertNoSecret(doctor.stdout + doctor.stderr, "hob doctor", fromEnv);
  });
});

Deno.test("GET /api/status shows no secret, even where an error quotes one", async () => {
  await using api = await tempApi(YAML);
  const response = await api.call("/api/status");
  assertEquals(response.status, 200);
  const text = await response.text();
  assertNoSecret(text, "GET /api/status");
  const status = JSON.parse(text);
  // The provider's error quotes its URL, whose password and query were taken out.
  assertEquals(status.model.reachable, false);
  assertStringIncludes(status.model.error, REDACTED);
});
