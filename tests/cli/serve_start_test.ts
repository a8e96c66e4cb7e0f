/** How `hob serve` starts: loading in steps that let requests in between, the SDK on first use. */

import { assertEquals } from "../helpers/assert.ts";
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
