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

Deno.test("preparingOnFirstUse loads the model's SDK on the first request but health, once", async () => {
  const prepared: string[] = [];
  const llm = {
    prepare: (model: string) => {
      prepared.push(model);
      return Promise.resolve();
    },
  };
  const served: string[] = [];
  const fetch = preparingOnFirstUse(llm, "fake/model", (request) => {
    served.push(new URL(request.url).pathname);
    return new Response("ok");
  });
  await fetch(new Request("http://127.0.0.1/api/health"));
  assertEquals(prepared, [], "a health check is no one coming to chat");
  await fetch(new Request("http://127.0.0.1/"));
  await fetch(new Request("http://127.0.0.1/api/conversations"));
  assertEquals(prepared, ["fake/model"]);
  assertEquals(served, ["/api/health", "/", "/api/conversations"]);
});
