/**
 * docs/configuration.md's key tables are made from the config schema by
 * scripts/config_reference.ts; these tests fail when the page and the schema
 * part ways, when a key has no description, or when a shown default is not the
 * value hob takes from an empty hob.yaml.
 */

import YAML from "yaml";
import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import {
  BEGIN_MARK,
  CONFIG_DOC,
  configKeyRows,
  configReference,
  END_MARK,
  formatMarkdown,
  generatedPart,
  replaceGenerated,
} from "../../scripts/config_reference.ts";
import { configSchema } from "../../src/config/schema.ts";

Deno.test("configReference is what docs/configuration.md holds between its markers", async () => {
  const shown = generatedPart(await Deno.readTextFile(CONFIG_DOC));
  assert(shown !== undefined, "docs/configuration.md lost its generated-reference markers");
  assert(
    shown === await formatMarkdown(configReference()),
    "docs/configuration.md differs from the schema: run `deno task docs:config --write`",
  );
});

Deno.test("configKeyRows describes every key of hob.yaml", () => {
  const rows = configKeyRows();
  assert(rows.length > 50, `only ${rows.length} keys found: has the schema walk broken?`);
  const undescribed = rows.filter((row) => row.description === "").map((row) => row.key);
  assertEquals(undescribed, [], "give these keys a .describe(…) in src/config/schema.ts");
});

Deno.test("configKeyRows shows each default as the value hob takes when the key is left out", async (t) => {
  // An empty file, but for the keys `email`, the channels and speech require, so their defaults show too.
  const effective = configSchema.parse({
    email: { smtp: { host: "mail.example.org" }, from: "me@example.org" },
    channels: {
      telegram: { token: "123456:ABCDEFGHIJKLMNOPQRSTUVWX" },
      email: { address: "hob@example.org", imap: { host: "imap" }, smtp: { host: "smtp" } },
      matrix: { homeserver: "https://m.example.org", user_id: "@hob:x", access_token: "t" },
    },
    speech: { transcribe: { provider: "openai" }, speak: { provider: "openai" } },
  }) as Record<string, unknown>;
  const rows = configKeyRows();
  for (const row of rows.filter((row) => row.default.startsWith("`"))) {
    // Entries of maps have no value in an empty file; their defaults are checked by parsing one.
    if (row.key.includes("<name>")) continue;
    await t.step(row.key, () => {
      const value = row.key.split(".").reduce<unknown>(
        (node, part) => (node as Record<string, unknown>)[part],
        effective,
      );
      assertEquals(YAML.parse(row.default.slice(1, -1)), value);
    });
  }
  await t.step("keys without a value say so", () => {
    const byKey = new Map(rows.map((row) => [row.key, row]));
    assertEquals(byKey.get("providers.<name>.api_key")?.default, "unset");
    assertEquals(byKey.get("mcpServers.<name>.command")?.default, "required");
    assertEquals(byKey.get("tools.taint")?.default, "");
    assertEquals(byKey.get("mcpServers.<name>.timeout_s")?.default, "`30`");
  });
  await t.step("what a key accepts comes from its checks", () => {
    const byKey = new Map(rows.map((row) => [row.key, row]));
    assertEquals(byKey.get("server.port")?.accepts, "integer 0–65535");
    assertEquals(byKey.get("tools.shell.policy")?.accepts, "`deny`, `allowlist` or `ask`");
    assertEquals(byKey.get("tools.user_tools.net")?.accepts, "`false` or list of strings");
  });
});

Deno.test("replaceGenerated keeps the hand-written text and refuses a doc without markers", () => {
  const doc = configReferenceDoc("old table");
  const replaced = replaceGenerated(doc, "new table");
  assertEquals(generatedPart(replaced), "new table");
  assert(replaced.startsWith("# Configuration\n\nBefore.\n") && replaced.endsWith("After.\n"));
  assertThrows(() => replaceGenerated("# Configuration\n", "new table"), Error, "markers");
});

function configReferenceDoc(generated: string): string {
  return `# Configuration\n\nBefore.\n\n${BEGIN_MARK}\n\n${generated}\n\n${END_MARK}\n\nAfter.\n`;
}
