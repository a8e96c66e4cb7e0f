/**
 * The page's static files, embedded in the program: hob's own script and
 * stylesheet, and htmx, marked and DOMPurify from their pinned npm packages.
 * Nothing is read from disk at run time; each file is gzipped once, on first
 * request, and revalidated by its ETag.
 */

import appJs from "./static/app.js" with { type: "text" };
import styleCss from "./static/style.css" with { type: "text" };
import iconSvg from "./static/icon.svg" with { type: "text" };
import htmxJs from "htmx.org/dist/htmx.min.js" with { type: "text" };
import markedJs from "marked" with { type: "text" };
import purifyJs from "dompurify/purify.min.js" with { type: "text" };
import clientSource from "./client.ts" with { type: "text" };

/** One static file. */
export interface Asset {
  type: string;
  body: Uint8Array;
  etag: string;
  gzip?: Uint8Array;
}

const JS = "text/javascript; charset=utf-8";
const SOURCES: Record<string, [string, string]> = {
  "app.js": [JS, appJs],
  "style.css": ["text/css; charset=utf-8", styleCss],
  "icon.svg": ["image/svg+xml", iconSvg],
  "htmx.js": [JS, htmxJs],
  "marked.js": [JS, stripSourceMap(markedJs)],
  "purify.js": [JS, stripSourceMap(purifyJs)],
};

const assets = new Map<string, Asset>();

/** The asset called `name`, or undefined. */
export async function getAsset(name: string): Promise<Asset | undefined> {
  const cached = assets.get(name);
  if (cached) return cached;
  const source = SOURCES[name];
  if (!source) return undefined;
  const asset = await embeddedAsset(source[0], source[1]);
  assets.set(name, asset);
  return asset;
}

/** Deno runs a remote module as TypeScript when it is served as this. */
export const CLIENT_CONTENT_TYPE = "application/typescript; charset=utf-8";
let clientAsset: Promise<Asset> | undefined;

/**
 * The typed client module user scripts import from `/client.ts` (./client.ts);
 * not one of the page's files, so it is kept apart from them.
 */
export function getClientModule(): Promise<Asset> {
  clientAsset ??= embeddedAsset(CLIENT_CONTENT_TYPE, clientSource);
  return clientAsset;
}

/** A text as an asset: its bytes, a content hash for its ETag, and its gzip. */
async function embeddedAsset(type: string, text: string): Promise<Asset> {
  const body = new TextEncoder().encode(text);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  const etag = `"${[...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
  const gzip = new Uint8Array(
    await new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  return { type, body, etag, gzip };
}

/** The names of every asset (for tests and the bench). */
export const ASSET_NAMES: readonly string[] = Object.keys(SOURCES);

/** Source maps are not shipped, so their comments would only earn 404s. */
function stripSourceMap(text: string): string {
  return text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
}
