/**
 * `hob memory`: search, read and write memory, rebuild its index, and the
 * versions of every versioned file (`history`: list, diff, revert). A
 * translator: arguments become the app's memory actions (src/app/memory.ts),
 * checked before the home is opened, and their refusals become exit 2 (text
 * memory will not take) or exit 1 (a file it cannot read), one line each.
 */

import { ActionError, checkInput } from "../app/errors.ts";
import {
  type IndexProgress,
  MAX_READ_LINES,
  MAX_SEARCH_HITS,
  type MemoryActions,
  memorySectionInput,
  memoryTextInput,
  type SearchMemoryInput,
  searchMemoryInput,
  trustMemoryInput,
} from "../app/memory.ts";
import { diffInput, listVersionsInput, versionInput } from "../app/memory_versions.ts";
import { addSourceInput, refreshSourceInput } from "../app/memory_sources.ts";
import { showTime } from "../app/times.ts";
import { plainText } from "../core/untrusted.ts";
import { resolve } from "node:path";
import { type FileVersion, revertWords, type WrittenBy } from "../store/versions.ts";
import type { z } from "zod";
import {
  type Command,
  CommandError,
  EXIT,
  intOption,
  type ParsedArgs,
  UsageError,
} from "./command.ts";
import { openHome } from "./open.ts";
import { dim, err, green, out, outJson, red } from "./output.ts";

/** Each action and how many arguments it takes: [at least, at most]. */
const ARGUMENTS = {
  search: [1, 1],
  get: [1, 1],
  remember: [1, 1],
  log: [1, 1],
  write: [2, 2],
  reindex: [0, 0],
  stats: [0, 0],
  history: [0, 1],
  diff: [1, 2],
  revert: [1, 1],
  undo: [1, 1],
  add: [1, 1],
  refresh: [1, 1],
  trust: [1, 1],
} as const;
type Action = keyof typeof ARGUMENTS;
const ACTIONS = Object.keys(ARGUMENTS) as Action[];

/** Lines `get` prints unless --lines says otherwise: a screenful, not the whole file. */
const DEFAULT_GET_LINES = 60;
/** Width of the reindex progress bar, in characters. */
const BAR_WIDTH = 30;
/** Every write from the command line is the owner's. */
const BY_CLI: WrittenBy = { author: "owner", via: "cli" };

export const memory: Command = {
  name: "memory",
  summary: "Search, read and write memory; rebuild its index",
  help: `Usage: hob memory search "query" [--limit N] [--mode hybrid|keyword|meaning] [--json]
       hob memory get PATH [--from N] [--lines N]
       hob memory remember "a fact to keep"
       hob memory log "a note for today's log"
       hob memory write SECTION "new content of that section of MEMORY.md"
       hob memory add PATH|URL [--json]
       hob memory refresh sources/FILE.md
       hob memory trust FILE
       hob memory reindex
       hob memory stats [--json]
       hob memory history [FILE] [--tainted] [--limit N] [--json]
       hob memory diff V1 [V2]
       hob memory revert V
       hob memory undo V

Memory is the Markdown files in HOME/memory: MEMORY.md, the daily logs
YYYY-MM-DD.md, and any notes you put there. Search fuses keyword (BM25) and
meaning (embeddings), and shows the lines of each hit that match best ('…'
marks lines left out); --mode keyword or meaning searches one way alone.
'reindex' rebuilds the index from the files, with a progress bar; deleting
the index loses nothing.

'add' reads a document or page into memory/sources/ as Markdown (Markdown,
text, HTML, PDF, DOCX, CSV), where search finds it; its text stays marked as
untrusted. 'refresh' reads it again from where it came from.

Text from outside (a source, a note a turn wrote after reading a page) is
shown to the model only when it asks, and a turn that reads it asks before
changing anything. 'trust FILE' vouches for a file once you have read it:
its marks are taken out, as your version, and from then on it is your words.

Every write to memory, to identity/ (SOUL.md, USER.md, HEARTBEAT.md), to
skills/ and to tools/ is a version: 'history' lists them with who wrote each
(owner, agent, flush, job, mcp) and flags writes made by a turn that had read
untrusted content (--tainted lists only those). FILE is relative to memory/
(MEMORY.md) or to the home (identity/USER.md). 'diff V1' shows what the write
V1 changed; 'diff V1 V2' the change from V1 to V2. 'revert V' puts the file
back as it was at V; 'undo V' takes back what the write V changed and keeps
later writes. Each is itself a new version, so nothing is ever lost.

Options:
  --limit N      search results (default 5), versions listed (default 50)
  --mode M       search: hybrid (default), keyword or meaning
  --tainted      history: only writes by turns that had read untrusted content
  --from N       first line for 'get' (default 1)
  --lines N      lines for 'get' (default ${DEFAULT_GET_LINES})
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: {
    limit: { type: "string" },
    mode: { type: "string" },
    from: { type: "string" },
    lines: { type: "string" },
    json: { type: "boolean" },
    tainted: { type: "boolean" },
  },
  positionals: [1, 3],
  async run(parsed) {
    const request = readRequest(parsed);
    const hob = await openHome(parsed);
    try {
      return await perform(hob.app.memory, request);
    } catch (error) {
      throw cliError(error, request.action);
    } finally {
      await hob.close();
    }
  },
};

/** What the command line asks for, checked by the app's schemas before the home is opened. */
interface MemoryRequest {
  action: Action;
  first: string;
  second: string;
  limit?: number;
  /** search: how to search (checked by the app's schema). */
  mode?: string;
  from: number;
  lines: number;
  json: boolean;
  tainted: boolean;
}

/** Reads and checks the arguments; bad usage is a UsageError naming the problem. */
function readRequest(parsed: ParsedArgs): MemoryRequest {
  const [action, first, second] = parsed.positionals;
  if (!(ACTIONS as string[]).includes(action)) {
    throw new UsageError(`hob memory: unknown action '${action}' — use ${ACTIONS.join(", ")}`);
  }
  checkArguments(action as Action, first, second);
  const request: MemoryRequest = {
    action: action as Action,
    first,
    second,
    limit: intOption(parsed, "limit", [1, action === "history" ? 500 : MAX_SEARCH_HITS]),
    mode: parsed.values.mode as string | undefined,
    from: intOption(parsed, "from", [1, Number.MAX_SAFE_INTEGER]) ?? 1,
    lines: intOption(parsed, "lines", [1, MAX_READ_LINES]) ?? DEFAULT_GET_LINES,
    json: Boolean(parsed.values.json),
    tainted: Boolean(parsed.values.tainted),
  };
  if (request.mode !== undefined && request.action !== "search") {
    throw new UsageError(`hob memory ${action}: --mode is for 'search' only`);
  }
  if (request.action === "search") {
    checkText(request, searchMemoryInput, { q: first, mode: request.mode });
  }
  if (request.action === "remember" || request.action === "log") {
    checkText(request, memoryTextInput, { text: first });
  }
  if (request.action === "write") {
    checkText(request, memorySectionInput, { section: first, content: second });
  }
  if (request.action === "history") checkText(request, listVersionsInput, { path: first });
  if (request.action === "diff") checkText(request, diffInput, { from: first, to: second });
  if (request.action === "add") {
    const source = /^https?:\/\//i.test(first) ? first : resolve(first);
    checkText(request, addSourceInput, { source });
    request.first = source;
  }
  if (request.action === "refresh") checkText(request, refreshSourceInput, { path: first });
  if (request.action === "trust") checkText(request, trustMemoryInput, { path: first });
  if (request.action === "revert" || request.action === "undo") {
    checkText(request, versionInput, { id: first });
  }
  return request;
}

/** As many arguments as the action takes; an empty one (`""` in the shell) is a missing one. */
function checkArguments(action: Action, first?: string, second?: string): void {
  const [needs, most] = ARGUMENTS[action];
  const given = [first, second].filter((p) => p !== undefined).length;
  // A section's new content may be empty; a query, path, text or section may not.
  const empty = (action === "write" ? [first] : [first, second]).some((text) =>
    text !== undefined && !text.trim()
  );
  if (given < needs || empty) {
    throw new UsageError(`hob memory ${action}: missing argument — see 'hob memory --help'`);
  }
  if (given > most) {
    throw new UsageError(
      `hob memory ${action}: unexpected argument '${most === 0 ? first : second}'`,
    );
  }
}

/** Checks an action's text with the app's schema for it; a refusal is bad usage. */
function checkText(request: MemoryRequest, schema: z.ZodType, input: unknown): void {
  try {
    checkInput(schema, input);
  } catch (error) {
    throw cliError(error, request.action);
  }
}

/**
 * An action's refusal as the CLI says it: text memory will not take is bad
 * usage (exit 2); a file that cannot be read is a failure (exit 1).
 */
function cliError(error: unknown, action: Action): unknown {
  if (action === "get") {
    // Whatever kept the file from being read, in the words it came with.
    const original = error instanceof ActionError ? error.cause ?? error : error;
    return new CommandError((original as Error).message);
  }
  if (!(error instanceof ActionError)) return error;
  if (error.code === "invalid") return new UsageError(`hob memory ${action}: ${error.message}`);
  return new CommandError(error.message);
}

/** Does what was asked and prints it; returns the exit code. */
function perform(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  switch (request.action) {
    case "search":
      return search(memory, request);
    case "get":
      return get(memory, request);
    case "remember":
    case "log":
    case "write":
      return write(memory, request);
    case "reindex":
      return reindex(memory);
    case "stats":
      return stats(memory, request.json);
    case "history":
      return listVersions(memory, request);
    case "diff":
      return diff(memory, request);
    case "revert":
    case "undo":
      return revert(memory, request);
    case "add":
    case "refresh":
      return addSource(memory, request);
    case "trust":
      return trust(memory, request);
  }
}

/** `trust`: the owner vouches for a file they have read. */
async function trust(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const result = await memory.trust({ path: request.first }, BY_CLI);
  if (request.json) outJson(result);
  else if (!result.changed) out(`memory/${result.path} holds no text from outside.\n`);
  else {
    out(
      `Trusted memory/${result.path}: its text is yours from now on${
        result.version
          ? ` (version ${result.version.id}; 'hob memory undo ${result.version.id}' takes it back)`
          : ""
      }.\n`,
    );
  }
  return EXIT.ok;
}

async function search(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const found = await memory.search({
    q: request.first,
    limit: request.limit,
    mode: request.mode as SearchMemoryInput["mode"],
  });
  if (request.json) outJson(found);
  else if (found.hits.length === 0) out(`Nothing in memory matches '${request.first}'.\n`);
  else {
    for (const hit of found.hits) {
      out(
        `memory/${hit.path}:${hit.start_line}-${hit.end_line}  ${dim(hit.heading)}\n${
          plainText(hit.snippet).replace(/^/gm, "  ")
        }\n`,
      );
    }
  }
  return EXIT.ok;
}

async function get(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const { from, lines } = request;
  const excerpt = await memory.read({ path: request.first, from, lines });
  out(`${excerpt.text}\n`);
  return EXIT.ok;
}

/** `remember`, `log` and `write`: one entry written, and where. */
async function write(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const { first, second } = request;
  if (request.action === "remember") {
    out(`Remembered in memory/${await memory.remember({ text: first }, BY_CLI)}.\n`);
  } else if (request.action === "log") {
    out(`Noted in memory/${await memory.log({ text: first }, BY_CLI)}.\n`);
  } else {
    const path = await memory.writeSection({ section: first, content: second }, BY_CLI);
    out(`Wrote the section '${first}' of memory/${path}.\n`);
  }
  return EXIT.ok;
}

async function reindex(memory: MemoryActions): Promise<number> {
  const bar = Deno.stderr.isTerminal();
  const started = performance.now();
  const result = await memory.reindex((p) => {
    if (bar) err(`\r${progressBar(p)}`);
  });
  if (bar) err("\n");
  const seconds = (performance.now() - started) / 1000;
  out(
    `Indexed ${result.changed} file(s): ${result.chunks} chunks, ${result.vectors} vectors (${
      result.embedder ?? "keyword search only"
    }) in ${seconds.toFixed(1)} s, ${rate(result.chunks, seconds)} chunks/s.\n`,
  );
  return EXIT.ok;
}

/** One phase's bar: `embedding [████░░] 120/300 chunks · 24.1/s`. */
function progressBar(p: IndexProgress): string {
  const filled = p.total ? Math.round((p.done / p.total) * BAR_WIDTH) : BAR_WIDTH;
  return `${p.phase.padEnd(9)} [${"█".repeat(filled)}${
    "░".repeat(BAR_WIDTH - filled)
  }] ${p.done}/${p.total} ${p.phase === "files" ? "files" : "chunks"} · ${
    rate(p.done, p.seconds)
  }/s `;
}

/** `count` per second, to one decimal below 100. */
function rate(count: number, seconds: number): string {
  const perSecond = seconds > 0 ? count / seconds : 0;
  return perSecond >= 100 ? Math.round(perSecond).toString() : perSecond.toFixed(1);
}

async function stats(memory: MemoryActions, json: boolean): Promise<number> {
  const counts = await memory.stats();
  if (json) {
    outJson(counts);
    return EXIT.ok;
  }
  out(
    `${counts.files} files, ${counts.chunks} chunks, ${counts.vectors} vectors; embedder ${
      counts.embedder ?? "none"
    }`,
  );
  out(counts.pending ? `; ${counts.pending} chunks waiting for vectors\n` : "\n");
  return EXIT.ok;
}

/** `hob memory history`: the versions of one file or all, newest first. */
async function listVersions(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const versions = await memory.versions({
    path: request.first,
    tainted: request.tainted,
    limit: request.limit,
  });
  if (request.json) outJson({ versions });
  else if (versions.length === 0) out("No versions yet.\n");
  else for (const version of versions) out(versionLine(version, request.first === undefined));
  return EXIT.ok;
}

/** One version as `history` lists it: number, time, author (how), what, and the taint flag. */
function versionLine(version: FileVersion, withPath: boolean): string {
  const change = version.hash === null
    ? red("deleted")
    : revertWords(version) ?? `${version.size} bytes`;
  const taint = version.taint ? `  ${red(`⚠ tainted: ${version.taint}`)}` : "";
  return `${String(version.id).padStart(5)}  ${showTime(version.at)}  ${
    `${version.author}`.padEnd(6)
  } ${dim(`(${version.via})`)}  ${withPath ? `${version.path}  ` : ""}${change}${taint}\n`;
}

async function diff(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const found = await memory.diff({ from: request.first, to: request.second });
  if (request.json) {
    outJson(found);
    return EXIT.ok;
  }
  const colour = Deno.stdout.isTerminal();
  for (const line of found.diff.replace(/\n$/, "").split("\n")) {
    if (!colour || line.startsWith("+++") || line.startsWith("---")) out(`${line}\n`);
    else if (line.startsWith("+")) out(`${green(line)}\n`);
    else if (line.startsWith("-")) out(`${red(line)}\n`);
    else if (line.startsWith("@@")) out(`${dim(line)}\n`);
    else out(`${line}\n`);
  }
  return EXIT.ok;
}

/** `revert` and `undo`: the file rewritten, and the version that made. */
async function revert(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const undo = request.action === "undo";
  const by = { ...BY_CLI, via: `cli ${request.action}` };
  const { reverted, version } = undo
    ? await memory.undo({ id: request.first }, by)
    : await memory.revert({ id: request.first }, by);
  if (request.json) outJson({ reverted, version });
  else if (!version) out(`${reverted.path} did not change.\n`);
  else {
    const what = undo
      ? `without the change of version ${reverted.id}`
      : `back as it was at version ${reverted.id}`;
    out(`${reverted.path} is ${what} (now version ${version.id}).\n`);
  }
  return EXIT.ok;
}

/** `add` and `refresh`: the source read, where it went, and whether it changed. */
async function addSource(memory: MemoryActions, request: MemoryRequest): Promise<number> {
  const added = request.action === "add"
    ? await memory.addSource({ source: request.first }, BY_CLI)
    : await memory.refreshSource({ path: request.first }, BY_CLI);
  if (request.json) {
    outJson(added);
    return EXIT.ok;
  }
  const what = added.changed ? (request.action === "add" ? "Added" : "Refreshed") : "Unchanged:";
  out(
    `${what} ${added.source} (${added.format}, “${added.title}”) → memory/${added.path}${
      added.version && added.changed ? `, version ${added.version.id}` : ""
    }${added.truncated ? " (cut at the size limit)" : ""}.\n`,
  );
  return EXIT.ok;
}
