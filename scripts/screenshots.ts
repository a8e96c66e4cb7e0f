/**
 * `deno task screenshots`: the pictures of the page, taken in headless
 * Chromium from a real `hob serve` talking to the fake model the tests use.
 * Writes docs/screenshot-light.png and -dark.png (the README's), and the
 * phone layout at 390×844 (docs/page.md's): docs/screenshot-phone-chat.png,
 * -phone-menu.png and -phone-tools.png; and docs/screenshot-voice.png, the
 * microphone recording (Chromium's fake one) with voice mode on.
 */

import type { Browser } from "playwright-core";

import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { launchBrowser } from "../tests/helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { startHob } from "../tests/helpers/hob_process.ts";

const ANSWER = `Here is a plan for **Saturday**:

1. Farmers' market at 9 — it closes at noon.
2. Bike the river loop (about 25 km).
3. Dinner with Grace at 19:30.

\`\`\`sh
hob cron add saturday "0 8 * * 6" "Remind me of the market"
\`\`\``;

await using fake = startFakeOpenAI({
  models: ["llama3.2", "qwen2.5-coder"],
  respond(body) {
    const messages = body.messages as { role: string; content: string }[];
    const last = messages.at(-1)!;
    if (last.role === "tool") return { text: ANSWER };
    return { tool_calls: [{ name: "get_time", arguments: { timezone: "Europe/Lisbon" } }] };
  },
});
// The fake stands in for speech to text too: the microphone is on, though nothing is transcribed.
await using home = await tempHome(
  fakeProviderYaml(
    fake.url,
    "memory: { embedder: none }\nspeech: { transcribe: { provider: fake } }",
  ),
);
await using hob = await startHob(home.home);
const wav = `${home.home}/voice.wav`;
await new Deno.Command("espeak-ng", { args: ["-w", wav, "What is on for Saturday?"] }).output();
await using browser = await launchBrowser([
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  `--use-file-for-fake-audio-capture=${wav}`,
]);

for (const scheme of ["light", "dark"] as const) {
  const context = await browser.newContext({
    colorScheme: scheme,
    viewport: { width: 1180, height: 720 },
  });
  const page = await context.newPage();
  await page.goto(`${hob.url}/?token=${hob.token}`);
  if (scheme === "light") {
    for (const title of ["Groceries for the week", "Fix the bike's brakes"]) {
      await hob.fetch("/api/conversations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
    }
    await page.fill("#composer-input", "What could I do this Saturday in Lisbon?");
    await page.press("#composer-input", "Enter");
    await page.waitForSelector(".msg.assistant .meta:not(:empty)");
  } else {
    await page.click("#conversation-list a >> text=Saturday");
    await page.waitForSelector(".msg.assistant .meta:not(:empty)");
  }
  await page.locator("details.tool summary").first().click();
  await page.waitForTimeout(300);
  const path = new URL(`../docs/screenshot-${scheme}.png`, import.meta.url).pathname;
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
  await context.close();
}
await phoneShots(browser, hob);
await voiceShot(browser, hob);
Deno.exit(0);

/** The microphone recording, with voice mode on, under the Saturday conversation. */
async function voiceShot(browser: Browser, hob: { url: string; token: string }): Promise<void> {
  const context = await browser.newContext({
    colorScheme: "light",
    viewport: { width: 1180, height: 720 },
  });
  const page = await context.newPage();
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.click("#conversation-list a >> text=Saturday");
  await page.waitForSelector(".msg.assistant .meta:not(:empty)");
  await page.click("#voice-mode");
  await page.locator("#mic:not([disabled])").click();
  await page.waitForFunction(() =>
    (globalThis as unknown as {
      document: { querySelector(s: string): { textContent: string } | null };
    }).document.querySelector("#mic .mic-time")?.textContent === "0:03"
  );
  const path = new URL("../docs/screenshot-voice.png", import.meta.url).pathname;
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
  await page.keyboard.press("Escape");
  await context.close();
}

/** The phone layout: the chat with the sidebar folded, the sidebar opened, the Tools table. */
async function phoneShots(browser: Browser, hob: { url: string; token: string }): Promise<void> {
  const context = await browser.newContext({
    colorScheme: "light",
    viewport: { width: 390, height: 844 },
    isMobile: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  const shot = async (name: string) => {
    await page.waitForTimeout(300);
    const path = new URL(`../docs/screenshot-phone-${name}.png`, import.meta.url).pathname;
    await page.screenshot({ path, scale: "css" });
    console.log(`wrote ${path}`);
  };
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.click("#sidebar-toggle");
  await page.click("#conversation-list a >> text=Saturday");
  await page.waitForSelector(".msg.assistant .meta:not(:empty)");
  await page.locator("details.tool summary").first().click();
  await shot("chat");
  await page.click("#sidebar-toggle");
  await shot("menu");
  await page.click(".sections a[data-view=tools]");
  await page.waitForSelector("#panel table.grid");
  await shot("tools");
  await context.close();
}
