/**
 * Files sent with messages: stored under HOME/uploads/<day>/ with a random
 * prefix, found again by their home-relative path (nothing outside uploads/),
 * described to the agent by absolute path so its file tools can read them,
 * and read back as image content for models that see. The upload actions
 * (save, find) are REST's and the channels'.
 */

import { markUntrusted } from "../core/untrusted.ts";
import { basename, extname, join } from "node:path";
import type { AttachmentPort } from "../core/ports.ts";
import type { Attachment, ImageContent } from "../core/types.ts";
import { Buffer } from "node:buffer";
import { ActionError } from "./errors.ts";

/** Largest image sent to a model. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Images the providers take as image content. */
const MODEL_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".bmp": "image/bmp",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".xml": "application/xml",
  ".html": "text/html",
  ".htm": "text/html",
  ".pdf": "application/pdf",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".mp3": "audio/mpeg",
  ".m4a": "audio/mp4",
  ".flac": "audio/flac",
  ".aac": "audio/aac",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
};

/** The upload actions. */
export interface UploadActions {
  /** Stores a file sent with a message; returns it as an attachment to name in a chat. */
  save(file: File): Promise<Attachment>;
  /** An earlier upload by its home-relative path; `not_found` when it is not one. */
  find(input: { path: string }): Promise<Attachment>;
}

/**
 * The upload actions over a home's uploads folder.
 *
 * @example
 * ```ts
 * const uploads = createUploadActions(home);
 * const { path } = await uploads.save(new File(["hi"], "note.txt"));
 * ```
 */
export function createUploadActions(home: string): UploadActions {
  return {
    save: (file) => saveUpload(home, file),
    async find({ path }) {
      try {
        return await findUpload(home, path);
      } catch (error) {
        if (error instanceof UploadError) throw new ActionError("not_found", error.message);
        throw error;
      }
    },
  };
}

/** Raised for an upload or attachment that cannot be taken; the message says why. */
export class UploadError extends Error {
  override name = "UploadError";
}

/** A media type from a file name. */
export function mediaType(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

/**
 * Stores an uploaded file and returns it as an attachment.
 *
 * @example
 * ```ts
 * const attachment = await saveUpload(home, file); // { path: "uploads/2026-11-22/3f9c0a1b-photo.png", … }
 * ```
 */
export async function saveUpload(home: string, file: File, now = new Date()): Promise<Attachment> {
  const name = safeName(file.name);
  const day = now.toISOString().slice(0, 10);
  const path = `uploads/${day}/${crypto.randomUUID().slice(0, 8)}-${name}`;
  await Deno.mkdir(join(home, "uploads", day), { recursive: true });
  const bytes = new Uint8Array(await file.arrayBuffer());
  await Deno.writeFile(join(home, path), bytes, { createNew: true });
  return { path, name, type: mediaType(name), size: bytes.byteLength };
}

/** An earlier upload by its home-relative path; throws when it is not one. */
export async function findUpload(home: string, path: string): Promise<Attachment> {
  if (!/^uploads\/\d{4}-\d\d-\d\d\/[0-9a-f]{8}-[^/\\]+$/.test(path) || path.includes("..")) {
    throw new UploadError(`'${path}' is not an upload: send the file to /api/uploads first`);
  }
  try {
    const info = await Deno.lstat(join(home, path));
    if (!info.isFile) throw new Error("not a file");
    const name = basename(path).slice(9);
    return { path, name, type: mediaType(name), size: info.size };
  } catch {
    throw new UploadError(`There is no upload '${path}'`);
  }
}

/** The attachment port over a home: notes name absolute paths; images are read and encoded. */
export function attachmentPort(home: string): AttachmentPort {
  return {
    note(attachments) {
      // The user sent them, but their contents (and names) came from anywhere.
      return markUntrusted(
        "upload",
        attachments.map((a) => {
          const where = join(home, a.path);
          if (a.type.startsWith("image/") && MODEL_IMAGES.has(a.type)) {
            return `[Attached image: ${a.name}, at ${where}]`;
          }
          const file = `${a.name} (${a.type}, ${formatSize(a.size)}), at ${where}`;
          if (a.transcript !== undefined) {
            return `[Attached audio: ${file}. What it says: ${a.transcript || "(nothing heard)"}]`;
          }
          if (a.transcript_problem) {
            return `[Attached audio: ${file} — not transcribed: ${a.transcript_problem}]`;
          }
          if (a.type.startsWith("video/")) {
            return `[Attached video: ${file} — see it with analyze_video]`;
          }
          return `[Attached file: ${file} — read it with read_file]`;
        }).join("\n"),
      );
    },
    async image(attachment): Promise<ImageContent | null> {
      if (!MODEL_IMAGES.has(attachment.type) || attachment.size > MAX_IMAGE_BYTES) return null;
      try {
        const bytes = await Deno.readFile(join(home, attachment.path));
        return { media_type: attachment.type, data: Buffer.from(bytes).toString("base64") };
      } catch {
        return null;
      }
    },
  };
}

/** A file name safe on any file system: its base name, odd characters replaced, at most 100 characters. */
function safeName(name: string): string {
  const base = basename(name.replaceAll("\\", "/")).normalize("NFC").replace(
    /[^\p{L}\p{N}._ -]/gu,
    "_",
  )
    .replace(/^[.\s]+/, "").trim();
  const extension = extname(base).slice(0, 12);
  const stem = base.slice(0, base.length - extension.length).slice(0, 100 - extension.length);
  return `${stem || "file"}${extension}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
