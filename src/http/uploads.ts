/**
 * Files sent with messages: `POST /api/uploads` (multipart, field `file`,
 * several allowed) stores them under HOME/uploads and answers their paths,
 * which `POST /api/chat` takes as `attachments`; `GET /api/uploads/<path>`
 * serves one back — images inline, anything else as a download, never as a
 * page that could run in hob's origin.
 */

import { Hono } from "hono";
import { join } from "node:path";
import { z } from "zod";
import type { Attachment } from "../core/types.ts";
import type { Hob } from "../app/hob.ts";
import { actAsync, ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { pathTail, readForm } from "./validate.ts";

/** Images a browser may show inline; everything else downloads. */
const INLINE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"]);

/** The form `POST /uploads` reads; for the document only, as the handler reads the form itself. */
const uploadForm = z.object({ file: z.array(z.file()).min(1) });
const attachment = z.object({
  path: z.string().describe("Relative to the hob home; pass it in `attachments`"),
  name: z.string(),
  type: z.string().describe("Media type, e.g. `image/png`"),
  size: z.number().int(),
});

/** The routes below as the OpenAPI document lists them. */
export const uploadRouteDocs: RouteDoc[] = [
  {
    method: "post",
    path: "/api/uploads",
    tag: "uploads",
    summary: "Store files to attach to a chat message (field `file`, several allowed)",
    body: uploadForm,
    bodyType: "multipart/form-data",
    response: {
      status: 201,
      description: "The stored files",
      schema: z.object({ uploads: z.array(attachment) }),
    },
  },
  {
    method: "get",
    path: "/api/uploads/{path}",
    tag: "uploads",
    summary: "One uploaded file: images inline, anything else as a download",
    response: { description: "The file", mediaType: "application/octet-stream" },
  },
];

/**
 * Builds the routes.
 *
 * @example
 * ```ts
 * api.route("/api", uploadRoutes(hob));
 * ```
 */
export function uploadRoutes(hob: Hob): Hono {
  const routes = new Hono();

  routes.post("/uploads", async (c) => {
    if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
      throw new ApiError(
        415,
        "unsupported_media_type",
        "Send files as multipart/form-data in the field 'file'",
      );
    }
    const form = await readForm(c, { all: true });
    const files = [form.file].flat().filter((value): value is File => value instanceof File);
    if (files.length === 0) {
      throw new ApiError(400, "invalid_request", "No file in the field 'file'", "file");
    }
    const uploads: Attachment[] = [];
    for (const file of files) uploads.push(await hob.app.uploads.save(file));
    return c.json({ uploads }, 201);
  });

  routes.get("/uploads/*", async (c) => {
    const path = `uploads/${pathTail(c, "/api/uploads/")}`;
    const upload = await actAsync(() => hob.app.uploads.find({ path }));
    const inline = INLINE.has(upload.type);
    c.header("Content-Type", inline ? upload.type : "application/octet-stream");
    c.header(
      "Content-Disposition",
      `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(upload.name)}`,
    );
    c.header("Content-Security-Policy", "sandbox; default-src 'none'");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(
      (await Deno.readFile(join(hob.home, upload.path))) as Uint8Array<ArrayBuffer>,
    );
  });

  return routes;
}
