/**
 * How `hob serve` starts: loading in steps that let requests in between, the
 * SDK on first use, and a word when its model cannot answer.
 */

import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";
import { until } from "../helpers/until.ts";
import { loadInSteps, preparingOnFirstUse } from "../../src/cli/serve.ts";

Deno.test("loadInSteps lets what is waiting run before each step", async () => {
  const order: string[] = [];
  const steps = ["runtime", "api", "page"].map((name) => () => {
    order.push(name);
    // Something that arrives while a step runs (a health check) is answered before the next.
    setTimeout(() => order.push(`request during ${name}`), 0);
    return Promise.resolve();
  });
  await loadInSteps(steps);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(order, [
    "runtime",
    "request during runtime",
    "api",
    "request during api",
    "page",
    "request during page",
  ]);
});

/** A model router that records what it prepares, and a timer the test fires by hand. */
function quietHarness() {
  const prepared: string[] = [];
  const llm = {
    prepare: (model: string) => {
      prepared.push(model);
      return Promise.resolve();
    },
  };
  const waiting = new Map<number, () => void>();
  const delays: number[] = [];
  let next = 0;
  const timer = {
    start(callback: () => void, ms: number) {
      waiting.set(++next, callback);
      delays.push(ms);
      return next;
    },
    cancel: (id: number) => waiting.delete(id),
  };
  return { prepared, llm, waiting, delays, timer };
}

Deno.test("preparingOnFirstUse loads the model's SDK once the server is quiet after a request but health, once", async () => {
  const { prepared, llm, waiting, delays, timer } = quietHarness();
  const served: string[] = [];
  const fetch = preparingOnFirstUse(llm, "fake/model", (request) => {
    served.push(new URL(request.url).pathname);
    return new Response("ok");
  }, { timer });
  await fetch(new Request("http://127.0.0.1/api/health"));
  assertEquals(waiting.size, 0, "a health check is no one coming to chat");
  await fetch(new Request("http://127.0.0.1/"));
  await fetch(new Request("http://127.0.0.1/api/conversations"));
  // Each request puts the loading off: one wait is left, and nothing is loaded yet.
  assertEquals([waiting.size, prepared], [1, []]);
  assertEquals(delays.every((ms) => ms > 0), true);
  [...waiting.values()][0]();
  assertEquals(prepared, ["fake/model"]);
  await fetch(new Request("http://127.0.0.1/api/status"));
  assertEquals(waiting.size, 1, "no new wait once it is loaded");
  assertEquals(prepared, ["fake/model"]);
  assertEquals(served, ["/api/health", "/", "/api/conversations", "/api/status"]);
});

Deno.test("preparingOnFirstUse loads nothing once the server is stopping", async () => {
  const { prepared, llm, waiting, timer } = quietHarness();
  const stopping = new AbortController();
  const fetch = preparingOnFirstUse(llm, "fake/model", () => new Response("ok"), {
    signal: stopping.signal,
    timer,
  });
  await fetch(new Request("http://127.0.0.1/api/status"));
  assertEquals(waiting.size, 1);
  stopping.abort();
  assertEquals(waiting.size, 0, "the wait is called off");
  await fetch(new Request("http://127.0.0.1/api/status"));
  assertEquals([waiting.size, prepared], [0, []]);
});

Deno.test("preparingOnFirstUse passes on a request whose URL does not parse, and waits for no one", async () => {
  const { prepared, llm, waiting, timer } = quietHarness();
  const fetch = preparingOnFirstUse(llm, "fake/model", () => new Response("the app's answer"), {
    timer,
  });
  // What Deno makes of `Host: [::1`: a URL that `new URL` refuses.
  const request = new Request("http://127.0.0.1/api/health");
  Object.defineProperty(request, "url", { value: "http://[::1/api/health" });
  const response = await fetch(request);
  assertEquals(await response.text(), "the app's answer");
  assertEquals([waiting.size, prepared], [0, []]);
});

Deno.test("hob serve says at start when its model cannot answer, and what to do", async (t) => {
  await t.step("no API key: said at once, and the provider is not asked", async () => {
    await using fake = startFakeOpenAI();
    await using home = await tempHome(`model: openai/gpt-4o-mini
providers:
  openai: { base_url: "${fake.url}" }
memory: { embedder: none }
`);
    await using hob = await startHob(home.home);
    await until(() => hob.stderr().includes("needs an API key"), "the advice");
    assertStringIncludes(
      hob.stderr(),
      "hob: The model openai/gpt-4o-mini needs an API key: set OPENAI_API_KEY and restart hob, or run 'hob onboard' to choose another model.\n",
    );
    assertEquals([fake.listings.length, fake.requests.length], [0, 0]);
  });

  await t.step("a server that does not answer: said once it has not", async () => {
    await using home = await tempHome(`model: ollama/llama3.2
providers:
  ollama: { base_url: "http://127.0.0.1:${closedPort()}/v1" }
memory: { embedder: none }
`);
    await using hob = await startHob(home.home);
    await until(() => hob.stderr().includes("is not reachable"), "the advice");
    const said = hob.stderr().split("\n").find((line) => line.includes("is not reachable"))!;
    assert(said.startsWith("hob: The model ollama/llama3.2 is not reachable ("), said);
    assertStringIncludes(said, "run 'hob onboard' to choose a model");
    assertStringIncludes(said, "OPENAI_API_KEY, OPENROUTER_API_KEY or ANTHROPIC_API_KEY");
  });

  await t.step(
    "a provider that answers: asked for its models once, no chat, nothing said",
    async () => {
      await using fake = startFakeOpenAI();
      await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
      await using hob = await startHob(home.home);
      await until(() => fake.listings.length === 1, "the provider asked for its models");
      assertEquals(await hob.stop(), 0);
      assertEquals(fake.requests.length, 0);
      assert(!hob.stderr().includes("hob: The model"), hob.stderr());
    },
  );
});
