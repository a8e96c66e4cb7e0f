/** The `memory_add` tool: a document or web page added to memory as a source. */

import { z } from "zod";
import { addSourceInput } from "../inputs/memory_sources.ts";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "memory_add",
  description:
    "Add a document or web page to the user's memory so it can be searched later: an http(s) URL, or a file in the workspace (Markdown, text, HTML, PDF, DOCX, CSV). It is saved as Markdown under memory/sources/; adding the same source again refreshes it.",
  category: "memory",
  side_effect: "local",
  // The reply names the document's title: the document's words, not hob's.
  untrusted_output: true,
  services: ["memory"],
  timeout_ms: 180_000,
  parameters: z.object({
    source: addSourceInput.shape.source.describe(
      "An http(s) URL, or the path of a file in the workspace",
    ),
  }),
  async run({ source }, context) {
    const added = await context.services.call("memory.add", { source });
    const what = added.changed ? "Added" : "Unchanged since it was added:";
    return `${what} ${source} (${added.format}, “${added.title}”) as memory/${added.path}${
      added.truncated ? " (cut at the size limit)" : ""
    }. Search it with search_memory.`;
  },
});
