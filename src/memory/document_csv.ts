/**
 * CSV (or TSV, or semicolon- or pipe-separated) into Markdown, with papaparse
 * guessing the delimiter. A small file becomes a Markdown table. A larger one
 * becomes one line per row, `- column: value; column: value`, under a
 * `## Rows 1–100` heading per hundred rows: hob's chunker cuts long sections
 * at lines, so a chunk of a table would lose its header row and hold cells
 * nobody can read alone, while a row that names its columns is found by any
 * of its values and read on its own, and the heading says where it was.
 * Runs only in a document process; knows nothing of memory.
 */

import Papa from "papaparse";
import type { ConversionRequest } from "./documents.ts";
import { decodeText, titleFromName } from "./document_text.ts";

/** Most data rows shown as a table: about what fits one chunk and one screen. */
export const MAX_TABLE_ROWS = 30;
/** Most columns shown as a table: wider tables wrap into nonsense in a terminal. */
export const MAX_TABLE_COLUMNS = 8;
/** Rows under each heading of the long form. */
const ROWS_PER_SECTION = 100;

function tableCell(value: string | undefined): string {
  return (value ?? "").replace(/\s+/g, " ").trim().replaceAll("|", "\\|");
}

function table(header: string[], rows: string[][]): string {
  const width = header.length;
  const line = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => tableCell(row[i])).join(" | ")} |`;
  return [line(header), `|${" --- |".repeat(width)}`, ...rows.map(line)].join("\n");
}

/** One row as `- column: value; …`, empty values left out. */
function rowLine(header: string[], row: string[]): string {
  const fields = row.map((value, i) => {
    const text = value.replace(/\s+/g, " ").trim();
    return text ? `${tableCell(header[i]) || `column ${i + 1}`}: ${text}` : "";
  }).filter(Boolean);
  return `- ${fields.join("; ")}`;
}

function rowSections(header: string[], rows: string[][], maxChars: number): string {
  const sections: string[] = [];
  let chars = 0;
  for (let start = 0; start < rows.length && chars <= maxChars; start += ROWS_PER_SECTION) {
    const part = rows.slice(start, start + ROWS_PER_SECTION);
    const section = `## Rows ${start + 1}–${start + part.length}\n\n${
      part.map((row) => rowLine(header, row)).join("\n")
    }`;
    sections.push(section);
    chars += section.length;
  }
  return sections.join("\n\n");
}

/**
 * A CSV file as Markdown: a table when small, one line per row otherwise.
 * The first row is the header.
 *
 * @example
 * ```ts
 * const { markdown } = convertCsv({ format: "csv", bytes, name: "tides.csv", maxChars });
 * ```
 */
export function convertCsv(request: ConversionRequest): { title: string; markdown: string } {
  const text = decodeText(request.bytes, request.name, request.charset);
  const { data } = Papa.parse(text, { skipEmptyLines: "greedy" }) as { data: string[][] };
  const rows = data.filter((row) => row.some((cell) => cell.trim()));
  const title = titleFromName(request.name);
  if (rows.length === 0) return { title, markdown: "" };
  const [header, ...body] = rows;
  const width = rows.reduce((most, row) => Math.max(most, row.length), 0);
  const columns = Array.from({ length: width }, (_, i) => header[i] ?? "");
  const markdown = body.length <= MAX_TABLE_ROWS && width <= MAX_TABLE_COLUMNS
    ? table(columns, body)
    : rowSections(columns, body, request.maxChars);
  return { title, markdown };
}
