/**
 * The page in headless Chromium (Debian's, driven by playwright-core) against
 * a real `hob serve` and a fake OpenAI-compatible provider: sign in with the
 * token link, stream a reply, a tool card, an approval, the sidebar across a
 * reload, Markdown that tries to run script, memory edited then found, stop.
 */

import { Buffer } from "node:buffer";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import type { FakeReply } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";

const STREAMED = "Streaming works: one two three four five six seven eight nine ten.";
const HOSTILE = [
  "Look: <script>window.__pwned = 'script'</script>",
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  "[click](javascript:window.__pwned='link') and **bold** text.",
  "```\nrm -rf /tmp/cache\n```",
].join("\n\n");

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** The browser's file and drag APIs, as used inside the page. */
interface BrowserFiles {
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: string[], name: string, options: { type: string }) => unknown;
  DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
  document: { querySelector(selector: string): { dispatchEvent(event: unknown): void } | null };
}

/** The little of the browser's document the tests read inside the page. */
interface Dom {
  querySelector(selector: string): { textContent: string | null } | null;
}

/** The fake model: what it answers depends on the user's last words. */
function reply(body: Record<string, unknown>): FakeReply {
  const messages = body.messages as {
    role: string;
    content: string | { type: string; text?: string }[];
    tool_calls?: { function: { name: string } }[];
  }[];
  const last = messages.at(-1)!;
  if (last.role === "tool") {
    return { text: `Done with ${messages.at(-2)?.tool_calls?.[0].function.name ?? "the tool"}.` };
  }
  // With images the content is a list of parts.
  const content = typeof last.content === "string"
    ? last.content
    : last.content.map((part) => part.text ?? "").join(" ");
  const text = content.toLowerCase();
  if (text.includes("stream")) return { text: STREAMED.split(/(?<= )/), delay_ms: 60 };
  if (text.includes("slow")) {
    return { text: Array.from({ length: 400 }, (_, i) => `Paragraph ${i}.\n\n`), delay_ms: 40 };
  }
  if (text.includes("time")) {
    return { tool_calls: [{ name: "get_time", arguments: { timezone: "Asia/Tokyo" } }] };
  }
  if (text.includes("files")) return { tool_calls: [{ name: "list_directory", arguments: {} }] };
  if (text.includes("hostile")) return { text: HOSTILE };
  return { text: "Hello from the fake model." };
}

Deno.test("the page: sign in, stream, tools, approvals, sidebar, safe Markdown, memory, stop", async (t) => {
  await using fake = startFakeOpenAI({ respond: reply, models: ["fake-model", "fake-large"] });
  await using home = await tempHome(
    fakeProviderYaml(
      fake.url,
      "memory: { embedder: none }\ntools: { policies: { list_directory: ask } }",
    ),
  );
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: hob.url });
  const page = await context.newPage();
  const problems = pageProblems(page);
  page.on("dialog", (dialog) => dialog.accept());
  const send = async (text: string) => {
    await page.fill("#composer-input", text);
    await page.press("#composer-input", "Enter");
  };
  const lastReply = () => page.locator(".msg.assistant").last();

  await t.step(
    "the token link signs in with an HttpOnly cookie and leaves the address bar",
    async () => {
      await page.goto(`${hob.url}/?token=${hob.token}`);
      assertEquals(page.url(), `${hob.url}/`);
      await page.waitForSelector("#composer-input");
      const [cookie] = await context.cookies();
      assertEquals([cookie.name, cookie.httpOnly, cookie.sameSite], [
        "hob_session",
        true,
        "Strict",
      ]);
      assert(!cookie.value.includes(hob.token));

      const stranger = await browser.newPage();
      const response = await stranger.goto(`${hob.url}/`);
      assertEquals(response?.status(), 401);
      assertStringIncludes(await stranger.textContent("body") ?? "", "Open the link");
      const wrong = await stranger.goto(`${hob.url}/?token=not-the-token`);
      assertEquals(wrong?.status(), 401);
      await stranger.close();
    },
  );

  await t.step(
    "a message's reply streams in, rendered as Markdown, with its token usage",
    async () => {
      await send("Please stream something");
      assertEquals(await page.locator(".msg.user").last().textContent(), "Please stream something");
      // Mid-stream: part of the text is there and the cursor blinks.
      const partial = await page.waitForFunction(() => {
        // Runs in the browser: only what is written here exists there.
        const doc = (globalThis as unknown as { document: Dom }).document;
        const text = doc.querySelector(".msg.assistant .markdown.cursor")?.textContent ?? "";
        return text.length > 0 && !text.includes("ten.") ? text : null;
      });
      assert(String(await partial.jsonValue()).length < STREAMED.length);
      await page.waitForSelector(".msg.assistant .meta:not(:empty)");
      assertEquals((await lastReply().locator(".markdown").textContent())?.trim(), STREAMED);
      assertMatch(
        await lastReply().locator(".meta").textContent() ?? "",
        /fake\/fake-model · 10 in · 5 out tokens/,
      );
      assertMatch(page.url(), /\/c\/[0-9a-f-]{36}$/);
    },
  );

  await t.step("a tool call shows as a card with its arguments, result and duration", async () => {
    await send("What time is it in Tokyo?");
    const card = page.locator("details.tool.done").last();
    await card.waitFor();
    assertEquals(await card.locator(".name").textContent(), "get_time");
    // A busy machine may take over a second: "1.2 s" is as right as "35 ms".
    assertMatch(await card.locator(".state").textContent() ?? "", /^done · (\d+ ms|\d+\.\d s)$/);
    await card.locator("summary").click();
    assertStringIncludes(
      await card.locator("pre.args").textContent() ?? "",
      '"timezone": "Asia/Tokyo"',
    );
    assertStringIncludes(await card.locator("pre.result").textContent() ?? "", "Asia/Tokyo");
    await page.getByText("Done with get_time.").waitFor();
  });

  await t.step("an approval is granted from the page and the turn completes", async () => {
    await send("List my files");
    const approval = page.locator(".approval").last();
    await approval.waitFor();
    assertStringIncludes(await approval.textContent() ?? "", "list_directory");
    await approval.getByRole("button", { name: "Approve", exact: true }).click();
    await approval.getByText("Approved.").waitFor();
    await page.locator("details.tool.done .name", { hasText: "list_directory" }).waitFor();
    await page.getByText("Done with list_directory.").waitFor();
  });

  await t.step("the conversation is in the sidebar and survives a reload", async () => {
    const link = page.locator("#conversation-list a", { hasText: "Please stream something" });
    await link.waitFor();
    await page.reload();
    await link.waitFor();
    assertEquals(await page.locator("#chat-title").textContent(), "Please stream something");
    // The history comes back: messages, tool cards with results, the approval's call.
    await page.locator("details.tool .name", { hasText: "get_time" }).waitFor();
    assertEquals(await page.locator(".msg.user").count(), 3);
    await page.click("#new-chat");
    assertEquals(new URL(page.url()).pathname, "/");
    await link.click();
    await page.locator(".msg.user", { hasText: "List my files" }).waitFor();
  });

  await t.step("Markdown with <script>, onerror and a javascript: link runs nothing", async () => {
    await page.click("#new-chat");
    await send("Say something hostile");
    await page.getByText("bold").waitFor();
    await page.waitForSelector(".msg.assistant .meta:not(:empty)");
    await page.waitForTimeout(200);
    assertEquals(
      await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned),
      undefined,
    );
    assertEquals(await page.locator("#messages script").count(), 0);
    assertEquals(await page.locator("#messages [onerror]").count(), 0);
    assertEquals(await page.locator('#messages a[href^="javascript:"]').count(), 0);
    assertEquals(await lastReply().locator("strong").textContent(), "bold");
    // Code blocks have a copy button that puts the code on the clipboard.
    await lastReply().getByRole("button", { name: "Copy code" }).click();
    await lastReply().getByText("Copied").waitFor();
    assertEquals(
      await page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } })
          .navigator.clipboard
          .readText()
      ),
      "rm -rf /tmp/cache\n",
    );
  });

  await t.step("memory edited in the page is found by search", async () => {
    await page.click(".sections a[data-view=memory]");
    await page.getByRole("button", { name: "MEMORY.md" }).click();
    const editor = page.locator("textarea.editor");
    await editor.waitFor();
    const before = await editor.inputValue();
    await editor.fill(`${before}\n- The spare key is under the blue flowerpot.\n`);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved memory/MEMORY.md.").waitFor();
    assertStringIncludes(
      await Deno.readTextFile(`${home.home}/memory/MEMORY.md`),
      "blue flowerpot",
    );
    await page.fill("#memory-query", "spare key");
    await page.press("#memory-query", "Enter");
    await page.locator("#memory-results", { hasText: "blue flowerpot" }).waitFor();
  });

  await t.step("Stop ends a turn mid-reply and the partial reply is kept", async () => {
    await page.click(".sections a[data-view=chat]");
    await send("Be slow about it");
    await page.waitForSelector(".msg.assistant .markdown.cursor");
    // Scrolling up to read stops the view from following the stream. Wait for a reply taller than
    // the view (by what streamed, not by a time a busy machine may not keep).
    await page.waitForFunction(
      () => {
        const node = (globalThis as unknown as {
          document: { querySelector(s: string): { scrollHeight: number; clientHeight: number } };
        }).document.querySelector("#messages");
        return node.scrollHeight > node.clientHeight * 1.6;
      },
      undefined,
      { timeout: 60_000 },
    );
    const scroller = page.locator("#messages");
    type Box = { scrollTop: number; scrollHeight: number; clientHeight: number };
    const box = () =>
      scroller.evaluate((node) => {
        const { scrollTop, scrollHeight, clientHeight } = node as unknown as Box;
        return { scrollTop, scrollHeight, clientHeight };
      });
    const following = await box();
    assert(following.scrollHeight > following.clientHeight * 1.5, JSON.stringify(following));
    // While the user does not scroll, the view follows the reply to its end.
    assert(
      following.scrollTop + following.clientHeight >= following.scrollHeight - 60,
      JSON.stringify(following),
    );
    await scroller.evaluate((node) => (node as unknown as { scrollTop: number }).scrollTop = 0);
    await page.mouse.wheel(0, -10);
    await page.waitForTimeout(600);
    assertEquals(
      await scroller.evaluate((node) => (node as unknown as { scrollTop: number }).scrollTop),
      0,
    );
    await page.click("#stop");
    await page.getByText("Stopped.").waitFor();
    assert(await page.isVisible("#send"));
    const id = new URL(page.url()).pathname.split("/")[2];
    let status = "";
    for (let i = 0; i < 50 && status !== "interrupted"; i++) {
      const { messages } = await (await hob.fetch(`/api/conversations/${id}/messages`)).json();
      status = messages.at(-1).status;
      if (status !== "interrupted") await new Promise((r) => setTimeout(r, 100));
    }
    assertEquals(status, "interrupted");
  });

  await t.step(
    "files chosen or dropped go with the message: the image to the model, shown as thumbnails",
    async () => {
      await page.click("#new-chat");
      await page.setInputFiles("#attach-input", {
        name: "dot.png",
        mimeType: "image/png",
        buffer: Buffer.from(PNG),
      });
      // Dropping a file on the chat attaches it too.
      await page.evaluate(() => {
        const g = globalThis as unknown as BrowserFiles;
        const transfer = new g.DataTransfer();
        transfer.items.add(new g.File(["dropped words"], "notes.txt", { type: "text/plain" }));
        const target = g.document.querySelector("#chat-view")!;
        for (const type of ["dragover", "drop"]) {
          target.dispatchEvent(
            new g.DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
          );
        }
      });
      const chips = page.locator("#pending-attachments li");
      assertEquals(await chips.count(), 2);
      await send("What is in these?");
      await page.getByText("Hello from the fake model.").last().waitFor();
      assertEquals(await chips.count(), 0);
      const sent = page.locator(".msg.user").last();
      const thumb = sent.locator("img.thumb");
      await thumb.waitFor();
      assertEquals(await thumb.getAttribute("alt"), "dot.png");
      assert(
        await thumb.evaluate((img) =>
          (img as unknown as { naturalWidth: number }).naturalWidth === 1
        ),
      );
      assertStringIncludes(await sent.locator("a.chip").textContent() ?? "", "notes.txt");
      const parts = (fake.requests.at(-1)!.body.messages as { content: unknown }[]).at(-1)!
        .content as {
          type: string;
          text?: string;
        }[];
      assertEquals(parts.filter((p) => p.type === "image_url").length, 1);
      assertStringIncludes(
        parts.find((p) => p.type === "text")!.text!,
        "[Attached file: notes.txt",
      );
      // After a reload the message shows its files again, without the lines meant for the model.
      await page.reload();
      await page.locator(".msg.user img.thumb").waitFor();
      assertEquals(
        (await page.locator(".msg.user").last().textContent())?.startsWith("What is in these?"),
        true,
      );
      assert(!(await page.locator(".msg.user").last().textContent())?.includes("[Attached"));
    },
  );

  await t.step("the model picker switches this conversation's model", async () => {
    await page.click("#new-chat");
    await page.locator('#model-select option[value="fake/fake-large"]').waitFor({
      state: "attached",
    });
    await page.selectOption("#model-select", "fake/fake-large");
    await send("Hello bigger model");
    await page.getByText("Hello from the fake model.").last().waitFor();
    assertEquals(fake.requests.at(-1)!.body.model, "fake-large");
    const id = new URL(page.url()).pathname.split("/")[2];
    // Chosen before the conversation existed, it went with the first message; now it sticks.
    await send("And again");
    await page.waitForFunction(() => {
      const doc =
        (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
          .document;
      return doc.querySelectorAll(".msg.assistant .meta").length >= 2;
    });
    assertEquals(fake.requests.at(-1)!.body.model, "fake-large");
    assertEquals(new URL(page.url()).pathname, `/c/${id}`);
  });

  await t.step("rename, search and delete conversations in the sidebar", async () => {
    await page.click("#rename");
    await page.fill("#chat-title input", "Model comparison");
    await page.press("#chat-title input", "Enter");
    await page.locator("#conversation-list a", { hasText: "Model comparison" }).waitFor();
    await page.fill("#conversation-search", "comparison");
    await page.waitForFunction(() => {
      const doc =
        (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
          .document;
      return doc.querySelectorAll("#conversation-list li").length === 1;
    });
    // Clearing the search asks for the whole list; that answer is held until the delete is done,
    // so it arrives stale — and must not bring the deleted conversation back.
    const isList = (url: URL) => url.pathname === "/ui/conversations";
    let releaseList = () => {};
    const deleteDone = new Promise<void>((resolve) => releaseList = resolve);
    await page.route(isList, async (route) => {
      const response = await route.fetch();
      await deleteDone;
      await route.fulfill({ response });
    });
    const listAsked = page.waitForRequest((request) => isList(new URL(request.url())));
    await page.fill("#conversation-search", "");
    await listAsked;
    const deleted = page.waitForResponse((response) => response.request().method() === "DELETE");
    await page.locator("#conversation-list li", { hasText: "Model comparison" }).hover();
    await page.getByRole("button", { name: "Delete Model comparison" }).click();
    await deleted;
    const staleListSwapped = page.evaluate(() =>
      new Promise<void>((resolve) => {
        const body = (globalThis as unknown as {
          document: { body: { addEventListener(type: string, f: (e: Event) => void): void } };
        }).document.body;
        body.addEventListener("htmx:afterSwap", (event) => {
          if ((event.target as unknown as { id: string }).id === "conversation-list") resolve();
        });
      })
    );
    releaseList();
    await staleListSwapped;
    await page.unroute(isList);
    assertEquals(
      await page.locator("#conversation-list a", { hasText: "Model comparison" }).count(),
      0,
    );
    // Deleting the open conversation leaves it for a new chat.
    await page.waitForURL(`${hob.url}/`);
  });

  await t.step("schedules from the page: add a job, run it now, see its result", async () => {
    await page.click(".sections a[data-view=schedules]");
    await page.fill("input[name=name]", "greeting");
    await page.fill("input[name=schedule]", "0 9 * * *");
    await page.fill("textarea[name=prompt]", "Say hello");
    await page.getByRole("button", { name: "Add job" }).click();
    await page.getByText("Added “greeting”.").waitFor();
    await page.getByRole("button", { name: "Run now" }).click();
    await page.getByText("Ran “greeting”.").waitFor();
    await page.locator("#panel li", { hasText: "Hello from the fake model." }).waitFor();
    await page.click(".sections a[data-view=chat]");
  });

  await t.step("Shift+Enter writes a new line; Enter sends", async () => {
    await page.click("#new-chat");
    await page.fill("#composer-input", "first line");
    await page.press("#composer-input", "Shift+Enter");
    await page.keyboard.type("second line");
    assertEquals(await page.inputValue("#composer-input"), "first line\nsecond line");
    await page.press("#composer-input", "Enter");
    await page.locator(".msg.assistant", { hasText: "Hello from the fake model." }).waitFor();
    assertEquals(await page.locator(".msg.user").last().textContent(), "first line\nsecond line");
  });

  // Sanitising hostile Markdown parses its onerror attribute in an inert document, which
  // Chromium reports as a blocked inline handler; nothing else may show up.
  assertEquals(problems.filter((p) => !p.includes("Executing inline event handler")), []);
  await context.close();
});

Deno.test("with no provider answering the page says how to start one, and it fits a phone", async () => {
  const dead = closedPort();
  // The default model is a built-in provider's: the banner's general advice (one's own provider's
  // wording is in page_findings_test.ts).
  await using home = await tempHome(`model: ollama/m
providers:
  local: { type: openai, base_url: "http://127.0.0.1:${dead}/v1", api_key: "x", max_retries: 0 }
  ollama: { base_url: "http://127.0.0.1:${dead}/v1" }
  lmstudio: { base_url: "http://127.0.0.1:${dead}/v1" }
memory: { embedder: none }
`);
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
  });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(`${hob.url}/?token=${hob.token}`);
  const banner = page.locator("#model-banner");
  await banner.waitFor();
  assertStringIncludes(await banner.textContent() ?? "", "No model provider answered");
  assertStringIncludes(await banner.textContent() ?? "", "ollama serve");

  // Nothing is wider than the phone, and the message box is on screen.
  const width = await page.evaluate(() =>
    (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
      .documentElement.scrollWidth
  );
  assert(width <= 390, `the page is ${width}px wide`);
  assert(await page.locator("#composer-input").isVisible());
  assert(await page.locator("#send").isVisible());
  // The keyboard starts in the message box; the controls around it follow in reading order.
  const focused = () =>
    page.evaluate(() => {
      const active = (globalThis as unknown as {
        document: { activeElement: { id: string; getAttribute(name: string): string | null } };
      }).document.activeElement;
      return active.getAttribute("aria-label") ?? active.id;
    });
  assertEquals(await focused(), "composer-input");
  await page.keyboard.press("Shift+Tab");
  assertEquals(await focused(), "Attach files");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  assertEquals(await focused(), "send");
  await context.close();
  assertEquals(problems.filter((p) => !/Failed to load resource/.test(p)), []);
});

Deno.test("on a 390 px phone the menu opens and closes with long conversation titles, nothing off-screen", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  for (let i = 0; i < 3; i++) {
    const created = await hob.fetch("/api/conversations", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        title: `Planning the long trip to the mountains with everyone, part ${i} of many more`,
      }),
    });
    assertEquals(created.status, 201);
  }
  await using browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
  });
  const page = await context.newPage();
  await page.goto(`${hob.url}/?token=${hob.token}`);
  const menu = page.locator("#sidebar-toggle");
  await menu.click();
  await page.locator("#conversation-list a").first().waitFor();
  const scrollWidth = () =>
    page.evaluate(() =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
        .document.documentElement.scrollWidth
    );
  assert(await scrollWidth() <= 390, `the open menu makes the page ${await scrollWidth()}px wide`);
  for (const id of ["#sidebar-toggle", "#new-chat", "#send"]) {
    const box = (await page.locator(id).boundingBox())!;
    assert(box.x >= 0 && box.x + box.width <= 390, `${id} is off-screen: ${JSON.stringify(box)}`);
  }
  await menu.click();
  assertEquals(await menu.getAttribute("aria-expanded"), "false");
  assert(!(await page.locator("#conversation-search").isVisible()), "the menu closed");
  await context.close();
});
