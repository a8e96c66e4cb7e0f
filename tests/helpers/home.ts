/** Temporary hob homes for tests, with hob.yaml pointing wherever the test wants. */

import { ensureHome } from "../../src/home/home.ts";
import { openRuntime, type Runtime } from "../../src/runtime/runtime.ts";

/** A home in a temporary directory, removed on dispose. */
export interface TempHome extends AsyncDisposable {
  home: string;
  token: string;
}

/** Creates a home whose hob.yaml is `yaml`. */
export async function tempHome(yaml: string): Promise<TempHome> {
  const home = await Deno.makeTempDir({ prefix: "hob-home-" });
  await ensureHome(home);
  await Deno.writeTextFile(`${home}/hob.yaml`, yaml);
  const token = (await Deno.readTextFile(`${home}/token`)).trim();
  return {
    home,
    token,
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** hob.yaml for a home whose default model is served by a fake OpenAI-compatible server. */
export function fakeProviderYaml(baseUrl: string, extra = ""): string {
  return `model: fake/fake-model
providers:
  fake: { type: openai, base_url: "${baseUrl}", api_key: "test", max_retries: 0 }
${extra}`;
}

/** An open runtime over a temporary home; closes and removes both on dispose. */
export async function tempRuntime(
  yaml: string,
): Promise<{ runtime: Runtime; home: TempHome } & AsyncDisposable> {
  const home = await tempHome(yaml);
  const runtime = await openRuntime({ home: home.home, env: {} });
  return {
    runtime,
    home,
    async [Symbol.asyncDispose]() {
      await runtime.close();
      await home[Symbol.asyncDispose]();
    },
  };
}

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** Parses a whole text/event-stream body. */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of body.split(/\n\n/)) {
    if (!block.trim()) continue;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    events.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

/** Whether anything (a file, a directory, a link) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
