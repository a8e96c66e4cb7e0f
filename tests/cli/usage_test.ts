/** `hob usage` run as a subprocess: the calls a `hob ask` made, as text and JSON; bad flags refused. */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";

Deno.test("hob usage reports the calls a chat made, by kind, as text and JSON", async () => {
  await using fake = startFakeOpenAI({
    fallback: { text: "Hi!", usage: { prompt_tokens: 1200, completion_tokens: 30 } },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    `usage:
  prices:
    fake-model: { input: 1000, output: 2000 }
  budgets: { daily_usd: 100 }
`,
  ));
  const asked = await runHob(["ask", "Hello", "--home", home.home]);
  assertEquals(asked.code, 0, asked.stderr);

  const json = await runHob([
    "usage",
    "--json",
    "--by",
    "kind",
    "--since",
    "7d",
    "--home",
    home.home,
  ]);
  assertEquals(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  const reported = fake.reported.reduce((n, u) => n + u.prompt_tokens, 0);
  assertEquals(report.totals.input_tokens, reported);
  assertEquals(report.groups.map((g: { key: string }) => g.key).sort(), ["chat", "title"]);
  assertEquals(report.budgets[0].period, "daily");

  const text = await runHob(["usage", "--by", "kind", "--home", home.home]);
  assertEquals(text.code, 0, text.stderr);
  // 1200 + 10 prompt tokens at $1000 per million, 30 + 5 output tokens at $2000.
  assertMatch(
    text.stdout,
    /^Since \d{4}-\d\d-\d\d: 2 call\(s\), 1,210 in \(0 cached\), 35 out, \$1\.28\n/,
  );
  assertMatch(text.stdout, /\n {2}chat +1 call\(s\) +1,200 in +30 out +\$1\.26\n/);
  assertStringIncludes(text.stdout, "daily budget: $1.28 of $100.00 spent");
});

Deno.test("hob usage refuses a bad --since or --by, naming the flag", async () => {
  await using home = await tempHome("");
  const since = await runHob(["usage", "--since", "last week", "--home", home.home]);
  assertEquals(since.code, 2);
  assertMatch(since.stderr, /hob usage: --since: expected a date/);
  const by = await runHob(["usage", "--by", "colour", "--home", home.home]);
  assertEquals(by.code, 2);
  assertMatch(by.stderr, /hob usage: --by: /);
});
