/**
 * `hob onboard` run as a user runs it: in a pseudo-terminal, and with answers
 * piped in, against a stand-in for Ollama on 127.0.0.1 (the fake serves
 * /api/tags and the OpenAI-compatible chat Ollama offers).
 */

import YAML from "yaml";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { runHob, runHobInTerminal } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";

/** A fresh directory for a home that does not exist yet; removed on dispose. */
async function newHome(): Promise<{ home: string } & AsyncDisposable> {
  const parent = await Deno.makeTempDir({ prefix: "hob-onboard-" });
  return {
    home: `${parent}/home`,
    [Symbol.asyncDispose]: () => Deno.remove(parent, { recursive: true }),
  };
}

/** `hob onboard` in a pseudo-terminal: each expected text is awaited, then its answer typed. */
function inTerminal(args: string[], steps: [string, string][]) {
  return runHobInTerminal(["onboard", ...args], steps);
}

const readYaml = async (home: string) =>
  YAML.parse(await Deno.readTextFile(`${home}/hob.yaml`)) as Record<string, unknown>;

Deno.test("hob onboard in a terminal: finds the local Ollama, writes the pick, and chats", async () => {
  await using ollama = startFakeOpenAI({
    models: ["llama3.2", "qwen3:4b"],
    replies: [{ text: "Hello, I am hob, ready to help." }],
  });
  await using dir = await newHome();
  const base = ollama.url.replace(/\/v1$/, "");
  const lmstudio = `http://127.0.0.1:${closedPort()}`;
  const run = await inTerminal(
    ["--home", dir.home, "--ollama", base, "--lmstudio", lmstudio],
    [["Number [1]: ", "2\r"]],
  );
  assertEquals(run.code, 0, run.transcript + run.stderr);
  assertMatch(run.transcript, new RegExp(`✓ Ollama at ${base}: 2 model\\(s\\)`));
  assertMatch(run.transcript, /✗ LM Studio at http:\/\/127\.0\.0\.1:\d+: not running/);
  assertMatch(run.transcript, / 1\) ollama\/llama3\.2\r?\n +2\) ollama\/qwen3:4b\r?\n +3\) OpenAI/);
  assertStringIncludes(run.transcript, "Hello, I am hob, ready to help.");
  assertStringIncludes(run.transcript, "✓ hob works.");

  const config = await readYaml(dir.home);
  assertEquals(config.model, "ollama/qwen3:4b");
  assertEquals(config.providers, { ollama: { base_url: `${base}/v1` } });
  assertEquals((await Deno.stat(`${dir.home}/hob.yaml`)).mode! & 0o777, 0o600);
  // The test chat was one real turn: the chosen model, the message, through the provider.
  const chat = ollama.requests.find((r) => r.path === "/v1/chat/completions")!;
  assertEquals(chat.body.model, "qwen3:4b");

  // A second run on the same home changes the model and keeps the rest.
  ollama.enqueue({ text: "Hello again." });
  const again = await runHob(
    ["onboard", "--home", dir.home, "--ollama", base, "--lmstudio", lmstudio],
    { stdin: "1\n" },
  );
  assertEquals(again.code, 0, again.stdout + again.stderr);
  assertStringIncludes(again.stdout, "Hello again.");
  const second = await readYaml(dir.home);
  assertEquals(second.model, "ollama/llama3.2");
  assertEquals(second.providers, { ollama: { base_url: `${base}/v1` } });
  assertStringIncludes(await Deno.readTextFile(`${dir.home}/hob.yaml`), "# hob configuration.");
});

Deno.test("hob onboard from piped answers: a key for a hosted provider, other keys kept, the key never shown", async () => {
  await using hosted = startFakeOpenAI({ replies: [{ text: "Hi from the hosted model." }] });
  await using dir = await newHome();
  await Deno.mkdir(dir.home, { recursive: true });
  // An existing setup: a port, a comment, and OpenAI pointed at the stand-in.
  await Deno.writeTextFile(
    `${dir.home}/hob.yaml`,
    `# my settings\nmodel: ollama/old\nserver:\n  port: 9191 # keep me\n` +
      `providers:\n  openai: { base_url: "${hosted.url}" }\n`,
  );
  const closed = `http://127.0.0.1:${closedPort()}`;
  const run = await runHob(
    ["onboard", "--home", dir.home, "--ollama", closed, "--lmstudio", closed],
    // No local model: the menu is the hosted providers; 1 is OpenAI.
    { stdin: "1\nsk-test-secret-123\nfake-model\n" },
  );
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assert(!run.stdout.includes("sk-test-secret") && !run.stderr.includes("sk-test-secret"));
  assertStringIncludes(run.stdout, "Hi from the hosted model.");

  const text = await Deno.readTextFile(`${dir.home}/hob.yaml`);
  assertStringIncludes(text, "# my settings");
  assertStringIncludes(text, "# keep me");
  const config = await readYaml(dir.home);
  assertEquals(config.model, "openai/fake-model");
  assertEquals(config.server, { port: 9191 });
  assertEquals(config.providers, {
    openai: { base_url: hosted.url, api_key: "sk-test-secret-123" },
  });
  assertEquals((await Deno.stat(`${dir.home}/hob.yaml`)).mode! & 0o777, 0o600);
  const chat = hosted.requests.find((r) => r.path === "/v1/chat/completions")!;
  assertEquals(chat.headers.authorization, "Bearer sk-test-secret-123");
});

Deno.test("hob onboard points hob at any OpenAI-compatible server, listing its models", async () => {
  await using server = startFakeOpenAI({
    models: ["qwen2.5-7b", "llama-3.1-8b"],
    replies: [{ text: "Hi from the custom server." }],
  });
  await using dir = await newHome();
  const closed = `http://127.0.0.1:${closedPort()}`;
  // No local model: 1-3 are the hosted providers, 4 is another server.
  const run = await runHob(
    ["onboard", "--home", dir.home, "--ollama", closed, "--lmstudio", closed],
    { stdin: `4\n${server.url}/\ngateway-key\n2\n` },
  );
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assertStringIncludes(run.stdout, " 4) Another OpenAI-compatible server");
  assertMatch(run.stdout, / 1\) qwen2\.5-7b\r?\n +2\) llama-3\.1-8b/);
  assertStringIncludes(run.stdout, "Hi from the custom server.");
  assert(!run.stdout.includes("gateway-key") && !run.stderr.includes("gateway-key"));
  const config = await readYaml(dir.home);
  assertEquals(config.model, "custom/llama-3.1-8b");
  assertEquals(config.providers, {
    custom: { type: "openai", base_url: server.url, api_key: "gateway-key" },
  });
  const chat = server.requests.find((r) => r.path === "/v1/chat/completions")!;
  assertEquals([chat.body.model, chat.headers.authorization], [
    "llama-3.1-8b",
    "Bearer gateway-key",
  ]);
});

Deno.test("hob onboard in a terminal takes a key typed without echo", async () => {
  await using hosted = startFakeOpenAI({ replies: [{ text: "Keyed in." }] });
  await using dir = await newHome();
  await Deno.mkdir(dir.home, { recursive: true });
  await Deno.writeTextFile(
    `${dir.home}/hob.yaml`,
    `providers:\n  anthropic: { type: openai, base_url: "${hosted.url}" }\n`,
  );
  const closed = `http://127.0.0.1:${closedPort()}`;
  const run = await inTerminal(
    ["--home", dir.home, "--ollama", closed, "--lmstudio", closed],
    [["Number [1]: ", "2\r"], ["API key: ", "sk-typed-secret\r"], ["Model [", "fake-model\r"]],
  );
  assertEquals(run.code, 0, run.transcript + run.stderr);
  assert(!run.transcript.includes("sk-typed-secret"), run.transcript);
  assertStringIncludes(run.transcript, "Anthropic API key: ***************");
  assertStringIncludes(run.transcript, "Keyed in.");
  assertEquals((await readYaml(dir.home)).providers, {
    anthropic: { type: "openai", base_url: hosted.url, api_key: "sk-typed-secret" },
  });
});

Deno.test("hob onboard with no answers ends with a message and writes nothing", async () => {
  await using ollama = startFakeOpenAI({ models: ["llama3.2"] });
  await using dir = await newHome();
  const base = ollama.url.replace(/\/v1$/, "");
  const run = await runHob(["onboard", "--home", dir.home, "--ollama", base], { stdin: "" });
  assertEquals(run.code, 1);
  assertEquals(
    run.stderr,
    "hob onboard: input ended before a model was chosen; nothing was written. Run it again when ready.\n",
  );
  assert(!(await exists(dir.home)), "no home was created");

  const bad = await runHob(["onboard", "--home", dir.home, "--ollama", "gopher://x"]);
  assertEquals(bad.code, 2);
  assertEquals(bad.stderr, "hob onboard: --ollama must be an http(s) address: got 'gopher://x'\n");
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
