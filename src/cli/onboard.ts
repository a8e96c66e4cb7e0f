/**
 * `hob onboard`: the first run, on a plain terminal or from piped lines. Finds
 * Ollama and LM Studio on this machine and lists their models, or takes an API
 * key for a hosted provider; writes the choice into hob.yaml (other keys and
 * comments kept, mode 0600, the key never printed back); then sends one
 * message through a real turn to show it works. The end of input stops it
 * with a message, before anything is written.
 */

import { ensureHome } from "../home/home.ts";
import { type Command, EXIT, UsageError } from "./command.ts";
import { homeOf } from "./open.ts";
import { dim, err, green, out, red } from "./output.ts";
import { Interrupted, Prompter } from "./prompter.ts";

/** Where Ollama and LM Studio listen by default. */
const OLLAMA_URL = "http://127.0.0.1:11434";
const LMSTUDIO_URL = "http://127.0.0.1:1234";
/** How long a local server may take to answer before it counts as not running. */
const PROBE_TIMEOUT_MS = 2_000;
/** Wrong answers to one question before onboarding gives up. */
const TRIES = 3;
/** The message of the test chat. */
const TEST_MESSAGE = "Say hello and introduce yourself in one short sentence.";

/** Hosted providers a key can be entered for, with a model to suggest. */
const HOSTED = [
  { provider: "openai", label: "OpenAI", model: "gpt-4.1-mini", env: "OPENAI_API_KEY" },
  {
    provider: "anthropic",
    label: "Anthropic",
    model: "claude-sonnet-4-5",
    env: "ANTHROPIC_API_KEY",
  },
  {
    provider: "openrouter",
    label: "OpenRouter",
    model: "openai/gpt-4.1-mini",
    env: "OPENROUTER_API_KEY",
  },
] as const;

/** A local server found, and its models. */
interface Found {
  provider: "ollama" | "lmstudio";
  label: string;
  url: string;
  models: string[];
}

/** One line of the menu. */
type Choice =
  | { kind: "local"; server: Found; model: string }
  | { kind: "hosted"; hosted: typeof HOSTED[number] }
  | { kind: "other" };

/** The name hob.yaml gives a server the owner points onboarding at. */
const OTHER_PROVIDER = "custom";

/** What onboarding writes into hob.yaml. */
interface Setup {
  model: string;
  changes: { key: string[]; value: unknown }[];
}

/** Input ended before onboarding was done. */
class InputEnded extends Error {
  override name = "InputEnded";
}

export const onboard: Command = {
  name: "onboard",
  summary: "Set hob up: pick a local model or enter an API key, then a test chat",
  help: `Usage: hob onboard [--ollama URL] [--lmstudio URL] [--home DIR]

A first run you answer line by line. Looks for Ollama (GET /api/tags) and
LM Studio (GET /v1/models) on this machine and lists their models, and offers
OpenAI, Anthropic and OpenRouter with an API key (typed without echo at a
terminal), or any other OpenAI-compatible server by its address (vLLM,
llama.cpp, a proxy; written as provider 'custom'). Writes the model —
and the key, or the server's address when it is not the default — into
hob.yaml, keeping every other key and comment (mode 0600; the key is never
printed back). Ends with a test chat: one message through a real turn.
Answers may be piped in, one per line; when input ends before the setup is
done, nothing is written.

Options:
  --ollama URL     where to look for Ollama (default: ${OLLAMA_URL})
  --lmstudio URL   where to look for LM Studio (default: ${LMSTUDIO_URL})
  --home DIR       hob home (default: $HOB_HOME or ~/.hob)
  -h, --help       show this help

Exit status: 0 set up and the test chat answered, 1 input ended, the test
chat failed or the home could not be written, 2 bad usage, 130 interrupted.`,
  options: { ollama: { type: "string" }, lmstudio: { type: "string" } },
  positionals: [0, 0],
  async run(parsed) {
    const home = homeOf(parsed);
    const ollama = baseUrl(parsed.values.ollama as string | undefined, OLLAMA_URL, "--ollama");
    const lmstudio = baseUrl(
      parsed.values.lmstudio as string | undefined,
      LMSTUDIO_URL,
      "--lmstudio",
    );
    const prompter = new Prompter();
    let setup: Setup;
    try {
      out(`Setting up hob in ${home}.\n\nLooking for models on this machine…\n`);
      const found = await findLocal(ollama, lmstudio);
      setup = await choose(prompter, found, { ollama, lmstudio });
    } catch (error) {
      if (error instanceof InputEnded) {
        err(`hob onboard: ${error.message}; nothing was written. Run it again when ready.\n`);
        return EXIT.failure;
      }
      if (error instanceof Interrupted) return EXIT.interrupted;
      throw error;
    }
    await ensureHome(home);
    const { editConfig } = await import("../config/edit.ts");
    const path = await editConfig(home, setup.changes);
    out(`\n${green("✓")} Wrote ${path}: model ${setup.model}.\n`);
    return await testChat(home);
  },
};

/** A probe address from its option, without a trailing slash; a bad one is bad usage. */
function baseUrl(value: string | undefined, fallback: string, flag: string): string {
  const url = value ?? fallback;
  if (!/^https?:\/\/[^/\s]+/.test(url)) {
    throw new UsageError(`hob onboard: ${flag} must be an http(s) address: got '${url}'`);
  }
  return url.replace(/\/+$/, "");
}

/** Ollama and LM Studio, asked at once; a server that does not answer is reported and left out. */
async function findLocal(ollama: string, lmstudio: string): Promise<Found[]> {
  const probes = await Promise.all([
    probe(
      "ollama",
      "Ollama",
      ollama,
      "/api/tags",
      (body) =>
        ((body as { models?: { name?: string }[] }).models ?? []).map((m) => String(m.name ?? "")),
    ),
    probe(
      "lmstudio",
      "LM Studio",
      lmstudio,
      "/v1/models",
      (body) => ((body as { data?: { id?: string }[] }).data ?? []).map((m) => String(m.id ?? "")),
    ),
  ]);
  const found: Found[] = [];
  for (const result of probes) {
    if ("problem" in result) {
      out(`  ${red("✗")} ${result.label} at ${result.url}: ${dim(result.problem)}\n`);
    } else {
      out(`  ${green("✓")} ${result.label} at ${result.url}: ${result.models.length} model(s)\n`);
      if (result.models.length > 0) found.push(result);
    }
  }
  return found;
}

/** One local server's models, or why there are none. */
async function probe(
  provider: Found["provider"],
  label: string,
  url: string,
  path: string,
  names: (body: unknown) => string[],
): Promise<Found | { label: string; url: string; problem: string }> {
  try {
    const response = await fetch(`${url}${path}`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { label, url, problem: `answered HTTP ${response.status}` };
    }
    const models = names(await response.json()).filter(Boolean);
    return { provider, label, url, models };
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    return { label, url, problem: timedOut ? "no answer" : "not running" };
  }
}

/** The menu, the user's pick, and what it means for hob.yaml. */
async function choose(
  prompter: Prompter,
  found: Found[],
  defaults: { ollama: string; lmstudio: string },
): Promise<Setup> {
  const choices: Choice[] = [
    ...found.flatMap((server) =>
      server.models.map((model): Choice => ({ kind: "local", server, model }))
    ),
    ...HOSTED.map((hosted): Choice => ({ kind: "hosted", hosted })),
    { kind: "other" },
  ];
  out("\nWhich model should hob use?\n");
  choices.forEach((choice, index) => {
    const label = choice.kind === "local"
      ? `${choice.server.provider}/${choice.model}`
      : choice.kind === "hosted"
      ? `${choice.hosted.label} (with an API key)`
      : "Another OpenAI-compatible server (vLLM, llama.cpp, a proxy, a company gateway)";
    out(`  ${String(index + 1).padStart(2)}) ${label}\n`);
  });
  const picked = await pick(prompter, choices.length);
  const choice = choices[picked];
  if (choice.kind === "local") return localSetup(choice.server, choice.model, defaults);
  if (choice.kind === "hosted") return await hostedSetup(prompter, choice.hosted);
  return await otherSetup(prompter);
}

/**
 * Any OpenAI-compatible server: its address, a key if it wants one, and one
 * of the models it lists (or a name, when it lists none), as provider `custom`.
 */
async function otherSetup(prompter: Prompter): Promise<Setup> {
  const url = await ask(prompter, "Its address, up to /v1 (e.g. http://127.0.0.1:8000/v1): ");
  if (!/^https?:\/\/[^/\s]+/.test(url)) {
    throw new InputEnded(`'${url}' is not an http(s) address`);
  }
  const base = url.replace(/\/+$/, "");
  const key = await prompter.secret("API key (Enter for none): ");
  if (key === null) throw new InputEnded("input ended before the key");
  const listed = await listModels(base, key);
  let model: string;
  if (listed.models.length > 0) {
    out(`${green("✓")} ${base}: ${listed.models.length} model(s)\n`);
    listed.models.forEach((name, index) => out(`  ${String(index + 1).padStart(2)}) ${name}\n`));
    model = listed.models[await pick(prompter, listed.models.length)];
  } else {
    out(`${base} listed no models (${listed.problem}); name one.\n`);
    model = await ask(prompter, "Model: ");
  }
  const provider = { type: "openai", base_url: base, ...(key ? { api_key: key } : {}) };
  return {
    model: `${OTHER_PROVIDER}/${model}`,
    changes: [
      { key: ["providers", OTHER_PROVIDER], value: provider },
      { key: ["model"], value: `${OTHER_PROVIDER}/${model}` },
    ],
  };
}

/** A line that must not be empty; input ending first is the end of onboarding. */
async function ask(prompter: Prompter, question: string): Promise<string> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const answer = await prompter.ask(question);
    if (answer === null) throw new InputEnded(`input ended at '${question.trim()}'`);
    if (answer.trim()) return answer.trim();
  }
  throw new InputEnded(`no answer to '${question.trim()}' after ${TRIES} tries`);
}

/** What an OpenAI-compatible server lists at /models, or why it listed nothing. */
async function listModels(
  base: string,
  key: string,
): Promise<{ models: string[]; problem?: string }> {
  try {
    const response = await fetch(`${base}/models`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { models: [], problem: `it answered HTTP ${response.status}` };
    }
    const body = await response.json() as { data?: { id?: unknown }[] };
    const models = (body.data ?? []).map((entry) => String(entry.id ?? "")).filter(Boolean);
    return { models, problem: models.length ? undefined : "an empty list" };
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    return { models: [], problem: timedOut ? "no answer" : "it is not answering" };
  }
}

/** A number from 1 to `count` (Enter takes 1), asked again when it is not one. */
async function pick(prompter: Prompter, count: number): Promise<number> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const answer = await prompter.ask(`Number [1]: `);
    if (answer === null) throw new InputEnded("input ended before a model was chosen");
    const number = answer === "" ? 1 : Number(answer);
    if (Number.isInteger(number) && number >= 1 && number <= count) return number - 1;
    out(`Type a number from 1 to ${count}.\n`);
  }
  throw new InputEnded(`no number from 1 to ${count} after ${TRIES} tries`);
}

/** A local model; the server's address is written only when it is not the default. */
function localSetup(
  server: Found,
  model: string,
  defaults: { ollama: string; lmstudio: string },
): Setup {
  const id = `${server.provider}/${model}`;
  const changes: Setup["changes"] = [{ key: ["model"], value: id }];
  const standard = server.provider === "ollama" ? OLLAMA_URL : LMSTUDIO_URL;
  if (defaults[server.provider] !== standard) {
    changes.push({ key: ["providers", server.provider, "base_url"], value: `${server.url}/v1` });
  }
  return { model: id, changes };
}

/** A hosted provider: its key (or the one in the environment) and a model id. */
async function hostedSetup(prompter: Prompter, hosted: typeof HOSTED[number]): Promise<Setup> {
  const inEnv = Boolean(Deno.env.get(hosted.env));
  const hint = inEnv ? ` (Enter to use $${hosted.env})` : "";
  const key = await prompter.secret(`${hosted.label} API key${hint}: `);
  if (key === null) throw new InputEnded(`input ended before the ${hosted.label} key`);
  if (!key && !inEnv) throw new InputEnded(`no ${hosted.label} API key was given`);
  const answer = await prompter.ask(`Model [${hosted.model}]: `);
  if (answer === null) throw new InputEnded("input ended before the model was named");
  const id = `${hosted.provider}/${answer || hosted.model}`;
  const changes: Setup["changes"] = [{ key: ["model"], value: id }];
  if (key) changes.push({ key: ["providers", hosted.provider, "api_key"], value: key });
  return { model: id, changes };
}

/** One message through a real turn of the new setup, its reply printed as it streams. */
async function testChat(home: string): Promise<number> {
  out(`\nTest chat — you: ${TEST_MESSAGE}\nhob: `);
  const [{ openHomeAt }, { renderTurn }] = await Promise.all([
    import("./open.ts"),
    import("./render.ts"),
  ]);
  const hob = await openHomeAt(home);
  try {
    const events = await hob.app.conversations.turn({ message: TEST_MESSAGE });
    const turn = await renderTurn(events, { afterPrompt: true });
    if (turn.failed || turn.status !== "complete") {
      err(
        `\nhob onboard: the test chat did not answer. hob.yaml is written; ` +
          `check it with 'hob doctor', or run 'hob onboard' again.\n`,
      );
      return EXIT.failure;
    }
    out(`\n${green("✓")} hob works. Start it with 'hob serve', or chat with 'hob chat'.\n`);
    return EXIT.ok;
  } finally {
    await hob.close();
  }
}
