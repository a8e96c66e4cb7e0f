/**
 * The page's look in headless Chromium against a real `hob serve` (issue 33):
 * a reply's Markdown with framed, striped tables that scroll inside the reply
 * on a 390 px phone, code under its language, quotes set apart; each view's
 * title and one line on what it is for, empty states that say what will
 * appear, tools with short paths; the sign-in page's token field; the Usage
 * view at $0 without an empty chart; Memory's All changes brought into view.
 */

import type { Page } from "playwright-core";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import type { FakeReply } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

/** A reply with a table wider than a phone, a quote and a code block. */
const TABLE_REPLY = `Here are the ways to Porto:

| Way      | Time                             | Price                   | Notes                                        |
| -------- | -------------------------------- | ----------------------- | -------------------------------------------- |
| Train    | 2 h 50 min from Santa Apolónia   | €25 to €45 booked early | the Alfa Pendular, with a café car           |
| Bus      | 3 h 30 min from Sete Rios        | €15 to €20              | frequent, and the seats recline              |
| Plane    | 55 min, plus two at the airports | €40 to €120             | only worth it with a connection              |

> Book the train a week ahead: the fares double in the last days.

\`\`\`sh
hob cron add porto "0 9 * * 1" "Check the train fares to Porto"
\`\`\``;

function reply(body: Record<string, unknown>): FakeReply {
  const messages = body.messages as { role: string; content: string }[];
  const asked = String(messages.findLast((m) => m.role === "user")?.content ?? "");
  return { text: asked.includes("Porto") ? TABLE_REPLY : "Noted." };
}

/** The browser's side of what the tests read: written out here, as it runs there. */
interface Win {
  document: { documentElement: { scrollWidth: number } };
  innerHeight: number;
  getComputedStyle(node: unknown): Record<string, string>;
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#composer-input", text);
  await page.press("#composer-input", "Enter");
}

Deno.test("the page's look: Markdown, views, empty states, sign-in, usage at $0, history in view", async (t) => {
  await using fake = startFakeOpenAI({ respond: reply });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = pageProblems(page);

  await t.step("without a session, the token pasted in the field signs in", async () => {
    const response = await page.goto(`${hob.url}/memory`);
    assertEquals(response?.status(), 401);
    const field = page.locator("form input#token[type=password]");
    await field.fill("not-the-token-at-all");
    await field.press("Enter");
    await page.locator(".status-bad", { hasText: "not this hob's" }).waitFor();
    await page.fill("#token", hob.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    // The same view, signed in by the cookie; the token is not left in the address bar.
    await page.locator("#panel h1", { hasText: "Memory" }).waitFor();
    assertEquals(page.url(), `${hob.url}/memory`);
    const cookies = await context.cookies();
    assertEquals(cookies.map((cookie) => [cookie.name, cookie.httpOnly]), [["hob_session", true]]);
  });

  await t.step("a reply's table is framed and striped, its code and quote set apart", async () => {
    await page.click(".sections a[data-view=chat]");
    await send(page, "How do I get to Porto?");
    const reply = page.locator(".msg.assistant").last();
    await reply.locator(".meta:not(:empty)").waitFor();
    const style = (selector: string, property: string) =>
      reply.locator(selector).first().evaluate(
        (node, property) =>
          (globalThis as unknown as Win).getComputedStyle(node)[property as string],
        property,
      );
    assertEquals(await style(".table-wrap", "borderTopStyle"), "solid");
    assertEquals(await style(".table-wrap", "overflowX"), "auto");
    assertEquals(await style("td", "borderBottomStyle"), "solid");
    assertEquals(await style("th", "fontWeight"), "600");
    const rows = reply.locator("tbody tr");
    const [odd, even] = [
      await rows.nth(0).evaluate((node) =>
        (globalThis as unknown as Win).getComputedStyle(node).backgroundColor
      ),
      await rows.nth(1).evaluate((node) =>
        (globalThis as unknown as Win).getComputedStyle(node).backgroundColor
      ),
    ];
    assert(odd !== even, `rows are striped: ${odd} / ${even}`);
    assertEquals(await reply.locator("pre").getAttribute("data-lang"), "sh");
    assertEquals(await style("blockquote", "borderLeftStyle"), "solid");
  });

  await t.step("on a 390 px phone the table scrolls inside the reply, not the page", async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(page.url());
    const wrap = small.locator(".msg.assistant .table-wrap").last();
    await wrap.waitFor();
    const fit = await wrap.evaluate((node) => {
      const box = node as unknown as { scrollWidth: number; clientWidth: number };
      const rect = (node as unknown as { getBoundingClientRect(): { right: number } })
        .getBoundingClientRect();
      return { scroll: box.scrollWidth, client: box.clientWidth, right: rect.right };
    });
    assert(fit.scroll > fit.client, `the table is wider than its frame: ${JSON.stringify(fit)}`);
    assert(fit.right <= 390, `the frame ends at ${fit.right}px`);
    const width = await small.evaluate(() =>
      (globalThis as unknown as Win).document.documentElement.scrollWidth
    );
    assert(width <= 390, `the page is ${width}px wide`);
    await phone.close();
  });

  await t.step(
    "each view has a title and a line on what it is for; empty ones say what will come",
    async () => {
      const lede = async (view: string, title: string) => {
        await page.click(`.sections a[data-view=${view}]`);
        const head = page.locator("#panel .view-head", {
          has: page.locator("h1", { hasText: title }),
        });
        return (await head.locator(".lede").textContent())?.trim() ?? "";
      };
      const views = {
        schedules: "Schedules",
        tasks: "Background tasks",
        tools: "Tools",
        notifications: "Notifications",
        channels: "Channels",
        backups: "Backups",
      };
      for (const [view, title] of Object.entries(views)) {
        assert((await lede(view, title)).length > 20, `${view} says what it is for`);
      }
      assertStringIncludes(await lede("approvals", "Approvals"), "asked");
      const empty = page.locator("#panel .empty-state");
      assertStringIncludes(await empty.textContent() ?? "", "Nothing is waiting for your decision");
      assertStringIncludes(await empty.textContent() ?? "", "approve it once, always, or deny it");
    },
  );

  await t.step(
    "tools are cards with their policy, paths short and whole in the tooltip",
    async () => {
      await page.click(".sections a[data-view=tools]");
      const card = page.locator("#panel li[data-name=read_file]");
      await card.waitFor();
      assertEquals(await card.locator(".policy").textContent(), "allow");
      const reads = card.locator(".perms li", { hasText: "reads" });
      assertEquals(await reads.textContent(), "reads workspace, uploads");
      assertStringIncludes(await reads.getAttribute("title") ?? "", `${home.home}/workspace`);
      assert(!(await page.locator("#panel").innerText()).includes(home.home), "no full path shown");
    },
  );

  await t.step(
    "the Usage view at $0 says what will appear instead of drawing an empty chart",
    async () => {
      await page.click(".sections a[data-view=usage]");
      const empty = page.locator("#panel .empty-state");
      await empty.waitFor();
      // The chat above made calls, but the fake model has no price: nothing was spent.
      assertMatch(await empty.textContent() ?? "", /Nothing spent.*cost nothing.*usage\.prices/s);
      assertEquals(await page.locator("#panel figure.usage-chart, #panel svg").count(), 0);
      assertMatch(await page.locator("#panel .stats").textContent() ?? "", /\$0\.00\s*spent/);
    },
  );

  await t.step("Memory's All changes, opened below the fold, is brought into view", async () => {
    for (const text of ["The spare key is under the blue pot.", "Grace likes jazz."]) {
      const remembered = await hob.fetch("/api/memory/remember", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text }),
      });
      assertEquals(remembered.status, 201);
      await remembered.body?.cancel();
    }
    await page.click(".sections a[data-view=memory]");
    // A search's results first: what a person looks at before asking for the history.
    await page.fill("#memory-query", "key");
    await page.press("#memory-query", "Enter");
    await page.locator("#memory-results li").first().waitFor();
    // The button where a person meets it, scrolling down: at the bottom of the window.
    const button = page.getByRole("button", { name: "All changes" });
    await button.evaluate((node) =>
      (node as unknown as { scrollIntoView(o: unknown): void }).scrollIntoView({ block: "end" })
    );
    await button.click();
    await page.locator("#memory-history h3", { hasText: "All changes" }).waitFor();
    // htmx scrolls once the list has settled: wait until the list's title and its newest change
    // are on the screen, not under it.
    const inView = await page.waitForFunction(
      () => {
        const doc = globalThis as unknown as {
          document: { querySelector(s: string): { getBoundingClientRect(): DOMRect } | null };
          innerHeight: number;
        };
        const boxes = ["#memory-history h3", "#memory-history .versions > li"].map((selector) =>
          doc.document.querySelector(selector)?.getBoundingClientRect()
        );
        return boxes.every((box) => box && box.top >= 0 && box.top + 40 <= doc.innerHeight);
      },
      undefined,
      { timeout: 10_000 },
    ).then(() => true, () => false);
    assert(inView, "All changes opened below the fold");
  });

  await context.close();
  assertEquals(problems.filter((p) => !/status of 401/.test(p)), []);
});
