/**
 * A document or page to add to memory: the zod schema shared by the app's
 * source action (src/app/memory_sources.ts), which parses it, and the
 * memory_add tool, whose parameter is derived from it. Here, not in the
 * action's module, because that module loads with the first add while the hob
 * services that hand a tool's call on to it load at start. Zod only.
 */

import { z } from "zod";

/** A document or page to add: an http(s) URL, or a file's absolute path. */
export const addSourceInput = z.strictObject({
  source: z.string().trim().min(1, "must not be empty").max(4_096),
});
