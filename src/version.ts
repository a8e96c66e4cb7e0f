/** hob's version, from deno.json, embedded at build time. */

import manifest from "../deno.json" with { type: "json" };

export const VERSION: string = manifest.version;
