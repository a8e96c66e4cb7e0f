/**
 * The OpenAPI 3.1 document of the /api routes, built from route descriptions
 * that point at the very zod schemas the handlers validate with, so the
 * document cannot describe a request the server would refuse. It knows no
 * handler and no runtime: each route module lists its own routes.
 */

import { z } from "zod";

/** The methods the API uses, as OpenAPI spells them. */
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** What one route answers when it succeeds. */
export interface RouteResponse {
  /** @default {200} */
  status?: number;
  description: string;
  /** The JSON body's shape, where it is cheap to state. */
  schema?: z.ZodType;
  /** Set when the route also streams server-sent events (`Accept: text/event-stream`): what they are. */
  sse?: string;
  /** Set when the body is not JSON (e.g. a file): its media type. */
  mediaType?: string;
}

/** One documented route. */
export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI style, `/api/conversations/{id}`; `{path}` stands for a wildcard tail. */
  path: string;
  summary: string;
  /** Groups routes in the document, e.g. "memory". */
  tag: string;
  /** The schema the handler passes to `readJson`. */
  body?: z.ZodType;
  /** The body's media type. @default {"application/json"} */
  bodyType?: "application/json" | "multipart/form-data";
  /** The body may be left out. @default {false} */
  bodyOptional?: boolean;
  /** The schema the handler passes to `readQuery`; each property becomes a query parameter. */
  query?: z.ZodObject;
  response: RouteResponse;
  /** Failures beyond the ones every route of its kind has, by status. */
  errors?: Record<number, string>;
  /** Needs no token. @default {false} */
  open?: boolean;
}

/** The error shape of every 4xx and 5xx (`errorBody` in errors.ts). */
const errorSchema = z.object({
  error: z.object({
    code: z.string().describe("Stable, machine-readable, e.g. `invalid_request`"),
    message: z.string().describe("What went wrong and how to fix it"),
    field: z.string().optional().describe("The bad input, when there is one"),
  }),
});

/** Fixed fields of the document. */
export interface DocumentInfo {
  title: string;
  version: string;
  description?: string;
}

/**
 * Builds the document; a route listed twice is a bug and throws.
 *
 * @example
 * ```ts
 * const doc = openApiDocument([{ method: "get", path: "/api/health", summary: "Liveness",
 *   tag: "health", open: true, response: { description: "ok" } }], { title: "hob", version });
 * ```
 */
export function openApiDocument(routes: readonly RouteDoc[], info: DocumentInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  const ids = new Set<string>();
  for (const route of routes) {
    const item = paths[route.path] ??= {};
    const id = operationId(route.method, route.path);
    if (item[route.method] || ids.has(id)) {
      throw new Error(
        `Cannot document ${route.method.toUpperCase()} ${route.path} twice: remove one of its entries`,
      );
    }
    ids.add(id);
    item[route.method] = operation(route, id);
  }
  return {
    openapi: "3.1.0",
    info,
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "The token in `~/.hob/token` (or HOME/token)",
        },
      },
      schemas: { Error: jsonSchema(errorSchema) },
    },
  };
}

function operation(route: RouteDoc, operationId: string) {
  const { path, response } = route;
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
    ...(name === "path" ? { description: "The rest of the path; may contain `/`" } : {}),
  }));
  const query = route.query ? jsonSchema(route.query) : undefined;
  const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: query?.required?.includes(name) ?? false,
    schema,
  }));

  const errors: Record<number, string> = {};
  if (route.body || route.query) errors[400] = "Invalid input; `error.field` names it";
  if (!route.open) errors[401] = "Missing or wrong token";
  if (pathParams.length > 0) errors[404] = "No such resource";
  if (route.body) errors[413] = "The body is too large";
  if (route.body) errors[415] = `The body is not ${route.bodyType ?? "application/json"}`;
  Object.assign(errors, route.errors);

  const replySchema = response.schema
    ? jsonSchema(response.schema)
    : response.mediaType
    ? { type: "string", format: "binary" }
    : undefined;
  const content: Record<string, unknown> = {
    [response.mediaType ?? "application/json"]: replySchema ? { schema: replySchema } : {},
  };
  if (response.sse) {
    content["text/event-stream"] = { schema: { type: "string", description: response.sse } };
  }
  const status = response.status ?? 200;

  return {
    operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.open ? { security: [] } : {}),
    ...(pathParams.length + queryParams.length > 0
      ? { parameters: [...pathParams, ...queryParams] }
      : {}),
    ...(route.body
      ? {
        requestBody: {
          required: !route.bodyOptional,
          content: {
            [route.bodyType ?? "application/json"]: { schema: jsonSchema(route.body) },
          },
        },
      }
      : {}),
    responses: {
      [status]: {
        description: response.description,
        ...(status === 204 ? {} : { content }),
      },
      ...Object.fromEntries(
        Object.entries(errors).map(([code, description]) => [code, {
          description,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        }]),
      ),
    },
  };
}

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the
 * `$schema` line. Always the input side: what a caller may send, and for
 * replies an open shape (`z.object` output would forbid extra fields).
 */
function jsonSchema(schema: z.ZodType) {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input" });
  return rest as { properties?: Record<string, unknown>; required?: string[] };
}

/** `post /api/conversations/{id}/model` → `postConversationsIdModel`. */
function operationId(method: HttpMethod, path: string): string {
  const words = path.replace(/^\/api\//, "").split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method + words.map((word) => word[0].toUpperCase() + word.slice(1)).join("");
}
