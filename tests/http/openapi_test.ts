import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import { tempApi } from "../helpers/api.ts";
import { openApiDocument } from "../../src/http/openapi.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** `GET /api/conversations/:id` as `get /api/conversations/{id}`; a wildcard tail is `{path}`. */
function openApiKey(method: string, path: string): string {
  return `${method.toLowerCase()} ${path.replace(/:(\w+)/g, "{$1}").replace(/\/\*$/, "/{path}")}`;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete", "head", "options", "trace"]);

Deno.test("GET /api/openapi.json documents every /api route the API registers", async (t) => {
  await using api = await tempApi("");
  let doc: Json;

  await t.step("it needs the token and is OpenAPI 3.1", async () => {
    const refused = await api.call("/api/openapi.json", { auth: false });
    assertEquals(refused.status, 401);
    await refused.body?.cancel();
    const response = await api.call("/api/openapi.json");
    assertEquals(response.status, 200);
    doc = await response.json();
    assertEquals(doc.openapi, "3.1.0");
    assertEquals(doc.components.securitySchemes.bearer, {
      type: "http",
      scheme: "bearer",
      description: doc.components.securitySchemes.bearer.description,
    });
    assertEquals(doc.security, [{ bearer: [] }]);
  });

  await t.step("every registered route is documented and nothing else is", () => {
    const registered = new Set(
      api.http.routes
        // `api.use` middleware registers as ALL; it is no route of its own.
        .filter((route) => route.method !== "ALL" && route.path.startsWith("/api/"))
        .map((route) => openApiKey(route.method, route.path)),
    );
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap((
        [path, item],
      ) =>
        Object.keys(item).filter((key) => METHODS.has(key)).map((method) => `${method} ${path}`)
      ),
    );
    assert(registered.size > 30, `only ${registered.size} routes found under /api`);
    assertEquals({
      undocumented: [...registered].filter((key) => !documented.has(key)),
      documentedButNotServed: [...documented].filter((key) => !registered.has(key)),
    }, { undocumented: [], documentedButNotServed: [] });
  });

  await t.step("request schemas are the validators' own", () => {
    const chat = doc.paths["/api/chat"].post;
    const body = chat.requestBody.content["application/json"].schema;
    assertEquals(body.required, ["message"]);
    assertEquals(body.additionalProperties, false);
    assertEquals(Object.keys(body.properties).sort(), [
      "attachments",
      "conversation_id",
      "message",
      "model",
    ]);
    assert(chat.responses["200"].content["text/event-stream"], "chat documents its SSE stream");

    const search = doc.paths["/api/memory/search"].get.parameters;
    const q = search.find((param: Json) => param.name === "q");
    assertEquals({ in: q.in, required: q.required, type: q.schema.type }, {
      in: "query",
      required: true,
      type: "string",
    });
    const mode = search.find((param: Json) => param.name === "mode");
    assertEquals(mode.required, false);
    assertEquals(mode.schema.default, "hybrid");

    const file = doc.paths["/api/memory/files/{path}"].get.parameters;
    assertEquals(file.find((param: Json) => param.in === "path").name, "path");
  });

  await t.step("health is open, the rest keep the token", () => {
    assertEquals(doc.paths["/api/health"].get.security, []);
    assertEquals(doc.paths["/api/conversations"].get.security, undefined);
    assert(doc.paths["/api/conversations"].get.responses["401"]);
  });

  await t.step("every $ref resolves", () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map(([, ref]) => ref);
    assert(refs.length > 0);
    for (const ref of new Set(refs)) {
      const target = ref.split("/").reduce((node: Json, key) => node?.[key], doc);
      assert(target, `#/${ref} does not resolve`);
    }
  });
});

Deno.test("openApiDocument refuses a route listed twice", () => {
  const route = {
    method: "get" as const,
    path: "/api/x",
    summary: "x",
    tag: "x",
    response: { description: "x" },
  };
  assertThrows(
    () => openApiDocument([route, route], { title: "t", version: "1" }),
    Error,
    "GET /api/x twice",
  );
});
