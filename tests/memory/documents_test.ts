/**
 * Documents into Markdown: one real file of each format (the DOCX written by
 * the docx package, the PDFs by groff and qpdf — scripts/make_document_fixtures.sh),
 * the refusals a person sees, the limits, and the document process's isolation
 * shown by attack: a converter that tries to read, write, connect or run is
 * refused, and one that never returns, loops or fills its memory is stopped.
 */

import { dirname } from "node:path";
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../helpers/assert.ts";
import { staticGraph } from "../helpers/graph.ts";
import { HOB_COMMAND, HOB_FLAGS } from "../helpers/hob_process.ts";
import { busiestThreadSeconds, killMidway, processesWhere } from "../helpers/processes.ts";
import { until } from "../helpers/until.ts";
import {
  convertDocument,
  type ConvertDocumentOptions,
  type ConvertedDocument,
  detectFormat,
  DocumentError,
  type DocumentInput,
  type DocumentProblem,
  MAX_DOCUMENT_BYTES,
} from "../../src/memory/documents.ts";

const FIXTURES = new URL("../fixtures/documents/", import.meta.url);
const HOSTILE = new URL("hostile_entry.ts", FIXTURES);
const encode = (text: string) => new TextEncoder().encode(text);

/** Converts and prints how long it took, for the report's figures. */
async function timed(input: DocumentInput, options?: ConvertDocumentOptions) {
  const start = performance.now();
  const converted = await convertDocument(input, options);
  console.log(
    `  ${converted.format}: ${input.bytes.length} bytes → ${converted.markdown.length} chars ` +
      `in ${(performance.now() - start).toFixed(0)} ms`,
  );
  return converted;
}

/** Fails unless `words` appear in `text` in this order. */
function assertInOrder(text: string, words: string[]): void {
  let at = 0;
  for (const word of words) {
    const found = text.indexOf(word, at);
    assert(found >= 0, `"${word}" is missing after position ${at} in:\n${text}`);
    at = found + word.length;
  }
}

/** Fails unless converting `input` is refused for `problem` with a message containing `says`. */
async function assertRefused(
  input: DocumentInput,
  problem: DocumentProblem,
  says: string[],
  options?: ConvertDocumentOptions,
): Promise<DocumentError> {
  const error = await assertRejects(() => convertDocument(input, options));
  assert(error instanceof DocumentError, String(error));
  assertEquals(error.problem, problem, error.message);
  for (const part of says) assertStringIncludes(error.message, part);
  return error;
}

const PAGE =
  `<!doctype html><html><head><title>Reading the tide tables | Harbour Blog</title></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/subscribe">Subscribe now</a></nav>
<article>
<h1>Reading the tide tables</h1>
<p>The tide tables list high and low water for every day of the year. Each entry gives a time
and a height in metres, measured above chart datum. Sailors read them before leaving the harbour
at dawn, because the bar at the mouth is shallow.</p>
<h2>Spring and neap tides</h2>
<p>Spring tides come twice a month, near the new and full moon, and rise higher than neap tides.
See <a href="/almanac">the almanac</a> for the year. The difference matters most for boats with a
deep keel, which can ground on the bar at low water.</p>
<ul><li>High water at 06:12</li><li>Low water at 12:30</li></ul>
<table><thead><tr><th>Day</th><th>High</th></tr></thead>
<tbody><tr><td>Monday</td><td>4.2 m</td></tr><tr><td>Tuesday</td><td>4.4 m</td></tr></tbody></table>
<p>Always check the forecast as well, since a strong onshore wind can raise the water by half a
metre above the predicted height.</p>
</article>
<footer>Copyright 2026 Harbour Blog. All rights reserved.</footer>
<script>trackVisitor()</script>
</body></html>`;

async function checklistDocx(): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const document = new Document({
    sections: [{
      children: [
        new Paragraph({ text: "Boat checklist", heading: HeadingLevel.HEADING_1 }),
        new Paragraph("Check the bilge pump before every trip."),
        new Paragraph({ text: "Engine", heading: HeadingLevel.HEADING_2 }),
        new Paragraph({ text: "Oil level", bullet: { level: 0 } }),
        new Paragraph({ text: "Fuel filter", bullet: { level: 0 } }),
        new Table({
          rows: [
            new TableRow({ children: [cell("Part"), cell("Interval")] }),
            new TableRow({ children: [cell("Impeller"), cell("yearly")] }),
          ],
        }),
      ],
    }],
  });
  return new Uint8Array(await Packer.toArrayBuffer(document));
}

Deno.test("convertDocument reads each format into Markdown", async (t) => {
  await t.step("Markdown passes through, its title from its first heading", async () => {
    const text = "# Packing list\n\n- tent\n- stove  \n  with gas\n\n\n\n```\n\n\n```\n";
    const converted = await timed({ bytes: encode(text), name: "packing.md" });
    assertEquals(
      converted,
      {
        format: "markdown",
        title: "Packing list",
        markdown: text.trimEnd() + "\n",
        truncated: false,
      } satisfies ConvertedDocument,
    );
  });

  await t.step("text loses its BOM and CRLFs, its title from its name", async () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encode("Ferry times\r\nFirst boat 07:10\r\n"),
    ]);
    const converted = await timed({ bytes, name: "ferry_times.txt" });
    assertEquals(converted.format, "text");
    assertEquals(converted.title, "ferry times");
    assertEquals(converted.markdown, "Ferry times\nFirst boat 07:10\n");
  });

  await t.step("text that is not UTF-8 is read as Latin-1", async () => {
    const converted = await timed({
      bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      name: "a.txt",
    });
    assertEquals(converted.markdown, "café\n");
  });

  await t.step("HTML keeps the article, not the navigation, footer or script", async () => {
    const converted = await timed({
      bytes: encode(PAGE),
      name: "tides",
      mediaType: "text/html; charset=utf-8",
      url: "https://harbour.example/blog/tides",
    });
    assertEquals(converted.format, "html");
    assertEquals(converted.title, "Reading the tide tables | Harbour Blog");
    const md = converted.markdown;
    assertInOrder(md, [
      "The tide tables list high and low water",
      "## Spring and neap tides",
      "[the almanac](https://harbour.example/almanac)",
      "High water at 06:12",
      "| Day | High |",
      "| Monday | 4.2 m |",
      "raise the water by half a metre",
    ]);
    for (const boilerplate of ["Subscribe now", "All rights reserved", "trackVisitor"]) {
      assert(!md.includes(boilerplate), `${boilerplate} kept:\n${md}`);
    }
  });

  await t.step("HTML with no article falls back to the whole body", async () => {
    const html = "<html><head><title>Links</title><style>p{}</style></head><body>" +
      "<nav>Menu</nav><h1>Useful links</h1><ul><li><a href='https://a.example/'>Tides</a></li></ul>" +
      "</body></html>";
    const converted = await timed({ bytes: encode(html), name: "links.html" });
    assertEquals(converted.title, "Links");
    assertInOrder(converted.markdown, ["Useful links", "[Tides](https://a.example/)"]);
    assert(!converted.markdown.includes("Menu"), converted.markdown);
  });

  await t.step("HTML becomes Markdown only, never raw HTML", async () => {
    const html =
      "<html><body><table><tr><td><ul><li>Buoy</li><li>Bell</li></ul></td><td onclick='x()'>Red</td>" +
      "</tr></table><p>Data <img src='data:image/png;base64,AAAA' alt='a chart'> and " +
      "<a href='javascript:alert(1)'>a trap</a>.</p></body></html>";
    const converted = await timed({ bytes: encode(html), name: "odd.html" });
    assertInOrder(converted.markdown, ["| Buoy; Bell | Red |", "Data a chart and a trap."]);
    for (const raw of ["<", "onclick", "javascript:", "base64"]) {
      assert(!converted.markdown.includes(raw), `${raw} kept:\n${converted.markdown}`);
    }
  });

  await t.step("PDF text comes page by page, its title from its metadata", async () => {
    const bytes = await Deno.readFile(new URL("report.pdf", FIXTURES));
    const converted = await timed({ bytes, name: "report.pdf" });
    assertEquals(converted.format, "pdf");
    assertEquals(converted.title, "Harbour Survey Report");
    assertInOrder(converted.markdown, [
      "## Page 1",
      "Harbour Survey Report",
      "1. Tides and moorings",
      "The northern pier floods twice a month at spring tide.",
      "moved", // groff broke the line here
      "before the equinox.",
      "## Page 2",
      "2. Budget",
      "The dredging contract costs forty thousand crowns.",
    ]);
  });

  await t.step("DOCX keeps headings, lists and tables", async () => {
    const converted = await timed({ bytes: await checklistDocx(), name: "checklist.docx" });
    assertEquals(converted.format, "docx");
    assertEquals(converted.title, "Boat checklist");
    assertInOrder(converted.markdown, [
      "# Boat checklist",
      "Check the bilge pump before every trip.",
      "## Engine",
      "-   Oil level",
      "-   Fuel filter",
      "| Part | Interval |",
      "| Impeller | yearly |",
    ]);
  });

  await t.step("a small CSV is a table, its delimiter guessed", async () => {
    const csv = "Day;High;Note\nMonday;4.2;calm\nTuesday;4.4;wind | rain\n";
    const converted = await timed({ bytes: encode(csv), name: "tides.csv" });
    assertEquals(converted.format, "csv");
    assertEquals(converted.title, "tides");
    assertEquals(
      converted.markdown,
      "| Day | High | Note |\n| --- | --- | --- |\n| Monday | 4.2 | calm |\n" +
        "| Tuesday | 4.4 | wind \\| rain |\n",
    );
  });

  await t.step("a large CSV is one line per row, a heading per hundred rows", async () => {
    const rows = Array.from({ length: 250 }, (_, i) => `day ${i + 1}\t${(i % 7) / 2}\t`);
    const converted = await timed({
      bytes: encode(`day\theight\tnote\n${rows.join("\n")}`),
      name: "year.tsv",
    });
    assertInOrder(converted.markdown, [
      "## Rows 1–100",
      "- day: day 1; height: 0\n",
      "- day: day 100; height: 0.5\n",
      "## Rows 101–200",
      "## Rows 201–250",
      "- day: day 250; height: 2\n",
    ]);
  });
});

Deno.test("detectFormat trusts the bytes, then a specific media type, then the extension", async (t) => {
  const pdf = await Deno.readFile(new URL("report.pdf", FIXTURES));
  await t.step("a PDF is a PDF whatever its label", () => {
    assertEquals(detectFormat({ bytes: pdf, name: "notes.txt", mediaType: "text/plain" }), "pdf");
  });
  await t.step("a note that mentions %PDF- is still a note", () => {
    const bytes = encode("# PDF headers\n\nEvery PDF opens with %PDF-1.7 or so.\n");
    assertEquals(detectFormat({ bytes, name: "pdf.md" }), "markdown");
    const late = new Uint8Array([...encode("junk\n"), ...pdf]);
    assertEquals(detectFormat({ bytes: late, name: "download" }), "pdf");
  });
  await t.step("a UTF-8 BOM does not hide HTML", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encode("<!doctype html><p>x")]);
    assertEquals(detectFormat({ bytes, name: "download" }), "html");
  });
  await t.step("the extension outranks text/plain and octet-stream", () => {
    const bytes = encode("# Hi\n");
    assertEquals(detectFormat({ bytes, name: "README.md", mediaType: "text/plain" }), "markdown");
    assertEquals(
      detectFormat({ bytes, name: "a.csv", mediaType: "application/octet-stream" }),
      "csv",
    );
  });
  await t.step("a specific media type outranks the extension", () => {
    assertEquals(
      detectFormat({ bytes: encode("<p>x</p>"), name: "page.php", mediaType: "text/html" }),
      "html",
    );
  });
  await t.step("HTML is known by its opening", () => {
    assertEquals(
      detectFormat({ bytes: encode("\n<!DOCTYPE html><p>x"), name: "download" }),
      "html",
    );
  });
  await t.step("anything else that reads as text is text", () => {
    assertEquals(
      detectFormat({ bytes: encode("{}"), name: "a.json", mediaType: "application/json" }),
      "text",
    );
  });
  await t.step("a PNG, an XLSX or a labelled image is refused by name", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    for (
      const [input, what] of [
        [{ bytes: png, name: "photo.txt" }, "a PNG image"],
        [
          { bytes: encode("PK\x03\x04....xl/workbook.xml"), name: "sheet.xlsx" },
          "an Excel workbook",
        ],
        [
          { bytes: encode("hello"), name: "x", mediaType: "image/svg+xml" },
          "of type image/svg+xml",
        ],
      ] as const
    ) {
      const error = assertThrows(() => detectFormat(input), DocumentError, what);
      assertEquals((error as DocumentError).problem, "unsupported");
      assertStringIncludes(error.message, "Markdown, plain text, HTML, PDF, DOCX and CSV");
    }
  });
});

Deno.test("convertDocument refuses what it cannot read, saying why", async (t) => {
  await t.step("a scanned PDF has no text layer", async () => {
    const bytes = await Deno.readFile(new URL("scanned.pdf", FIXTURES));
    await assertRefused({ bytes, name: "scan.pdf" }, "empty", [
      "scan.pdf",
      "scanned images",
      "OCR",
    ]);
  });
  await t.step("a password-protected PDF", async () => {
    const bytes = await Deno.readFile(new URL("locked.pdf", FIXTURES));
    await assertRefused({ bytes, name: "locked.pdf" }, "encrypted", ["password"]);
  });
  await t.step("a corrupt PDF", async () => {
    const bytes = encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage");
    await assertRefused({ bytes, name: "broken.pdf" }, "corrupt", [
      "broken.pdf",
      "not a readable PDF",
    ]);
  });
  await t.step("a file named PDF that is not one", async () => {
    await assertRefused({ bytes: encode("hello"), name: "fake.pdf" }, "corrupt", [
      "not a readable PDF",
    ]);
  });
  await t.step("a corrupt DOCX", async () => {
    const docx = await checklistDocx();
    const bytes = docx.slice(0, docx.length / 2); // cut short: no central directory
    await assertRefused({ bytes, name: "cut.docx" }, "corrupt", [
      "cut.docx",
      "not a readable DOCX",
    ]);
  });
  await t.step("an image", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await assertRefused({ bytes: png, name: "photo.png" }, "unsupported", ["a PNG image", "PDF"]);
  });
  await t.step("binary data", async () => {
    const bytes = new Uint8Array([0x41, 0x00, 0x42, 0x07, 0x01]);
    await assertRefused({ bytes, name: "data.bin" }, "unsupported", ["binary data"]);
  });
  await t.step("a page with no text", async () => {
    const bytes = encode(
      "<html><head><title>Empty</title></head><body><script>x()</script></body></html>",
    );
    await assertRefused({ bytes, name: "empty.html" }, "empty", ["no readable text"]);
  });
  await t.step("input past the size limit, before reading it", async () => {
    const bytes = new Uint8Array(MAX_DOCUMENT_BYTES + 1);
    await assertRefused({ bytes, name: "huge.pdf" }, "too_large", ["huge.pdf", "25.0 MB"]);
    await assertRefused(
      { bytes: encode("x".repeat(2048)), name: "a.txt" },
      "too_large",
      ["2.0 KB"],
      {
        maxBytes: 1024,
      },
    );
  });
});

Deno.test("convertDocument cuts Markdown past maxChars at a line, with a note", async () => {
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of the ship's log`);
  const converted = await convertDocument({ bytes: encode(lines.join("\n")), name: "log.txt" }, {
    maxChars: 1_000,
  });
  assert(converted.truncated);
  const [kept, note] = converted.markdown.split("\n\n> ");
  assert(kept.length <= 1_000, String(kept.length));
  assert(kept.endsWith("of the ship's log"), kept.slice(-40));
  assertStringIncludes(note, `hob kept the first ${kept.length} characters`);
  const whole = await convertDocument({ bytes: encode("short"), name: "a.txt" }, {
    maxChars: 1_000,
  });
  assertEquals(whole.truncated, false);
});

Deno.test("convertDocument parses in a process that can read, write, connect and run nothing", async () => {
  const dir = await Deno.makeTempDir();
  const secret = `${dir}/secret.txt`;
  await Deno.writeTextFile(secret, "the owner's secret");
  // A server that would answer, had the process been let through.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("hi"),
  );
  try {
    const converted = await convertDocument({
      bytes: encode("<html><body>x</body></html>"),
      name: "hostile.html",
      url: JSON.stringify({ secret, port: server.addr.port }),
    }, { entry: HOSTILE });
    const attempts = converted.markdown.trimEnd().split("\n");
    assertEquals(attempts.map((line) => line.split(":")[0]), [
      "- read",
      "- write",
      "- net",
      "- env",
      "- run",
      "- sys",
    ]);
    for (const attempt of attempts) assertStringIncludes(attempt, ": NotCapable: Requires ");
    assertEquals([...Deno.readDirSync(dir)].map((entry) => entry.name), ["secret.txt"]);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The pids of hostile document processes alive now (their command lines name the fixture). */
function hostileProcesses(): number[] {
  return processesWhere(({ argv }) => argv.some((arg) => arg.endsWith(HOSTILE.pathname)));
}

/** Fails unless every hostile document process ends: hob killed it (within the deadline). */
async function assertNoneLeft(): Promise<void> {
  await until(() => hostileProcesses().length === 0, "the document process to end");
}

Deno.test("convertDocument stops a conversion that never answers, or loops, or fills its memory", async (t) => {
  const input = (name: string) => ({ bytes: encode("<p>x</p>"), name, mediaType: "text/html" });

  await t.step("on abort", async () => {
    const controller = new AbortController();
    const converting = convertDocument(input("hang"), {
      entry: HOSTILE,
      signal: controller.signal,
    });
    await until(() => hostileProcesses().length > 0, "the document process to start");
    controller.abort(new Error("the owner said stop"));
    const error = await assertRejects(() => converting);
    assert(error instanceof DocumentError, String(error));
    assertEquals(error.problem, "aborted");
    assertEquals((error.cause as Error).message, "the owner said stop");
    await assertNoneLeft();
  });
  await t.step("a parser looping on its only thread, after the timeout", async () => {
    await assertRefused(input("spin"), "timeout", ["hob stopped reading spin", "took too long"], {
      entry: HOSTILE,
      timeoutMs: 300,
    });
    await assertNoneLeft();
  });
  await t.step("a parser that fills its memory ends only its own process", async () => {
    await assertRefused(input("balloon"), "too_large", [
      "hob stopped reading balloon",
      "needed more memory than hob gives a reader",
      "64 MB",
    ], { entry: HOSTILE, memoryMb: 64 });
    await assertNoneLeft();
  });
  await t.step(
    "a parser that fills memory outside its heap ends only its own process",
    async () => {
      await assertRefused(input("buffers"), "too_large", [
        "needed more memory than hob gives a reader",
        "memory cap 64 MB",
      ], { entry: HOSTILE, memoryMb: 64 });
      await assertNoneLeft();
    },
  );
  await t.step("a looping parser ends when hob does, however hob ends", async () => {
    await killMidway(
      `import { convertDocument } from ${
        JSON.stringify(new URL("../../src/memory/documents.ts", import.meta.url).href)
      };
      await convertDocument({ bytes: new Uint8Array([1]), name: "spin", mediaType: "text/html" }, {
        entry: new URL(${JSON.stringify(HOSTILE.href)}),
        timeoutMs: 600_000,
      });`,
      // Looping: only a loop keeps one thread this busy.
      () => hostileProcesses().some((pid) => busiestThreadSeconds(pid) > 1),
    );
    await assertNoneLeft();
  });
  await t.step("an aborted signal starts nothing", async () => {
    await assertRefused(input("hang"), "aborted", ["stopped"], {
      entry: HOSTILE,
      signal: AbortSignal.abort(),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assertEquals(hostileProcesses(), []);
  });
});

Deno.test("a compiled hob's way: `hob __documents` parses in a Worker inside its process", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // hob as a compiled hob starts itself, through a script that notes how it was started.
    const launch = {
      launcher: "hob" as const,
      hob: ["bash", "-c", `echo "$*" >> ${dir}/started; exec "$@"`, "hob", ...HOB_COMMAND],
    };
    const csv = await convertDocument(
      { bytes: encode("Day,High\nMonday,4.2\n"), name: "t.csv" },
      { launch },
    );
    assertEquals(csv.markdown, "| Day | High |\n| --- | --- |\n| Monday | 4.2 |\n");
    const html = await convertDocument({ bytes: encode(PAGE), name: "tides.html" }, { launch });
    assertEquals(html.title, "Reading the tide tables | Harbour Blog");
    const started = (await Deno.readTextFile(`${dir}/started`)).trim().split("\n");
    assertEquals(started.length, 2);
    for (const line of started) assertStringIncludes(line, "main.ts __documents --worker");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a document process's answer is checked, and a whole 25 MB document reaches it", async (t) => {
  await t.step("the largest document hob reads crosses to the process whole", async () => {
    const bytes = new Uint8Array(MAX_DOCUMENT_BYTES).fill(0x61);
    const { markdown } = await convertDocument(
      { bytes, name: "size", mediaType: "text/html" },
      { entry: HOSTILE },
    );
    assertEquals(markdown, `${MAX_DOCUMENT_BYTES} bytes\n`);
  });
  await t.step("an answer of the wrong shape is a reader's failure", async () => {
    await assertRefused(
      { bytes: encode("<p>x</p>"), name: "liar", mediaType: "text/html" },
      "corrupt",
      ["hob could not read liar", "its answer was not one hob understands"],
      { entry: HOSTILE },
    );
  });
  await t.step("a process cannot pick hob's own problems, nor say too much", async () => {
    const error = await assertRejects(() =>
      convertDocument(
        { bytes: encode("<p>x</p>"), name: "blame", mediaType: "text/html" },
        { entry: HOSTILE },
      )
    );
    assert(error instanceof DocumentError, String(error));
    assertEquals(error.problem, "corrupt");
    assertEquals(error.message.length, 2_000);
  });
  await t.step("Markdown far past maxChars is cut in the process, and said so", async () => {
    const page = `<html><body>${"<p>A line of the ship's log.</p>".repeat(2_000)}</body></html>`;
    const converted = await convertDocument({ bytes: encode(page), name: "log.html" }, {
      maxChars: 1_000,
    });
    assert(converted.truncated);
    assertStringIncludes(converted.markdown, "of this document; the rest was cut.");
    assert(converted.markdown.length < 1_200, String(converted.markdown.length));
  });
});

Deno.test("convertDocument works with the flags hob runs with", async () => {
  await convertsAsHob({ NO_COLOR: "1" });
});

Deno.test("convertDocument finds npm packages in a cache filled from the lockfile alone", async () => {
  // Such a cache has the packages but none of the registry's metadata, which Deno
  // reads to resolve a package's own dependencies when it has no lockfile:
  // mammoth's @xmldom/xmldom then fails to load, though it is there.
  const cache = await cacheWithoutMetadata();
  try {
    await convertsAsHob({ NO_COLOR: "1", DENO_DIR: cache });
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

/**
 * A Deno cache holding every npm package of the real one (hard links, beside
 * it so they can be) but none of the registry's metadata (`registry.json`).
 */
async function cacheWithoutMetadata(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const real: string = JSON.parse(new TextDecoder().decode(stdout)).denoDir;
  // One that a killed run left is removed by the next (an hour is longer than any run).
  for await (const entry of Deno.readDir(dirname(real))) {
    const path = `${dirname(real)}/${entry.name}`;
    if (!entry.name.startsWith(SCRATCH_CACHE)) continue;
    const { mtime } = await Deno.stat(path);
    if (mtime && Date.now() - mtime.getTime() > 3_600_000) {
      await Deno.remove(path, { recursive: true });
    }
  }
  const cache = await Deno.makeTempDir({ dir: dirname(real), prefix: SCRATCH_CACHE });
  try {
    await linkTree(`${real}/npm`, `${cache}/npm`);
  } catch (error) {
    await Deno.remove(cache, { recursive: true });
    throw new Error(`could not hard-link Deno's npm cache beside it: ${error}`);
  }
  return cache;
}

/** The prefix of the caches {@linkcode cacheWithoutMetadata} makes beside Deno's own. */
const SCRATCH_CACHE = "hob-test-deno-dir-";

async function linkTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const [source, target] = [`${from}/${entry.name}`, `${to}/${entry.name}`];
    if (entry.isDirectory) await linkTree(source, target);
    else if (entry.isFile && entry.name !== "registry.json") await Deno.link(source, target);
  }
}

/**
 * Converts a document of each kind as hob would, in a process with hob's
 * flags and `env`: hob loads dynamic imports lazily, which a Worker without
 * read permission cannot do, so the Worker's parsers must be static imports
 * (tests run without that flag).
 */
async function convertsAsHob(env: Record<string, string>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const files = {
      "report.pdf": await Deno.readFile(new URL("report.pdf", FIXTURES)),
      "checklist.docx": await checklistDocx(),
      "tides.html": encode(PAGE),
      "tides.csv": encode("Day,High\nMonday,4.2\n"),
    };
    for (const [name, bytes] of Object.entries(files)) {
      await Deno.writeFile(`${dir}/${name}`, bytes);
    }
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...HOB_FLAGS,
        new URL("convert.ts", FIXTURES).pathname,
        ...Object.keys(files).map((name) => `${dir}/${name}`),
      ],
      cwd: new URL("../../", import.meta.url),
      env,
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    const lines = new TextDecoder().decode(stdout).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assertEquals(lines, [
      { name: "report.pdf", format: "pdf", title: "Harbour Survey Report" },
      { name: "checklist.docx", format: "docx", title: "Boat checklist" },
      { name: "tides.html", format: "html", title: "Reading the tide tables | Harbour Blog" },
      { name: "tides.csv", format: "csv", title: "tides" },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("importing documents.ts loads no parser, and its process machinery only with a document", async () => {
  assertEquals(await staticGraph("src/memory/documents.ts"), [
    "src/memory/document_errors.ts",
    "src/memory/document_text.ts",
    "src/memory/documents.ts",
    "src/sandbox/launch.ts",
  ]);
  // Not even its import()s: the parsers load in the document process alone.
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/memory/documents.ts"],
    cwd: new URL("../../", import.meta.url),
  }).output();
  assertEquals(code, 0);
  const { modules } = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { specifier: string }[];
  };
  const parsers = modules.map((module) => module.specifier)
    .filter((specifier) =>
      /document_(convert|pdf|docx|html|csv)\.ts$|pdfjs|mammoth|docx@|linkedom|papaparse|turndown/
        .test(specifier)
    );
  assertEquals(parsers, []);
});
