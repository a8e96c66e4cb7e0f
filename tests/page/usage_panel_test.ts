/**
 * The page's Usage view: the chart's SVG as a fragment (days without calls
 * drawn at 0, a title and a description for screen readers, values escaped),
 * and the whole view in headless Chromium against a real `hob serve` after a
 * chat: totals, one bar per day, the groups.
 */

import { dailySeries, spendChart, usagePanel } from "../../src/page/usage_panel.ts";
import type { UsageReport } from "../../src/app/usage.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

Deno.test("spendChart draws a bar per day with a title and a description", async (t) => {
  await t.step("dailySeries fills the days without calls with 0", () => {
    const row = (key: string, cost_usd: number) => ({
      key,
      cost_usd,
      calls: 1,
      input_tokens: 1,
      output_tokens: 1,
      cached_tokens: 0,
    });
    const series = dailySeries(
      [row("2026-11-24", 0.5), row("2026-11-26", 1.25)],
      "2026-11-23T00:00:00.000Z",
      new Date("2026-11-26T15:00:00Z"),
    );
    assertEquals(series, [
      ["2026-11-23", 0],
      ["2026-11-24", 0.5],
      ["2026-11-25", 0],
      ["2026-11-26", 1.25],
    ]);
  });

  await t.step("the SVG says what it shows", async () => {
    const svg = String(
      await spendChart([["2026-11-25", 0], ["2026-11-26", 1.25], ["2026-11-27", 0.5]]),
    );
    assertStringIncludes(svg, 'role="img" aria-labelledby="usage-chart-title usage-chart-desc"');
    assertStringIncludes(svg, '<title id="usage-chart-title">Model spend per day</title>');
    assertStringIncludes(
      svg,
      "3 day(s) from 2026-11-25 to 2026-11-27: $1.75 in all, most on 2026-11-26 ($1.25).",
    );
    assertEquals(svg.match(/<rect /g)?.length, 3);
    // The highest day reaches the top of the plot; a day without calls has no height.
    assertMatch(svg, /<rect class="bar" [^>]*height="138\.00"[^>]*>\s*<title>2026-11-26: \$1\.25/);
    assertMatch(svg, /<rect class="bar" [^>]*height="0\.00"[^>]*>\s*<title>2026-11-25: \$0\.00/);
    assert(!svg.includes("<script"));
  });
});

Deno.test("usagePanel at $0 says what will appear instead of drawing an empty chart", async (t) => {
  const report = (calls: number): UsageReport => ({
    since: "2026-11-01T00:00:00.000Z",
    by: "model",
    totals: { calls, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 },
    groups: [],
    days: [],
    budgets: [],
  });
  const now = new Date("2026-11-26T15:00:00Z");
  await t.step("no calls: what the chart will show, once hob talks to a model", async () => {
    const page = String(await usagePanel(report(0), now));
    assertStringIncludes(page, "No model calls yet in this period");
    assertStringIncludes(page, "a chart of what each day cost appears here");
    assert(!page.includes("<svg"), "no chart");
  });
  await t.step("calls without a price: why nothing was spent, and how to price them", async () => {
    const page = String(await usagePanel(report(3), now));
    assertStringIncludes(page, "Nothing spent in this period");
    assertStringIncludes(page, "usage.prices");
    assert(!page.includes("<svg"), "no chart");
  });
});

Deno.test("the page's Usage view shows totals, the daily chart and the groups", async () => {
  await using model = startFakeOpenAI({
    fallback: { text: "Hi!", usage: { prompt_tokens: 400, completion_tokens: 100 } },
  });
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `memory: { embedder: none }
usage:
  prices:
    fake-model: { input: 1000, output: 1000 }
  budgets: { daily_usd: 10 }
`,
  ));
  await using hob = await startHob(home.home);
  const chat = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ message: "Hello" }),
  });
  assertEquals(chat.status, 200, await chat.clone().text());
  await chat.body?.cancel();

  await using browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } }))
    .newPage();
  const problems = pageProblems(page);
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.click('a[data-view="usage"]');
  const chart = page.locator("#panel figure.usage-chart svg");
  await chart.waitFor();
  // The last 30 days, one bar each; the chat's reply and its title: 410 + 105 tokens at $1000/M.
  assertEquals(await chart.locator("rect.bar").count(), 30);
  assertEquals(await chart.locator("title").first().textContent(), "Model spend per day");
  assertMatch(
    await page.locator("#panel .stats").textContent() ?? "",
    /\$0\.515\s*spent\s*2\s*model calls/,
  );
  assertMatch(
    await page.locator("#panel .cards").textContent() ?? "",
    /Today\s*\$0\.515 of \$10\.00 \(5 %\)/,
  );
  await page.click('#panel button:has-text("By kind")');
  await page.locator('#panel button[aria-pressed="true"]', { hasText: "By kind" }).waitFor();
  const kinds = await page.locator("#panel table tbody th").allTextContents();
  assertEquals(kinds.sort(), ["chat", "title"]);
  // The view has its own address.
  await page.goto(`${hob.url}/usage`);
  await page.locator("#panel figure.usage-chart svg").waitFor();
  assertEquals(problems, []);
});
