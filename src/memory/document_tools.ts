/**
 * What a document process serves: one tool, the conversion of a document the
 * hob process sends it (documents.ts), answered as a {@linkcode ConversionReply}
 * in JSON, its Markdown tidied and cut to what hob keeps. Loaded only where a
 * document is parsed: in the process's Worker (documents_worker.ts).
 */

import type { ToolDefinition } from "../sandbox/definition.ts";
import type { ServeOptions } from "../sandbox/runner.ts";
import { convert } from "./document_convert.ts";
import { CONVERT_TOOL, fromWire, type WireRequest } from "./documents.ts";

/** The conversion, as the tool the process serves. */
const convertTool: ToolDefinition<WireRequest> = {
  name: CONVERT_TOOL,
  description: "Converts one document to Markdown (hob's own; never offered to a model).",
  category: "memory",
  parameters: { type: "object" },
  side_effect: "none",
  run: async (request) => JSON.stringify(await convert(fromWire(request))),
};

/** The tools of a document process: the conversion only, and no code from outside. */
export const DOCUMENT_TOOLS: ServeOptions = {
  // deno-lint-ignore no-explicit-any
  builtins: new Map([[convertTool.name, convertTool as ToolDefinition<any>]]),
  foreignCode: false,
};
