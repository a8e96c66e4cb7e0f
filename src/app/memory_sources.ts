/**
 * Adding documents and pages to memory, and refreshing them: a URL or a file
 * is read, converted to Markdown and saved under memory/sources/ (see
 * src/memory/sources.ts), where search finds it and each change is kept as
 * a version. Who asks decides what may be read: the owner (page, CLI, API)
 * any file and any address, a tool in a turn only the tools' roots and the
 * addresses `tools.web` allows — judged on the resolved path and address,
 * as every tool's are.
 */

import { isAbsolute } from "node:path";
import { z } from "zod";
import { DocumentError, MAX_DOCUMENT_BYTES } from "../memory/documents.ts";
import type { AddedSource, Memory } from "../memory/memory.ts";
import { addSourceInput } from "../inputs/memory_sources.ts";
import type { WrittenBy } from "../store/versions.ts";
import { PathError, resolveInRoots } from "../sandbox/paths.ts";
import type { AddressPolicy } from "../tools/web/address.ts";
import { ActionError, checkInput } from "./errors.ts";

export { addSourceInput };

/** A source to read again, by its file under memory/ (`sources/x.md`). */
export const refreshSourceInput = z.strictObject({
  path: z.string().trim().min(1, "must not be empty").max(1_000),
});

export type AddSourceInput = z.input<typeof addSourceInput>;
export type RefreshSourceInput = z.input<typeof refreshSourceInput>;

/** What anyone but the owner may read: the tools' roots and `tools.web`'s addresses. */
export interface SourceAccess {
  roots(): string[];
  web: AddressPolicy;
}

/** The source actions, part of the memory actions. */
export interface SourceActions {
  /**
   * Reads a URL or file into memory/sources/ (a new version when it changed).
   * Refuses with `invalid` naming `source` (a type hob cannot read, a path or
   * address not allowed), `not_found` (no such file), `failed` (the server
   * answered an error or could not be reached).
   */
  addSource(input: AddSourceInput, by: WrittenBy, signal?: AbortSignal): Promise<AddedSource>;
  /** Reads a source again from where it came from; `invalid` naming `path` for a file that is not one. */
  refreshSource(
    input: RefreshSourceInput,
    by: WrittenBy,
    signal?: AbortSignal,
  ): Promise<AddedSource>;
}

/** The owner's own request may read any file and reach any address. */
const OWNER_WEB: AddressPolicy = { allow_private: true, allow_hosts: [] };
/** How long reading a source may take, fetching included. */
const READ_TIMEOUT_MS = 60_000;

/**
 * The source actions over a home's memory.
 *
 * @example
 * ```ts
 * const sources = createSourceActions(memory, { roots: () => [workspace], web });
 * await sources.addSource({ source: "https://example.com/manual.pdf" }, { author: "owner", via: "cli" });
 * ```
 */
export function createSourceActions(memory: Memory, access: SourceAccess): SourceActions {
  const add = async (source: string, by: WrittenBy, signal?: AbortSignal) => {
    const stop = AbortSignal.any([
      AbortSignal.timeout(READ_TIMEOUT_MS),
      ...(signal ? [signal] : []),
    ]);
    const read = /^https?:\/\//i.test(source)
      ? await fetchSource(source, by.author === "owner" ? OWNER_WEB : access.web, stop)
      : await readSource(source, by.author === "owner" ? null : access.roots());
    try {
      return await memory.addSource(read, by, stop);
    } catch (error) {
      if (error instanceof DocumentError) {
        throw new ActionError("invalid", error.message, { field: "source", cause: error });
      }
      throw error;
    }
  };
  return {
    addSource(input, by, signal) {
      const { source } = checkInput(addSourceInput, input);
      return add(source, by, signal);
    },
    async refreshSource(input, by, signal) {
      const { path } = checkInput(refreshSourceInput, input);
      const meta = await memory.sourceMeta(path.replace(/^memory\//, ""));
      if (!meta) {
        throw new ActionError("invalid", `memory/${path} is not a source hob added`, {
          field: "path",
        });
      }
      return await add(meta.source, by, signal);
    },
  };
}

/** A document as read: where from, its bytes, a name and the declared type. */
interface ReadDocument {
  source: string;
  bytes: Uint8Array;
  name: string;
  mediaType?: string;
  url?: string;
}

async function fetchSource(
  source: string,
  policy: AddressPolicy,
  signal: AbortSignal,
): Promise<ReadDocument> {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new ActionError("invalid", `'${source}' is not a URL`, { field: "source" });
  }
  // Loaded when a URL is first added: start-up needs no web client.
  const { getChecked } = await import("../tools/web/get.ts");
  let fetched;
  try {
    fetched = await getChecked(url, policy, {
      signal,
      accept: "text/html,application/pdf,text/markdown,text/plain;q=0.9,*/*;q=0.5",
      // One byte over the limit, so the converter can say the document is too large.
      maxBytes: MAX_DOCUMENT_BYTES + 1,
    });
  } catch (error) {
    const message = (error as Error).message;
    // The address itself refused is the caller's to change; anything else is the network's.
    if (/^refuses /.test(message)) {
      throw new ActionError("invalid", message, { field: "source", cause: error });
    }
    throw new ActionError("failed", `Could not fetch ${source}: ${message}`, { cause: error });
  }
  if (fetched.status >= 400) {
    throw new ActionError("failed", `${source} answered ${fetched.status}`);
  }
  const name = decodeURIComponent(fetched.url.pathname.split("/").pop() || fetched.url.hostname);
  return {
    source: url.href,
    bytes: fetched.bytes,
    name,
    mediaType: fetched.contentType || undefined,
    url: fetched.url.href,
  };
}

/** A file's bytes: any absolute path for the owner (`roots` null), else one inside `roots`. */
async function readSource(source: string, roots: string[] | null): Promise<ReadDocument> {
  let file = source;
  try {
    if (roots) file = await resolveInRoots(source, roots);
    else if (!isAbsolute(source)) {
      throw new ActionError("invalid", "must be an http(s) URL or an absolute path", {
        field: "source",
      });
    }
    const info = await Deno.stat(file);
    if (!info.isFile) {
      throw new ActionError("invalid", `${source} is not a file`, { field: "source" });
    }
    if (info.size > MAX_DOCUMENT_BYTES) {
      throw new ActionError(
        "invalid",
        `${source} is larger than ${MAX_DOCUMENT_BYTES / 1048576} MB`,
        {
          field: "source",
        },
      );
    }
    return { source: file, bytes: await Deno.readFile(file), name: file.split("/").pop() ?? file };
  } catch (error) {
    if (error instanceof ActionError) throw error;
    if (error instanceof PathError) {
      throw new ActionError("invalid", error.message, { field: "source", cause: error });
    }
    if (error instanceof Deno.errors.NotFound) {
      throw new ActionError("not_found", `No file ${source}`, { field: "source", cause: error });
    }
    throw error;
  }
}
