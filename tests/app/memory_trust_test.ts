/**
 * The owner vouches for text from outside after reading it ("I trust this
 * page"), every way in — REST, the CLI (a real `hob` process on the same
 * home) and the page: the file loses its labels as the owner's version, and
 * from then on its text is the owner's (the memory context shows it, a search
 * hit carries no label). Only the owner may, and only a memory file.
 */

import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { runHob } from "../helpers/hob_process.ts";
import { ActionError } from "../../src/app/errors.ts";
import { untrusted, untrustedSource } from "../../src/core/untrusted.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

/** A source file as hob writes one: front matter, then the body in one label. */
function source(url: string, body: string): string {
  return `---\nsource: ${url}\nformat: html\nfetched_at: 2026-11-29T10:00:00.000Z\ncontent_hash: sha256:00\n---\n\n${
    untrusted(url, body)
  }\n`;
}

Deno.test("memory trust: the owner vouches for a source, through REST, the CLI and the page", async (t) => {
  await using api = await tempApi(YAML);
  const dir = `${api.home.home}/memory/sources`;
  await Deno.mkdir(dir);
  const files = {
    rest: "sources/kettle.md",
    cli: "sources/boiler.md",
    page: "sources/garden.md",
  };
  await Deno.writeTextFile(
    `${dir}/kettle.md`,
    source("https://example.com/kettle", "# Kettle\n\nDescale the kettle monthly."),
  );
  await Deno.writeTextFile(
    `${dir}/boiler.md`,
    source("https://example.com/boiler", "# Boiler\n\nKeep the boiler at 1.5 bar."),
  );
  await Deno.writeTextFile(
    `${dir}/garden.md`,
    source("https://example.com/garden", "# Garden\n\nPrune the roses in March."),
  );
  await api.runtime.memory.index.sync(undefined, true);

  await t.step("before: the sources are outside text, left out of the memory context", async () => {
    const context = await api.runtime.memory.context("descale kettle");
    assert(!context.includes("Descale"), context);
  });

  await t.step("REST: the file loses its label, as the owner's version", async () => {
    const response = await api.call("/api/memory/trust", {
      method: "POST",
      json: { path: files.rest },
    });
    assertEquals(response.status, 200);
    const body = await response.json();
    assertEquals([body.path, body.changed], [files.rest, true]);
    assertEquals([body.version.author, body.version.via], ["owner", "api"]);
    const text = await Deno.readTextFile(`${dir}/kettle.md`);
    assertEquals(untrustedSource(text), null);
    assert(text.includes("source: https://example.com/kettle"), "the front matter stays");
    assert(text.endsWith("# Kettle\n\nDescale the kettle monthly.\n"), text);
  });

  await t.step("from then on it is the owner's words: shown in the memory context", async () => {
    const context = await api.runtime.memory.context("descale kettle");
    assert(context.includes("Descale the kettle monthly."), context);
    assertEquals(untrustedSource(context), null);
    const { hits } = await api.runtime.app.memory.search({ q: "descale kettle", mode: "keyword" });
    assertEquals(untrustedSource(hits[0].snippet), null);
  });

  await t.step("again: nothing to vouch for, nothing written", async () => {
    const response = await api.call("/api/memory/trust", {
      method: "POST",
      json: { path: files.rest },
    });
    assertEquals((await response.json()).changed, false);
  });

  await t.step(
    "REST refuses a blank path, a path outside memory or missing, an unknown field",
    async () => {
      const cases: [unknown, number, string][] = [
        [{ path: "  " }, 400, "invalid_request"],
        [{ path: "../token" }, 400, "invalid_path"],
        // As a read of a missing file says it (the containment check finds nothing there).
        [{ path: "sources/none.md" }, 400, "invalid_path"],
        [{ path: "x.md", extra: 1 }, 400, "invalid_request"],
      ];
      for (const [json, status, code] of cases) {
        const response = await api.call("/api/memory/trust", { method: "POST", json });
        assertEquals(response.status, status, JSON.stringify(json));
        assertEquals((await response.json()).error.code, code);
      }
    },
  );

  await t.step("the CLI: hob memory trust", async () => {
    const trusted = await runHob(["memory", "trust", files.cli, "--home", api.home.home]);
    assertEquals(trusted.code, 0, trusted.stderr);
    assertMatch(trusted.stdout, /^Trusted memory\/sources\/boiler\.md: its text is yours/);
    assertEquals(untrustedSource(await Deno.readTextFile(`${dir}/boiler.md`)), null);
    const again = await runHob(["memory", "trust", files.cli, "--home", api.home.home]);
    assertEquals(again.stdout, "memory/sources/boiler.md holds no text from outside.\n");
    const missing = await runHob(["memory", "trust", "--home", api.home.home]);
    assertEquals(missing.code, 2);
  });

  await t.step("the page: the source shown with its origin, and the button", async () => {
    const view = await api.call(
      `/ui/memory/file?name=${encodeURIComponent(`memory/${files.page}`)}`,
    );
    assertEquals(view.status, 200);
    const html = await view.text();
    assert(html.includes("I trust this"), html);
    assert(html.includes("from https://example.com/garden"), html);
    assert(!html.includes("&lt;untrusted source"), "the label itself is not shown");
    // The button sends back the hash of the text it showed, as the page's htmx would.
    const read = /&quot;read&quot;:&quot;([0-9a-f]{64})&quot;/.exec(html)?.[1] ??
      /"read":"([0-9a-f]{64})"/.exec(html)?.[1];
    assert(read, "the button carries the hash of what was shown");
    const trusted = await api.call("/ui/memory/trust", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
      body: `path=${encodeURIComponent(`memory/${files.page}`)}&read=${read}`,
    });
    assertEquals(trusted.status, 200);
    const after = await trusted.text();
    assert(after.includes("You vouched for memory/sources/garden.md"), after);
    assert(!after.includes("I trust this"), "no button once trusted");
    assertEquals(untrustedSource(await Deno.readTextFile(`${dir}/garden.md`)), null);
  });

  await t.step("vouching is bound to the text read: a file changed since is refused", async () => {
    await Deno.writeTextFile(`${dir}/late.md`, source("https://late.example", "First."));
    const view = await (await api.call(`/ui/memory/file?name=memory%2Fsources%2Flate.md`)).text();
    const read = /([0-9a-f]{64})/.exec(view)![1];
    // A heartbeat or a flush appends between the owner's reading and their click.
    await Deno.writeTextFile(
      `${dir}/late.md`,
      `${await Deno.readTextFile(`${dir}/late.md`)}${untrusted("later", "Unseen.")}\n`,
    );
    const page = await (await api.call("/ui/memory/trust", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
      body: `path=memory%2Fsources%2Flate.md&read=${read}`,
    })).text();
    assert(page.includes("changed since you read it"), page);
    const rest = await api.call("/api/memory/trust", {
      method: "POST",
      json: { path: "sources/late.md", read },
    });
    assertEquals(rest.status, 409);
    assertEquals((await rest.json()).error.code, "conflict");
    assert(untrustedSource(await Deno.readTextFile(`${dir}/late.md`)) !== null, "nothing vouched");
  });

  await t.step("the page offers no button for a file it shows cut", async () => {
    const long = Array.from({ length: 700 }, (_, i) => `Line ${i}.`).join("\n");
    await Deno.writeTextFile(`${dir}/long.md`, source("https://long.example", long));
    const view = await (await api.call(`/ui/memory/file?name=memory%2Fsources%2Flong.md`)).text();
    assert(view.includes("too long to read") && !view.includes("I trust this"), view);
  });

  await t.step("only the owner vouches: not a turn, not a tainted write", async () => {
    await Deno.writeTextFile(`${dir}/x.md`, source("https://x.example", "x"));
    for (
      const by of [{ author: "agent", via: "tool" }, {
        author: "owner",
        via: "api",
        taint: "fetch_url: https://x.example",
      }] as const
    ) {
      const error = await assertRejects(() =>
        api.runtime.app.memory.trust({ path: "sources/x.md" }, by)
      );
      assert(error instanceof ActionError && /^Only the owner/.test(error.message), `${error}`);
    }
    assert(untrustedSource(await Deno.readTextFile(`${dir}/x.md`)) !== null);
  });

  await t.step("the history shows each vouching as the owner's write", async () => {
    const versions = await api.runtime.app.memory.versions({});
    const vouched = versions.filter((v) =>
      v.path.startsWith("memory/sources/") && v.via !== "on disk"
    );
    assertEquals(vouched.map((v) => [v.path, v.author, v.via]).sort(), [
      ["memory/sources/boiler.md", "owner", "cli"],
      ["memory/sources/garden.md", "owner", "page"],
      ["memory/sources/kettle.md", "owner", "api"],
    ]);
  });
});
