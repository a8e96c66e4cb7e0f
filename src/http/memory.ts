/**
 * The memory routes: search, reading and writing memory files, rebuilding
 * the index (with progress as server-sent events), and the versions of every
 * memory, identity, skill and tool file (list, show, diff, revert). Mounted under /api, behind
 * the token. Translators from HTTP to the app's memory actions
 * (src/app/memory.ts), and from their refusals to the API's errors.
 */

import { Hono } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { z } from "zod";
import { ActionError } from "../app/errors.ts";
import {
  type MemoryActions,
  memorySectionInput,
  memoryTextInput,
  readMemoryQuery,
  replaceMemoryBody,
  searchMemoryInput,
  trustMemoryInput,
} from "../app/memory.ts";
import type { WrittenBy } from "../app/memory.ts";
import { diffInput, listVersionsInput } from "../app/memory_versions.ts";
import { addSourceInput, refreshSourceInput } from "../app/memory_sources.ts";
import { MemoryWriteError } from "../memory/files.ts";
import { storageProblem } from "../home/storage.ts";
import type { Hob } from "../app/hob.ts";
import { actAsync } from "./errors.ts";
import { textForPeople } from "./display.ts";
import { ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { pathTail, queryAction, readInput, readJson, readQuery } from "./validate.ts";

/** Every write over the API is the owner's: the token is theirs. */
const BY_API: WrittenBy = { author: "owner", via: "api" };

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
    query: searchMemoryInput,
    response: {
      description:
        "`{query, embedder, hits}`, best first; a hit whose `snippet` holds text from outside also has `display`: its parts with the source of each",
    },
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
    query: readMemoryQuery,
    response: { description: "`{path, from, to, total_lines, text}`" },
  },
  {
    method: "put",
    path: "/api/memory/files/{path}",
    tag: "memory",
    summary: "Replace a memory file",
    body: replaceMemoryBody,
    response: { description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/remember",
    tag: "memory",
    summary: "Add a fact to MEMORY.md",
    body: memoryTextInput,
    response: { status: 201, description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/log",
    tag: "memory",
    summary: "Add a note to today's daily log",
    body: memoryTextInput,
    response: { status: 201, description: "The file written", schema: pathReply },
  },
  {
    method: "put",
    path: "/api/memory/sections",
    tag: "memory",
    summary: "Replace one section of MEMORY.md",
    body: memorySectionInput,
    response: { description: "The file written", schema: pathReply },
  },
  {
    method: "post",
    path: "/api/memory/sources",
    tag: "memory",
    summary:
      "Add a document or page to memory: an http(s) URL or a file's absolute path (Markdown, text, HTML, PDF, DOCX, CSV), saved under memory/sources/ with front matter",
    body: addSourceInput,
    response: {
      status: 201,
      description: "`{path, source, title, format, changed, truncated, version}`",
    },
  },
  {
    method: "post",
    path: "/api/memory/sources/refresh",
    tag: "memory",
    summary: "Read a source again from where it came from; a change is a new version",
    body: refreshSourceInput,
    response: { description: "`{path, source, title, format, changed, truncated, version}`" },
  },
  {
    method: "post",
    path: "/api/memory/trust",
    tag: "memory",
    summary:
      "Vouch for a memory file after reading it (a source added from the web, say): its untrusted labels are taken out, as your version, so its text is trusted from then on",
    body: trustMemoryInput,
    response: {
      description:
        "`{path, changed, version}`: `changed` false when the file held no text from outside",
    },
  },
  {
    method: "get",
    path: "/api/memory/history",
    tag: "memory",
    summary: "Versions of memory, identity, skill and tool files, newest first",
    query: listVersionsInput,
    response: {
      description:
        "`{versions}`: id, path, author (owner, agent, flush, job, mcp), via, conversation_id, taint (set when the writing turn had read untrusted content), reverts",
    },
  },
  {
    method: "get",
    path: "/api/memory/versions/{id}",
    tag: "memory",
    summary: "One version and the file's content at it (null: the write deleted the file)",
    response: { description: "The version with `content`" },
  },
  {
    method: "get",
    path: "/api/memory/diff",
    tag: "memory",
    summary: "The unified diff between two versions of one file; without `to`, what `from` changed",
    query: diffInput,
    response: { description: "`{path, from, to, diff}`" },
  },
  {
    method: "post",
    path: "/api/memory/versions/{id}/revert",
    tag: "memory",
    summary: "Put a file back as it was at a version (itself a new version; nothing is lost)",
    response: {
      description: "`{reverted, version}`: the version put back, and the new one (null: unchanged)",
    },
  },
  {
    method: "post",
    path: "/api/memory/versions/{id}/undo",
    tag: "memory",
    summary:
      "Take back what one write changed, keeping later writes (a new version); 409 when later writes changed the same lines",
    response: {
      description: "`{reverted, version}`: the write undone, and the new version (null: unchanged)",
    },
  },
  {
    method: "post",
    path: "/api/memory/reindex",
    tag: "memory",
    summary: "Rebuild the search index from the files",
    response: {
      description: "`{changed}` and the index's counts",
      sse:
        "`progress` events (`{phase, done, total, seconds, perSecond}`: files, then chunks embedded), then one `done` event with `{changed}` and the counts",
    },
  },
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * api.route("/api", memoryRoutes(hob));
 * ```
 */
export function memoryRoutes(hob: Hob): Hono {
  const { memory } = hob.app;
  const routes = new Hono();

  routes.get("/memory/search", async (c) => {
    const found = await queryAction(c, searchMemoryInput, (query) => memory.search(query));
    // `snippet` is what the model reads; a labelled one also comes as `display`, for people.
    return c.json({
      ...found,
      hits: found.hits.map((hit) => {
        const display = textForPeople(hit.snippet);
        return display ? { ...hit, display } : hit;
      }),
    });
  });

  routes.get("/memory/stats", async (c) => c.json(await memory.stats()));

  routes.get("/memory/files", async (c) => c.json({ files: await memory.files() }));

  routes.get("/memory/files/*", async (c) => {
    const path = pathTail(c, "/api/memory/files/");
    const query = readQuery(c, readMemoryQuery);
    return c.json(await act(() => memory.read({ ...query, path })));
  });

  routes.put("/memory/files/*", async (c) => {
    const path = pathTail(c, "/api/memory/files/");
    const { content } = await readJson(c, replaceMemoryBody);
    return c.json({ path: await act(() => memory.replace({ path, content }, BY_API)) });
  });

  routes.post("/memory/remember", async (c) => {
    const body = await readInput(c, memoryTextInput);
    return c.json({ path: await act(() => memory.remember(body, BY_API)) }, 201);
  });

  routes.post("/memory/log", async (c) => {
    const body = await readInput(c, memoryTextInput);
    return c.json({ path: await act(() => memory.log(body, BY_API)) }, 201);
  });

  routes.put("/memory/sections", async (c) => {
    const body = await readInput(c, memorySectionInput);
    return c.json({ path: await act(() => memory.writeSection(body, BY_API)) });
  });

  routes.post("/memory/sources", async (c) => {
    const body = await readInput(c, addSourceInput);
    return c.json(await act(() => memory.addSource(body, BY_API, c.req.raw.signal)), 201);
  });

  routes.post("/memory/sources/refresh", async (c) => {
    const body = await readInput(c, refreshSourceInput);
    return c.json(await act(() => memory.refreshSource(body, BY_API, c.req.raw.signal)));
  });

  routes.post("/memory/trust", async (c) => {
    const body = await readInput(c, trustMemoryInput);
    return c.json(await act(() => memory.trust(body, BY_API)));
  });

  routes.get("/memory/history", async (c) => {
    return c.json({
      versions: await queryAction(c, listVersionsInput, (query) => memory.versions(query)),
    });
  });

  routes.get("/memory/versions/:id", async (c) => {
    return c.json(await act(() => memory.version({ id: c.req.param("id") })));
  });

  routes.get("/memory/diff", async (c) => {
    return c.json(await queryAction(c, diffInput, (query) => memory.diff(query)));
  });

  routes.post("/memory/versions/:id/undo", async (c) => {
    return c.json(
      await act(() => memory.undo({ id: c.req.param("id") }, { ...BY_API, via: "api undo" })),
    );
  });

  routes.post("/memory/versions/:id/revert", async (c) => {
    return c.json(
      await act(() => memory.revert({ id: c.req.param("id") }, { ...BY_API, via: "api revert" })),
    );
  });

  routes.post("/memory/reindex", async (c) => {
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      return streamSSE(c, (stream) => reindexStream(memory, stream));
    }
    return c.json(await memory.reindex());
  });

  return routes;
}

/** A rebuild of the index as events: `progress` while it runs, then one `done` with the counts. */
async function reindexStream(memory: MemoryActions, stream: SSEStreamingApi): Promise<void> {
  const result = await memory.reindex((progress) => {
    if (!stream.aborted) {
      stream.writeSSE({ event: "progress", data: JSON.stringify(progress) }).catch(() => {});
    }
  });
  await stream.writeSSE({ event: "done", data: JSON.stringify(result) });
}

/**
 * Runs a memory action, answering its refusal as every route over src/app
 * does ({@linkcode actAsync}), but for what only memory says: a path it will
 * not use (not one its schema refused) is a 400 `invalid_path`, and a write the disk refused for a reason
 * of its own (not space, not permission) a 400.
 */
function act<T>(action: () => Promise<T>): Promise<T> {
  return actAsync(async () => {
    try {
      return await action();
    } catch (error) {
      throw memoryRefusal(error);
    }
  });
}

function memoryRefusal(error: unknown): unknown {
  // A full disk or read-only home: the app's error handler answers 507/503.
  if (storageProblem(error)) return error;
  const pathRefused = error instanceof ActionError && error.code === "invalid" &&
    error.field === "path" && error.issue === undefined;
  if (pathRefused) {
    return new ApiError(400, "invalid_path", error.message, "path");
  }
  if (error instanceof MemoryWriteError) return new ApiError(400, "invalid_request", error.message);
  return error;
}
