/**
 * The memory routes: search, reading and writing memory files, and rebuilding
 * the index (with progress as server-sent events). Mounted under /api, behind
 * the token.
 */

import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { listMarkdown } from "../memory/search_index.ts";
import { MemoryWriteError } from "../memory/files.ts";
import { storageProblem } from "../home/storage.ts";
import { PathError } from "../tools/sandbox/paths.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { pathTail, readJson, readQuery } from "./validate.ts";

const searchQuery = z.object({
  q: z.string().trim().min(1, "must not be empty").max(1_000),
  limit: z.coerce.number().int().min(1).max(50).default(5),
  mode: z.enum(["hybrid", "keyword", "vector"]).default("hybrid"),
});
const textBody = z.strictObject({
  text: z.string().trim().min(1, "must not be empty").max(10_000),
});
const sectionBody = z.strictObject({
  section: z.string().trim().min(1).max(200),
  content: z.string().max(20_000),
});
const fileBody = z.strictObject({ content: z.string().max(1_000_000) });
const getQuery = z.object({
  from: z.coerce.number().int().min(1).default(1),
  lines: z.coerce.number().int().min(1).max(5_000).default(5_000),
});

const pathReply = z.object({
  path: z.string().describe("The memory file written, e.g. `MEMORY.md`"),
});

/** The routes below as the OpenAPI document lists them. */
export const memoryRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/memory/search",
    tag: "memory",
    summary: "Hybrid (vector + keyword) search over the memory files",
    query: searchQuery,
    response: { description: "`{query, embedder, hits}`, best first" },
  },
  {
    method: "get",
    path: "/api/memory/stats",
    tag: "memory",
    summary: "Files, chunks and vectors in the index, and the embedder",
    response: { description: "The index's counts" },
  },
  {
    method: "get",
    path: "/api/memory/files",
    tag: "memory",
    summary: "Every Markdown file under memory/",
    response: { description: "`{files}`" },
  },
  {
    method: "get",
    path: "/api/memory/files/{path}",
    tag: "memory",
    summary: "Read lines of a memory file",
    query: getQuery,
    response: { description: "`{path, from, to, total_lines, text}`" },
  },
  {
    method: "put",
    path: "/api/memory/files/{path}",
    tag: "memory",
    summary: "Replace a memory file",
    body: fileBody,
    response: { description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/remember",
    tag: "memory",
    summary: "Add a fact to MEMORY.md",
    body: textBody,
    response: { status: 201, description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/log",
    tag: "memory",
    summary: "Add a note to today's daily log",
    body: textBody,
    response: { status: 201, description: "The file written", schema: pathReply },
  },
  {
    method: "put",
    path: "/api/memory/sections",
    tag: "memory",
    summary: "Replace one section of MEMORY.md",
    body: sectionBody,
    response: { description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/reindex",
    tag: "memory",
    summary: "Rebuild the search index from the files",
    response: {
      description: "`{changed}` and the index's counts",
      sse: "`progress` events, then one `done` event with `{changed}` and the counts",
    },
  },
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * app.route("/api", memoryRoutes(runtime));
 * ```
 */
export function memoryRoutes(runtime: Runtime): Hono {
  const { memory } = runtime;
  const app = new Hono();

  app.get("/memory/search", async (c) => {
    const query = readQuery(c, searchQuery);
    const hits = await memory.search(query.q, { limit: query.limit, mode: query.mode });
    return c.json({ query: query.q, embedder: memory.embedderId, hits });
  });

  app.get("/memory/stats", async (c) => {
    await memory.ready;
    return c.json(memory.index.stats());
  });

  app.get("/memory/files", async (c) => {
    return c.json({ files: await listMarkdown(memory.files.dir) });
  });

  app.get("/memory/files/*", async (c) => {
    const path = pathTail(c, "/api/memory/files/");
    const { from, lines } = readQuery(c, getQuery);
    try {
      return c.json(await memory.get(path, from, lines));
    } catch (error) {
      throw asApiError(error, path);
    }
  });

  app.put("/memory/files/*", async (c) => {
    const path = pathTail(c, "/api/memory/files/");
    const { content } = await readJson(c, fileBody);
    try {
      return c.json({ path: await memory.replace(path, content) });
    } catch (error) {
      throw asApiError(error, path);
    }
  });

  app.post("/memory/remember", async (c) => {
    const { text } = await readJson(c, textBody);
    return c.json({ path: await memory.remember(text) }, 201);
  });

  app.post("/memory/log", async (c) => {
    const { text } = await readJson(c, textBody);
    return c.json({ path: await memory.logNote(text) }, 201);
  });

  app.put("/memory/sections", async (c) => {
    const { section, content } = await readJson(c, sectionBody);
    try {
      return c.json({ path: await memory.writeSection(section, content) });
    } catch (error) {
      throw asApiError(error, "MEMORY.md");
    }
  });

  app.post("/memory/reindex", async (c) => {
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      return streamSSE(c, async (stream) => {
        const changed = await memory.reindex((progress) => {
          if (!stream.aborted) {
            stream.writeSSE({ event: "progress", data: JSON.stringify(progress) }).catch(() => {});
          }
        });
        await stream.writeSSE({
          event: "done",
          data: JSON.stringify({ changed: changed.length, ...memory.index.stats() }),
        });
      });
    }
    const changed = await memory.reindex();
    return c.json({ changed: changed.length, ...memory.index.stats() });
  });

  return app;
}

function asApiError(error: unknown, path: string): unknown {
  // A full disk or read-only home: the app's error handler answers 507/503.
  if (storageProblem(error)) return error;
  if (error instanceof PathError) return new ApiError(400, "invalid_path", error.message, "path");
  if (error instanceof Deno.errors.NotFound) {
    return new ApiError(404, "not_found", `No memory file '${path}'`);
  }
  if (error instanceof MemoryWriteError) return new ApiError(400, "invalid_request", error.message);
  if (error instanceof Error && /Only Markdown/.test(error.message)) {
    return new ApiError(400, "invalid_path", error.message, "path");
  }
  return error;
}
