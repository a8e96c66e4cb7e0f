/** The `read_csv` tool: a CSV file as a Markdown table of its first rows, with the total count. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { readAll } from "./file_helpers.ts";

/** Longest cell shown. */
const MAX_CELL_CHARS = 200;

export default defineTool({
  name: "read_csv",
  description:
    "Read a CSV (or TSV) file and show its first rows as a Markdown table with the total row count. max_rows defaults to 20.",
  category: "data",
  side_effect: "none",
  untrusted_output: true,
  // A file's text: links in it are ones a tainted turn may follow (src/tools/call_reach.ts).
  output_links: true,
  permissions: { read: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1),
    max_rows: z.number().int().min(1).max(1_000).default(20),
  }),
  async run({ path, max_rows }, context) {
    using opened = await context.openFile(path);
    const text = new TextDecoder().decode(await readAll(opened.file));
    const { default: Papa } = await import("papaparse");
    const parsed = Papa.parse(text.replace(/^\uFEFF/, ""), { skipEmptyLines: true }) as {
      data: string[][];
      errors: unknown[];
    };
    const rows = parsed.data;
    if (rows.length === 0) return `${path} is empty`;
    const [header, ...body] = rows;
    const width = Math.max(...rows.map((row: string[]) => row.length));
    const cell = (value: string | undefined) =>
      (value ?? "").replace(/\s+/g, " ").replaceAll("|", "\\|").slice(0, MAX_CELL_CHARS);
    const line = (row: string[]) =>
      `| ${Array.from({ length: width }, (_, i) => cell(row[i])).join(" | ")} |`;
    const table = [
      line(header),
      `|${" --- |".repeat(width)}`,
      ...body.slice(0, max_rows).map(line),
    ].join("\n");
    const shown = Math.min(max_rows, body.length);
    const problems = parsed.errors.length > 0
      ? `\n(${parsed.errors.length} row(s) could not be parsed cleanly)`
      : "";
    return `${table}\n\n${body.length} rows in total (plus the header); showing ${shown}.${problems}`;
  },
});
