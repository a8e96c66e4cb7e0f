/**
 * The README is the front door and docs/ holds the reference: the README stays
 * short, and every relative link between them leads to a file (and, for a
 * Markdown file, to a heading it has).
 */

import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../helpers/assert.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The front door's budget: past it, a section belongs in docs/. */
const README_MAX_LINES = 200;

/** README.md and every Markdown file under docs/, as paths from the repository root. */
async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

/** The text outside fenced code blocks, where a `#` line is a heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** The text outside code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, "");
}

/** Every link target of a Markdown file: inline links and images, reference definitions, HTML. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const patterns = [
    /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm,
    /<(?:img|source|a)\b[^>]*\b(?:src|srcset|href)="([^"]+)"/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** Whether a target leaves the repository: a URL with a scheme, or a protocol-relative one. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");
}

/** The anchors GitHub gives a Markdown file's headings (duplicates get `-1`, `-2`, …). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or null when it leads somewhere. */
async function brokenLink(file: string, target: string): Promise<string | null> {
  const [path, fragment] = target.split("#", 2) as [string, string | undefined];
  const resolved = path === "" ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path));
  const shown = relative(ROOT, resolved);
  if (!resolved.startsWith(ROOT)) return `${target}: leads out of the repository`;
  try {
    await Deno.stat(resolved);
  } catch {
    return `${target}: ${shown} does not exist`;
  }
  if (fragment && resolved.endsWith(".md")) {
    const anchors = headingAnchors(await Deno.readTextFile(resolved));
    if (!anchors.has(fragment)) return `${target}: ${shown} has no heading '#${fragment}'`;
  }
  return null;
}

Deno.test("README.md stays a front door of at most 200 lines", async () => {
  const lines = (await Deno.readTextFile(join(ROOT, "README.md"))).trimEnd().split("\n");
  assert(
    lines.length <= README_MAX_LINES,
    `README.md has ${lines.length} lines; move reference material into docs/ (at most ${README_MAX_LINES})`,
  );
});

Deno.test("every relative link in README.md and docs/*.md leads to a file and a heading", async (t) => {
  for (const file of await markdownFiles()) {
    await t.step(file, async () => {
      const markdown = await Deno.readTextFile(join(ROOT, file));
      const broken: string[] = [];
      for (const target of linkTargets(markdown)) {
        if (isExternal(target)) continue;
        const problem = await brokenLink(file, target);
        if (problem) broken.push(problem);
      }
      assertEquals(broken, []);
    });
  }
});

Deno.test("linkTargets finds links and images outside code, and headingAnchors names headings like GitHub", async (t) => {
  await t.step("links, images, reference definitions and HTML", () => {
    const markdown = [
      'See [the API](docs/api.md#rest), ![a picture](docs/a.png) and <img src="docs/b.png">.',
      "`[not a link](nowhere.md)`",
      "```md",
      "[nor this](nowhere.md)",
      "```",
      "[ref]: docs/c.md",
    ].join("\n");
    assertEquals(linkTargets(markdown), [
      "docs/api.md#rest",
      "docs/a.png",
      "docs/c.md",
      "docs/b.png",
    ]);
  });
  await t.step("anchors drop punctuation and number duplicates", () => {
    const anchors = headingAnchors(
      "# Scripts under Deno's sandbox\n## REST\n## REST\n### `mcpServers`",
    );
    assertEquals([...anchors], ["scripts-under-denos-sandbox", "rest", "rest-1", "mcpservers"]);
  });
});
