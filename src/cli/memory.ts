/** `hob memory`: search, read and write memory, and rebuild its index. */

import { type Command, CommandError, EXIT, intOption, UsageError } from "./command.ts";
import { MemoryWriteError } from "../memory/files.ts";
import { openHome } from "./open.ts";
import { dim, err, out, outJson } from "./output.ts";

const ACTIONS = ["search", "get", "remember", "log", "write", "reindex", "stats"];

export const memory: Command = {
  name: "memory",
  summary: "Search, read and write memory; rebuild its index",
  help: `Usage: hob memory search "query" [--limit N] [--json]
       hob memory get PATH [--from N] [--lines N]
       hob memory remember "a fact to keep"
       hob memory log "a note for today's log"
       hob memory write SECTION "new content of that section of MEMORY.md"
       hob memory reindex
       hob memory stats [--json]

Memory is the Markdown files in HOME/memory: MEMORY.md, the daily logs
YYYY-MM-DD.md, and any notes you put there. Search fuses keyword (BM25) and
meaning (embeddings). 'reindex' rebuilds the index from the files, with a
progress bar; deleting the index loses nothing.

Options:
  --limit N      search results (default 5)
  --from N       first line for 'get' (default 1)
  --lines N      lines for 'get' (default 60)
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: {
    limit: { type: "string" },
    from: { type: "string" },
    lines: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: [1, 3],
  async run(parsed) {
    const [action, first, second] = parsed.positionals;
    if (!ACTIONS.includes(action)) {
      throw new UsageError(`hob memory: unknown action '${action}' — use ${ACTIONS.join(", ")}`);
    }
    const needs = {
      search: 1,
      get: 1,
      remember: 1,
      log: 1,
      write: 2,
      reindex: 0,
      stats: 0,
    }[action]!;
    const given = [first, second].filter((p) => p !== undefined).length;
    // An empty query, path, text or section (`""` in the shell) is as good as a missing one.
    const empty = (action === "write" ? [first] : [first, second]).some((text) =>
      text !== undefined && !text.trim()
    );
    if (given < needs || empty) {
      throw new UsageError(`hob memory ${action}: missing argument — see 'hob memory --help'`);
    }
    if (given > needs) {
      throw new UsageError(
        `hob memory ${action}: unexpected argument '${needs === 0 ? first : second}'`,
      );
    }
    const limit = intOption(parsed, "limit", [1, 50]) ?? 5;
    const from = intOption(parsed, "from", [1, 10_000_000]) ?? 1;
    const lines = intOption(parsed, "lines", [1, 5_000]) ?? 60;

    const runtime = await openHome(parsed);
    try {
      const mem = runtime.memory;
      switch (action) {
        case "search": {
          const hits = await mem.search(first, { limit });
          if (parsed.values.json) {
            outJson({ query: first, embedder: mem.embedderId, hits });
          } else if (hits.length === 0) {
            out(`Nothing in memory matches '${first}'.\n`);
          } else {
            for (const hit of hits) {
              out(
                `memory/${hit.path}:${hit.start_line}-${hit.end_line}  ${
                  dim(hit.heading)
                }\n  ${hit.snippet}\n`,
              );
            }
          }
          return EXIT.ok;
        }
        case "get": {
          try {
            const excerpt = await mem.get(first, from, lines);
            out(`${excerpt.text}\n`);
          } catch (error) {
            throw new CommandError((error as Error).message);
          }
          return EXIT.ok;
        }
        case "remember":
          out(`Remembered in memory/${await checked(action, mem.remember(first))}.\n`);
          return EXIT.ok;
        case "log":
          out(`Noted in memory/${await checked(action, mem.logNote(first))}.\n`);
          return EXIT.ok;
        case "write":
          out(
            `Wrote the section '${first}' of memory/${await checked(
              action,
              mem.writeSection(first, second),
            )}.\n`,
          );
          return EXIT.ok;
        case "reindex": {
          const bar = Deno.stderr.isTerminal();
          const started = performance.now();
          const changed = await mem.reindex((p) => {
            if (!bar) return;
            const width = 30;
            const filled = p.total ? Math.round((p.done / p.total) * width) : width;
            err(
              `\r${p.phase.padEnd(9)} [${"█".repeat(filled)}${
                "░".repeat(width - filled)
              }] ${p.done}/${p.total}`,
            );
          });
          if (bar) err("\n");
          const stats = mem.index.stats();
          out(
            `Indexed ${changed.length} file(s): ${stats.chunks} chunks, ${stats.vectors} vectors (${
              stats.embedder ?? "keyword search only"
            }) in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
          );
          return EXIT.ok;
        }
        case "stats": {
          await mem.ready;
          const stats = mem.index.stats();
          if (parsed.values.json) outJson(stats);
          else {
            out(
              `${stats.files} files, ${stats.chunks} chunks, ${stats.vectors} vectors; embedder ${
                stats.embedder ?? "none"
              }`,
            );
            out(stats.pending ? `; ${stats.pending} chunks waiting for vectors\n` : "\n");
          }
          return EXIT.ok;
        }
      }
      return EXIT.ok;
    } finally {
      await runtime.close();
    }
  },
};

/** A write whose text was refused (too long, a section name of two lines) is bad usage, exit 2. */
async function checked(action: string, write: Promise<string>): Promise<string> {
  try {
    return await write;
  } catch (error) {
    // With a cause it is the disk's problem, not the text's: reported as such.
    if (error instanceof MemoryWriteError && !error.cause) {
      throw new UsageError(`hob memory ${action}: ${error.message}`);
    }
    throw error;
  }
}
