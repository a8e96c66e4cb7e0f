/**
 * The page's Channels section in headless Chromium against a real `hob
 * serve` answering on the Telegram stand-in: the channel's state, the
 * stranger who wrote with the id to allow (their name shown as text, never
 * markup), and the Telegram chat among the conversations.
 */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

Deno.test("the page shows each channel's state, the strangers to allow, and the chats", async () => {
  await using model = startFakeOpenAI({ fallback: { text: "Hi!" } });
  await using telegram = await startFakeTelegram();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `memory: { embedder: none }
channels:
  telegram:
    token: "${telegram.token}"
    api_root: "${telegram.url}"
    allow_from: [4242]
    poll_timeout_s: 1
`,
  ));
  await using hob = await startHob(home.home);
  telegram.push({
    from: { id: 6666, first_name: "<img src=x onerror=alert(1)>" },
    text: "<b>let me in</b>",
  });
  telegram.push({ from: { id: 4242, username: "ada" }, text: "hello" });
  await telegram.until(() => telegram.sentTo(4242).length === 1, "the owner's reply");

  await using browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } }))
    .newPage();
  const problems = pageProblems(page);
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.locator("#conversation-list a", { hasText: "Telegram · @ada" }).waitFor();
  await page.click('a[data-view="channels"]');
  const card = page.locator('#panel li[data-channel="telegram"]');
  await card.waitFor();
  assertMatch(await card.textContent() ?? "", /telegram · @hob_test_bot\s+connected/);
  assertMatch(await card.textContent() ?? "", /1 ignored/);
  const row = page.locator("#panel table tbody tr");
  assertEquals(await row.count(), 1);
  const cells = await row.locator("td").allTextContents();
  assertEquals(cells.slice(0, 4), [
    "telegram",
    "6666",
    "<img src=x onerror=alert(1)>",
    "<b>let me in</b>",
  ]);
  assertEquals(await page.locator("#panel img, #panel table b").count(), 0);
  // The section has its own address.
  await page.goto(`${hob.url}/channels`);
  await page.locator('#panel li[data-channel="telegram"]').waitFor();
  assertEquals(problems, []);
});
