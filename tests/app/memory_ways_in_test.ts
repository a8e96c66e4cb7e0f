/**
 * The memory actions, every way in: the same bad search, read or write fed
 * through REST and the CLI (a real `hob` process on the same home) is refused
 * by both — REST with a 400 naming the field, the CLI with exit 2 and one
 * line — by the same rules (the ones the REST API documents), and nothing is
 * written. The page refuses a file its editor may not save with its form
 * message; a path outside memory is refused by REST and the CLI alike.
 */

import { tempApi } from "../helpers/api.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { type HobResult, runHob } from "../helpers/hob_process.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";
/** `hob` processes at once: each is a `deno run`. */
const CONCURRENCY = 4;

/** One bad input, as REST and the CLI spell it. */
interface BadInput {
  what: string;
  rest: { path: string; method?: string; json?: unknown };
  cli: string[];
  /** The REST error's `field`, when the refusal names one. */
  field?: string;
  /** The CLI's one line. */
  stderr: RegExp;
}

const x = (n: number) => "x".repeat(n);

const BAD_MEMORY: BadInput[] = [
  {
    what: "a blank query",
    rest: { path: "/api/memory/search?q=%20%20" },
    cli: ["search", "  "],
    field: "q",
    stderr: /^hob memory search: missing argument/,
  },
  {
    what: "a query past 1000 characters",
    rest: { path: `/api/memory/search?q=${x(1_001)}` },
    cli: ["search", x(1_001)],
    field: "q",
    stderr: /^hob memory search: 'q': Too big: expected string to have <=1000 characters\n$/,
  },
  {
    what: "more hits than a search returns",
    rest: { path: "/api/memory/search?q=tea&limit=51" },
    cli: ["search", "tea", "--limit", "51"],
    field: "limit",
    stderr: /^hob memory: --limit must be an integer from 1 to 50: got '51'\n$/,
  },
  {
    what: "a way of searching there is not",
    rest: { path: "/api/memory/search?q=tea&mode=fuzzy" },
    cli: ["search", "tea", "--mode", "fuzzy"],
    field: "mode",
    stderr: /^hob memory search: 'mode': Invalid option: expected one of /,
  },
  {
    what: "a search by meaning with no embedder",
    rest: { path: "/api/memory/search?q=tea&mode=meaning" },
    cli: ["search", "tea", "--mode", "meaning"],
    field: "mode",
    stderr: /^hob memory search: 'mode': searching by meaning needs an embedder/,
  },
  {
    what: "a first line before the first",
    rest: { path: "/api/memory/files/MEMORY.md?from=0" },
    cli: ["get", "MEMORY.md", "--from", "0"],
    field: "from",
    stderr: /^hob memory: --from must be an integer from 1 /,
  },
  {
    what: "more lines than one read takes",
    rest: { path: "/api/memory/files/MEMORY.md?lines=5001" },
    cli: ["get", "MEMORY.md", "--lines", "5001"],
    field: "lines",
    stderr: /^hob memory: --lines must be an integer from 1 to 5000: got '5001'\n$/,
  },
  {
    what: "a fact past 10000 characters",
    rest: { path: "/api/memory/remember", method: "POST", json: { text: x(10_001) } },
    cli: ["remember", x(10_001)],
    field: "text",
    stderr: /^hob memory remember: 'text': Too big: expected string to have <=10000 characters\n$/,
  },
  {
    what: "a blank note",
    rest: { path: "/api/memory/log", method: "POST", json: { text: "   " } },
    cli: ["log", "   "],
    field: "text",
    stderr: /^hob memory log: missing argument/,
  },
  {
    what: "a section name past 200 characters",
    rest: { path: "/api/memory/sections", method: "PUT", json: { section: x(201), content: "c" } },
    cli: ["write", x(201), "c"],
    field: "section",
    stderr: /^hob memory write: 'section': Too big/,
  },
  {
    what: "a section body past 20000 characters",
    rest: {
      path: "/api/memory/sections",
      method: "PUT",
      json: { section: "Facts", content: x(20_001) },
    },
    cli: ["write", "Facts", x(20_001)],
    field: "content",
    stderr: /^hob memory write: 'content': Too big/,
  },
  {
    what: "a section name of two lines",
    rest: { path: "/api/memory/sections", method: "PUT", json: { section: "A\nB", content: "c" } },
    cli: ["write", "A\nB", "c"],
    stderr: /^hob memory write: The section name must be one line of text\n$/,
  },
];

/** Runs argument lists a few at a time; results in order. */
async function runAll(cases: string[][]): Promise<HobResult[]> {
  const results: HobResult[] = new Array(cases.length);
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runHob(cases[index]);
    }
  }));
  return results;
}

Deno.test("bad memory input is refused alike by REST and the CLI, and nothing is written", async (t) => {
  await using api = await tempApi(YAML);
  const memoryDir = `${api.home.home}/memory`;
  const before = await Deno.readTextFile(`${memoryDir}/MEMORY.md`);
  const cli = await runAll(
    BAD_MEMORY.map((bad) => ["memory", ...bad.cli, "--home", api.home.home]),
  );

  for (const [i, bad] of BAD_MEMORY.entries()) {
    await t.step(bad.what, async () => {
      const { path, method, json } = bad.rest;
      const rest = await api.call(path, { method, json });
      assertEquals(rest.status, 400);
      const { error } = await rest.json();
      assertEquals([error.code, error.field], ["invalid_request", bad.field]);

      assertEquals(cli[i].code, 2, `hob memory ${bad.cli[0]}: ${cli[i].stderr}`);
      assertMatch(cli[i].stderr, bad.stderr);
      assertEquals(cli[i].stdout, "");
    });
  }

  await t.step("a path outside memory: invalid_path from REST, exit 1 from the CLI", async () => {
    const rest = await api.call("/api/memory/files/..%2Ftoken");
    assertEquals(rest.status, 400);
    const { error } = await rest.json();
    assertEquals([error.code, error.field], ["invalid_path", "path"]);
    const [got] = await runAll([["memory", "get", "../token", "--home", api.home.home]]);
    assertEquals(got.code, 1);
    assertMatch(got.stderr, /^hob: Path '\.\.\/token' /);
    assertEquals(got.stdout, "");
  });

  await t.step(
    "the page refuses a file past what memory takes, with its form message",
    async () => {
      const page = await api.call("/ui/memory/file", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
        body: `path=memory%2FMEMORY.md&content=${x(1_000_001)}`,
      });
      assertEquals(page.status, 422);
      assertMatch(await page.text(), /Too big: expected string to have &lt;=1000000 characters/);
    },
  );

  await t.step("nothing was written by any of them", async () => {
    assertEquals(await Deno.readTextFile(`${memoryDir}/MEMORY.md`), before);
    assertEquals(await api.runtime.app.memory.files(), ["MEMORY.md"]);
  });
});
