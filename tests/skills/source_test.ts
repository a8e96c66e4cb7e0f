/**
 * Reading a skill from an archive or a URL, with archives built here (zip
 * with zip.js, tar.gz with modern-tar): the skill at the root or in a folder,
 * several refused by name, paths that climb out, links, and a zip bomb
 * stopped at the limit; URLs served by a real HTTP server on 127.0.0.1 and
 * fetched through hob's checked web access — an archive, redirects, a 404,
 * a GitHub repository's archive, a private address refused by the default
 * policy; and a zip added through the app, pending, in a real home.
 */

import { join } from "node:path";
import { packTar, type TarEntry } from "modern-tar";
import { Uint8ArrayReader, Uint8ArrayWriter, ZipWriter } from "@zip.js/zip.js";
import { ActionError } from "../../src/app/errors.ts";
import { skillFetch } from "../../src/app/skill_web.ts";
import { MAX_BYTES } from "../../src/skills/folder.ts";
import {
  githubArchive,
  readSkillSource,
  SkillSourceError,
  SOURCE_FORMS,
  type SourceOptions,
} from "../../src/skills/source.ts";
import { skillDir } from "../../src/skills/archive.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertThrows,
} from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";

const text = new TextEncoder();

function skillMd(name: string): string {
  return `---\nname: ${name}\ndescription: Fills ${name} forms.\n---\n# ${name}\n\nRun scripts/fill.py.\n`;
}

/** One entry of an archive built here. */
interface Item {
  name: string;
  text?: string;
  bytes?: Uint8Array;
  /** A symbolic link to this target. */
  link?: string;
  /** Raw deflate data copied as is, with a size that lies. */
  deflated?: Uint8Array;
}

async function zipOf(items: Item[]): Promise<Uint8Array<ArrayBuffer>> {
  const writer = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false });
  for (const item of items) {
    if (item.deflated) {
      await writer.add(item.name, new Uint8ArrayReader(item.deflated), {
        passThrough: true,
        uncompressedSize: 10,
        crc32: 0,
        compressionMethod: 8,
      } as Record<string, unknown>);
    } else if (item.link) {
      await writer.add(item.name, new Uint8ArrayReader(text.encode(item.link)), {
        unixMode: 0o120777,
      });
    } else {
      await writer.add(
        item.name,
        new Uint8ArrayReader(item.bytes ?? text.encode(item.text ?? "")),
      );
    }
  }
  return await writer.close();
}

async function tgzOf(items: Item[]): Promise<Uint8Array<ArrayBuffer>> {
  const entries: TarEntry[] = items.map((item) =>
    item.link ? { header: { name: item.name, size: 0, type: "symlink", linkname: item.link } } : {
      header: { name: item.name, size: (item.bytes ?? text.encode(item.text ?? "")).length },
      body: item.bytes ?? item.text ?? "",
    }
  );
  const tar = await packTar(entries);
  const gzipped = new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gzipped).arrayBuffer());
}

/**
 * A raw deflate stream of `length` zero bytes (rounded down to 258s) and then
 * a corrupt block: a literal, one fixed-Huffman back-reference (258 bytes,
 * distance 1) per 13 bits, so a gigabyte takes under 7 MB. A reader that
 * unpacks it all finds the corruption at its end; one that stops at the
 * limit never gets there.
 */
function zeroBomb(length: number): Uint8Array<ArrayBuffer> {
  const repeats = Math.floor((length - 1) / 258);
  const out = new Uint8Array(Math.ceil((3 + 8 + 13 * repeats + 7 + 3) / 8));
  let bit = 0;
  const put = (value: number, count: number) => {
    // Written most significant bit first, into bytes filled from their low bit.
    for (let i = count - 1; i >= 0; i--, bit++) {
      if ((value >> i) & 1) out[bit >> 3] |= 1 << (bit & 7);
    }
  };
  put(0b010, 3); // BFINAL=0, then BTYPE=01 (fixed Huffman) low bit first
  put(0x30, 8); // the literal 0
  for (let i = 0; i < repeats; i++) {
    put(0xc5, 8); // length code 285: 258 bytes
    put(0, 5); // distance code 0: one back
  }
  put(0, 7); // end of block
  put(0b111, 3); // BFINAL=1, BTYPE=11: reserved, an error
  return out;
}

/** How many bytes a raw deflate stream gives before it ends or fails, and whether it failed. */
async function inflated(deflated: Uint8Array<ArrayBuffer>): Promise<[number, boolean]> {
  // A byte at a time, so what comes before the corruption comes out before the error.
  const bytes = ReadableStream.from(deflated.values().map((byte) => new Uint8Array([byte])));
  const reader = bytes.pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  let length = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return [length, false];
      length += value.length;
    }
  } catch {
    return [length, true];
  }
}

async function writeTemp(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await Deno.writeFile(path, bytes);
  return path;
}

function paths(skill: { files: { path: string }[] }): string[] {
  return skill.files.map((file) => file.path);
}

async function refused(read: () => Promise<unknown>): Promise<string> {
  const error = await assertRejects(read);
  assert(error instanceof SkillSourceError, `${error}`);
  return error.message;
}

const PDF: Item[] = [
  { name: "SKILL.md", text: skillMd("pdf") },
  { name: "scripts/fill.py", text: "print('fill')\n" },
  { name: ".DS_Store", text: "junk" },
  { name: "__MACOSX/._SKILL.md", text: "junk" },
  { name: ".git/config", text: "[core]" },
];

function inFolder(folder: string, items: Item[]): Item[] {
  return items.map((item) => ({ ...item, name: `${folder}/${item.name}` }));
}

Deno.test("a skill is read from a zip or a tar.gz, at its root or in its one folder", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (
      const [name, bytes] of [
        ["pdf.skill", await zipOf(PDF)],
        ["pdf.zip", await zipOf(PDF)],
        ["pdf.tar.gz", await tgzOf(PDF)],
        ["bundle.zip", await zipOf(inFolder("pdf", PDF))],
        ["bundle.tgz", await tgzOf([{ name: "./", text: "" }, ...inFolder("./pdf", PDF)])],
      ] as const
    ) {
      const path = await writeTemp(dir, name, bytes);
      const skill = await readSkillSource(name, dir);
      assertEquals(skill.folder, "pdf", name);
      assertEquals(skill.source, path);
      assertEquals(paths(skill), ["SKILL.md", "scripts/fill.py"], name);
      assertEquals(new TextDecoder().decode(skill.files[0].bytes), skillMd("pdf"));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an archive is refused, naming what is wrong, when it is not one skill or climbs out", async (t) => {
  const dir = await Deno.makeTempDir();
  const read = (name: string) => readSkillSource(name, dir);
  try {
    await t.step("several skills are named", async () => {
      const several = [...inFolder("pdf", PDF), ...inFolder("docx", PDF), {
        name: "README.md",
        text: "collection",
      }];
      await writeTemp(dir, "many.zip", await zipOf(several));
      await writeTemp(dir, "many.tgz", await tgzOf(several));
      for (const name of ["many.zip", "many.tgz"]) {
        assertEquals(
          await refused(() => read(name)),
          `${name} holds 2 skills (docx, pdf); add one at a time`,
        );
      }
    });
    await t.step("no SKILL.md", async () => {
      await writeTemp(dir, "none.zip", await zipOf([{ name: "README.md", text: "hi" }]));
      assertEquals(await refused(() => read("none.zip")), "none.zip holds no SKILL.md");
    });
    await t.step("a path climbing out, or absolute", async () => {
      for (const bad of ["pdf/../../evil.sh", "/etc/cron.d/evil"]) {
        const items = [...inFolder("pdf", PDF), { name: bad, text: "evil" }];
        await writeTemp(dir, "climb.zip", await zipOf(items));
        await writeTemp(dir, "climb.tgz", await tgzOf(items));
        for (const name of ["climb.zip", "climb.tgz"]) {
          const message = await refused(() => read(name));
          assertEquals(message, `${name} holds '${bad}', a path outside the archive`);
        }
      }
    });
    await t.step("a link in the skill", async () => {
      const items = [...inFolder("pdf", PDF), { name: "pdf/token", link: "/root/.hob/token" }];
      await writeTemp(dir, "link.zip", await zipOf(items));
      await writeTemp(dir, "link.tgz", await tgzOf(items));
      for (const name of ["link.zip", "link.tgz"]) {
        assertEquals(
          await refused(() => read(name)),
          `${name}: 'pdf/token' is a link, which a skill may not hold`,
        );
      }
    });
    await t.step("a file that is no archive", async () => {
      await Deno.writeTextFile(join(dir, "fake.zip"), "not a zip at all");
      assertEquals(
        await refused(() => read("fake.zip")),
        "fake.zip is not a zip or tar.gz archive",
      );
      await Deno.writeTextFile(join(dir, "notes.txt"), "text");
      assertMatch(await refused(() => read("notes.txt")), /^notes\.txt is not a folder holding/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a zip bomb stops at the limit: an entry that says 10 bytes unpacks to 1 GB, never read to its end", async () => {
  // The bomb is real: a small one unpacks to what it says, then fails at its end.
  const [length, failed] = await inflated(zeroBomb(1 + 258 * 4000));
  // All but the last reference, which shares the failing byte.
  assert(failed && length >= 1 + 258 * 3999 && length <= 1 + 258 * 4000, `${length} ${failed}`);

  const dir = await Deno.makeTempDir();
  try {
    const bomb = zeroBomb(1024 ** 3);
    assert(bomb.length < MAX_BYTES / 2, `${bomb.length}`);
    await writeTemp(
      dir,
      "bomb.zip",
      await zipOf([...inFolder("pdf", PDF), { name: "pdf/assets/zeros.bin", deflated: bomb }]),
    );
    assertEquals(
      await refused(() => readSkillSource("bomb.zip", dir)),
      "bomb.zip: 'pdf/assets/zeros.bin' unpacks past the 20 MB a skill may hold; reading stopped there",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the skill's folder among an archive's files", () => {
  const options = { source: "a.zip", rootName: "a" };
  assertEquals(skillDir(["SKILL.md", "pdf/SKILL.md"], options), "");
  assertEquals(skillDir(["x/pdf/SKILL.md", "x/pdf/ref/SKILL.md", "x/README.md"], options), "x/pdf");
  assertEquals(
    skillDir(["skills/pdf/SKILL.md", "skills/docx/SKILL.md"], { ...options, inside: "skills/pdf" }),
    "skills/pdf",
  );
  assertThrows(
    () => skillDir(["skills/pdf/SKILL.md"], { ...options, inside: "nope" }),
    SkillSourceError,
    "a.zip has no folder nope",
  );
});

Deno.test("a GitHub repository URL is the archive of its ref, and the path inside", () => {
  const at = (url: string, host?: string) => {
    const found = githubArchive(new URL(url), host);
    return found && { archive: found.archive.href, inside: found.inside, repo: found.repo };
  };
  assertEquals(at("https://github.com/anthropics/skills"), {
    archive: "https://github.com/anthropics/skills/archive/HEAD.tar.gz",
    inside: "",
    repo: "skills",
  });
  assertEquals(
    at("https://github.com/anthropics/skills.git"),
    at("https://github.com/anthropics/skills"),
  );
  assertEquals(at("https://github.com/anthropics/skills/tree/main/skills/pdf"), {
    archive: "https://github.com/anthropics/skills/archive/main.tar.gz",
    inside: "skills/pdf",
    repo: "skills",
  });
  assertEquals(at("https://github.com/o/r/blob/v1.2/tools/pdf/SKILL.md")?.inside, "tools/pdf");
  assertEquals(at("https://github.com/o/r/tree/0a1b2c"), {
    archive: "https://github.com/o/r/archive/0a1b2c.tar.gz",
    inside: "",
    repo: "r",
  });
  assertEquals(at("https://github.com/o/r/tree/main/my%20skills/pdf")?.inside, "my skills/pdf");
  assertEquals(at("https://github.com/o/r/tree/main/%E0%A4%A")?.inside, "%E0%A4%A");
  assertEquals(at("https://github.com/o/r/releases"), null);
  assertEquals(at("https://gitlab.com/o/r"), null);
  assertEquals(
    at("http://127.0.0.1:8080/o/r/tree/main/x", "127.0.0.1")?.archive,
    "http://127.0.0.1:8080/o/r/archive/main.tar.gz",
  );
});

Deno.test("a git URL hob does not read is refused, saying which forms it reads", async () => {
  for (
    const url of [
      "git@gitlab.com:o/skills.git",
      "https://gitlab.com/o/skills.git",
      "ssh://git@github.com/o/skills.git",
    ]
  ) {
    const message = await refused(() => readSkillSource(url, "/", { fetch: skillFetch(PUBLIC) }));
    assertMatch(
      message,
      /is a git repository hob cannot fetch; hob reads a folder holding SKILL\.md, .*GitHub repository URL/,
    );
    assert(message.startsWith(url), message);
  }
  assertEquals(
    await refused(() => readSkillSource("ftp://example.com/pdf.zip", "/", {})),
    `ftp://example.com/pdf.zip: hob fetches skills over https; it reads ${SOURCE_FORMS}`,
  );
});

const PUBLIC = { allow_private: false, allow_hosts: [] };

/** A web server on 127.0.0.1 serving archives, redirects, a 404 and a GitHub-shaped repository. */
async function skillServer() {
  const pdfZip = await zipOf(PDF);
  const repo = await tgzOf([
    ...inFolder("skills-main/skills/pdf", PDF),
    ...inFolder("skills-main/skills/docx", PDF.slice(0, 2)).map((item) =>
      item.name.endsWith("SKILL.md") ? { ...item, text: skillMd("docx") } : item
    ),
    { name: "skills-main/README.md", text: "A collection" },
    { name: "skills-main/latest", link: "skills/pdf" },
  ]);
  const single = await tgzOf(inFolder("pdf-HEAD", PDF));
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    asked.push(pathname);
    const zip = { headers: { "content-type": "application/zip" } };
    const tgz = { headers: { "content-type": "application/gzip" } };
    const moved = (to: string) => new Response(null, { status: 302, headers: { location: to } });
    switch (pathname) {
      case "/files/pdf.skill":
        return new Response(pdfZip, zip);
      case "/files/moved":
        return moved("/files/pdf.skill");
      case "/files/page":
        return new Response("<html>hi</html>", { headers: { "content-type": "text/html" } });
      case "/o/skills/archive/main.tar.gz":
        return moved("/codeload/o/skills/tar.gz/main");
      case "/codeload/o/skills/tar.gz/main":
        return new Response(repo, tgz);
      case "/o/pdf/archive/HEAD.tar.gz":
        return new Response(single, tgz);
      default:
        return new Response("Not Found", { status: 404 });
    }
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const github = `http://localhost:${server.addr.port}`;
  const options: SourceOptions = {
    fetch: skillFetch({ allow_private: false, allow_hosts: ["127.0.0.1", "localhost"] }),
    // The fake GitHub is the same server by another name.
    githubHost: "localhost",
  };
  return {
    base,
    github,
    asked,
    read: (url: string, with_: SourceOptions = options) => readSkillSource(url, "/", with_),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("a skill is fetched from a URL through hob's checked web access", async (t) => {
  await using web = await skillServer();
  await t.step("an archive, and one behind a redirect, recorded as the URL given", async () => {
    for (const url of [`${web.base}/files/pdf.skill`, `${web.base}/files/moved`]) {
      const skill = await web.read(url);
      assertEquals(skill.source, url);
      assertEquals(skill.folder, "pdf");
      assertEquals(paths(skill), ["SKILL.md", "scripts/fill.py"]);
    }
  });
  await t.step("a GitHub folder: the repository's archive, the path inside", async () => {
    const url = `${web.github}/o/skills/tree/main/skills/pdf`;
    const skill = await web.read(url);
    assertEquals([skill.folder, skill.source, paths(skill)], [
      "pdf",
      url,
      ["SKILL.md", "scripts/fill.py"],
    ]);
    assert(web.asked.includes("/codeload/o/skills/tar.gz/main"), web.asked.join(" "));
  });
  await t.step("a GitHub repository of several skills names them", async () => {
    const message = await refused(() => web.read(`${web.github}/o/skills/tree/main/skills`));
    assertEquals(
      message,
      `${web.github}/o/skills/tree/main/skills (in skills) holds 2 skills (skills/docx, skills/pdf); add one at a time`,
    );
  });
  await t.step("a GitHub repository that is one skill, at HEAD", async () => {
    const skill = await web.read(`${web.github}/o/pdf.git`);
    assertEquals([skill.folder, paths(skill)], ["pdf", ["SKILL.md", "scripts/fill.py"]]);
  });
  await t.step("a 404 and a page that is no archive", async () => {
    assertEquals(
      await refused(() => web.read(`${web.base}/files/gone.zip`)),
      `${web.base}/files/gone.zip answered 404: there is nothing there (check the address and the ref)`,
    );
    assertMatch(
      await refused(() => web.read(`${web.github}/o/nope/tree/v9/x`)),
      /\(its archive http:\/\/localhost:\d+\/o\/nope\/archive\/v9\.tar\.gz\) answered 404/,
    );
    assertMatch(
      await refused(() => web.read(`${web.base}/files/page`)),
      /files\/page is not an archive \(it answered text\/html\); hob reads a folder/,
    );
  });
  await t.step("a private address is refused under the default policy", async () => {
    const port = new URL(web.base).port;
    const fetched = web.asked.length;
    const strict = { fetch: skillFetch(PUBLIC) };
    assertMatch(
      await refused(() => web.read(`https://127.0.0.1:${port}/files/pdf.skill`, strict)),
      /^refuses https:\/\/127\.0\.0\.1:\d+\/files\/pdf\.skill: 127\.0\.0\.1 is a loopback address/,
    );
    assertMatch(
      await refused(() => web.read(`${web.base}/files/pdf.skill`, strict)),
      /^refuses http:\/\/127\.0\.0\.1:\d+\/files\/pdf\.skill: a skill is fetched over https/,
    );
    assertEquals(web.asked.length, fetched, "nothing reached the server");
  });
});

Deno.test("a redirect to an address the policy refuses is not followed", async () => {
  await using web = await skillServer();
  const port = new URL(web.base).port;
  await using other = {
    server: Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
      new Response(null, {
        status: 302,
        headers: { location: `http://[::1]:${port}/files/pdf.skill` },
      })),
    async [Symbol.asyncDispose]() {
      await this.server.shutdown();
    },
  };
  const message = await refused(() => web.read(`http://127.0.0.1:${other.server.addr.port}/x`));
  assertMatch(
    message,
    /^refuses http:\/\/\[::1\]:\d+\/files\/pdf\.skill: ::1 is a loopback address/,
  );
  assertEquals(web.asked, []);
});

Deno.test("app.skills.add installs a zip pending, and writes nothing for a refused one", async () => {
  await using env = await tempRuntime(
    "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n",
  );
  const { skills } = env.runtime.app;
  const dir = await Deno.makeTempDir();
  try {
    const zip = await writeTemp(dir, "pdf.skill", await zipOf(PDF));
    const added = await skills.add({ source: zip }, { by: "cli" });
    assertEquals([added.name, added.state, added.source, added.installed_by], [
      "pdf",
      "pending",
      zip,
      "cli",
    ]);
    assertEquals(
      await Deno.readTextFile(join(env.home.home, "skills", "pdf", "scripts", "fill.py")),
      "print('fill')\n",
    );

    const evil = await writeTemp(
      dir,
      "docx.zip",
      await zipOf([...inFolder("docx", PDF), { name: "docx/../../x", text: "x" }]),
    );
    const error = await assertRejects(() => skills.add({ source: evil }, { by: "cli" }));
    assert(error instanceof ActionError, `${error}`);
    assertEquals([error.code, error.field], ["invalid", "source"]);
    assertEquals(
      error.message,
      `Cannot add ${evil}: ${evil} holds 'docx/../../x', a path outside the archive`,
    );
    const names = [];
    for await (const entry of Deno.readDir(join(env.home.home, "skills"))) names.push(entry.name);
    assert(!names.includes("docx"), names.join(" "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
