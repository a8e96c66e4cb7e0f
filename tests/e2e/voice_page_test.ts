/**
 * The page's voice in headless Chromium against a real `hob serve`: the
 * microphone is Chromium's fake device playing a WAV espeak-ng spoke; what it
 * records goes through `/v1/audio/transcriptions` to a stand-in
 * speech-to-text server (real multipart, real audio) and into the message
 * box; voice mode sends it and reads the reply aloud — with the browser's
 * voice, or with hob's through `/v1/audio/speech`; each reply has a button
 * that reads it; without speech to text the microphone says why it is off.
 * The browser's `speechSynthesis` and `HTMLMediaElement.play` are watched by
 * an init script.
 */

import type { Browser, BrowserContext, Page } from "playwright-core";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

/** What the stand-in speech-to-text server answers, whatever it hears. */
const TRANSCRIPT = "Remind me to water the plants.";
/** The fake model's reply: Markdown with a link, a code block and a table, none of which is read as it is written. */
const REPLY = [
  "I will remind you to **water the plants** at [seven](https://example.com/plants).",
  "```sh\nhob cron add plants '0 19 * * *'\n```",
  "- Basil\n- Mint",
  "Details at https://www.example.org/care",
].join("\n\n");
/** How the page should read {@linkcode REPLY} aloud. */
const SPOKEN =
  "I will remind you to water the plants at seven. (code on screen). Basil. Mint. Details at example.org.";

/** The flags that give Chromium a microphone playing `wav`, allowed without asking. */
function microphoneFlags(wav: string): string[] {
  return [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${wav}`,
  ];
}

/** One request the stand-in speech-to-text server received. */
interface Heard {
  model: string;
  type: string;
  name: string;
  bytes: Uint8Array;
}

/** An OpenAI-compatible speech-to-text server: reads the real multipart form, records the file. */
function startStandInStt(): { url: string; heard: Heard[] } & AsyncDisposable {
  const heard: Heard[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/audio/transcriptions") {
      return Response.json({ error: { message: "not found" } }, { status: 404 });
    }
    const form = await request.formData();
    const file = form.get("file");
    if (!(file instanceof File)) {
      return Response.json({ error: { message: "no file" } }, { status: 400 });
    }
    heard.push({
      model: String(form.get("model")),
      type: file.type,
      name: file.name,
      bytes: new Uint8Array(await file.arrayBuffer()),
    });
    return Response.json({ text: TRANSCRIPT });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    heard,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** hob.yaml: the fake model, and the speech to text and text to speech asked for. */
function voiceYaml(model: string, options: { stt?: string; speak?: boolean }): string {
  const lines = [
    "model: fake/fake-model",
    "providers:",
    `  fake: { type: openai, base_url: "${model}", api_key: "test", max_retries: 0 }`,
  ];
  if (options.stt) {
    lines.push(`  stt: { type: openai, base_url: "${options.stt}", api_key: "test" }`);
  }
  lines.push("memory: { embedder: none }", "speech:");
  if (options.stt) lines.push("  transcribe: { provider: stt, model: whisper-1 }");
  if (options.speak) {
    lines.push('  speak: { provider: command, command: [espeak-ng, --stdin, -w, "{output}"] }');
  }
  return lines.join("\n") + "\n";
}

/** What the init script records in the page. */
interface Watched {
  spoken: string[];
  cancels: number;
  played: string[];
  ended: number;
}

/** The page's window as the init script sees it. */
interface WatchedWindow {
  __voice: Watched;
  speechSynthesis: { speak(u: { text: string }): void; cancel(): void };
  HTMLMediaElement: { prototype: { play(this: MediaElement): Promise<void> } };
}

interface MediaElement {
  src: string;
  dataset: Record<string, string | undefined>;
  addEventListener(type: string, listener: () => void, options?: { once: boolean }): void;
}

/** Records what the browser's voice is asked to say (it never finishes by itself) and what audio plays. */
async function watchVoice(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    // Runs in the browser: only what is written here exists there.
    const w = globalThis as unknown as WatchedWindow;
    const watched: Watched = { spoken: [], cancels: 0, played: [], ended: 0 };
    w.__voice = watched;
    w.speechSynthesis.speak = (utterance) => watched.spoken.push(utterance.text);
    w.speechSynthesis.cancel = () => watched.cancels++;
    const play = w.HTMLMediaElement.prototype.play;
    w.HTMLMediaElement.prototype.play = function () {
      // The moment of silence a tap plays to let phones play hob's voice later is not speech.
      if (this.dataset.silence !== undefined) return play.call(this);
      watched.played.push(this.src);
      this.addEventListener("ended", () => watched.ended++, { once: true });
      return play.call(this);
    };
  });
}

function watched(page: Page): Promise<Watched> {
  return page.evaluate(() => (globalThis as unknown as WatchedWindow).__voice);
}

/** The little of the page's document the tests read inside it. */
interface Dom {
  document: {
    querySelector(selector: string): { textContent: string | null; value: string } | null;
  };
}

/** Waits until the message box holds `text`. */
async function boxHolds(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (text) =>
      (globalThis as unknown as Dom).document.querySelector("#composer-input")?.value === text,
    text,
  );
}

/** Records until the elapsed time shows, then stops. */
async function record(page: Page): Promise<void> {
  await page.click("#mic");
  await page.locator("#mic.recording[aria-pressed=true]").waitFor();
  await page.waitForFunction(() => {
    const time = (globalThis as unknown as Dom).document.querySelector("#mic .mic-time");
    return time !== null && time.textContent !== "0:00";
  });
  await page.click("#mic");
}

async function signIn(browser: Browser, hob: { url: string; token: string }, phone = false) {
  const context = await browser.newContext(
    phone
      ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }
      : { viewport: { width: 1100, height: 800 } },
  );
  await watchVoice(context);
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.waitForSelector("#composer-input");
  return { context, page, problems };
}

/** A WAV of someone asking for something, for the fake microphone. */
async function spokenWav(dir: string): Promise<string> {
  const wav = `${dir}/request.wav`;
  const { success } = await new Deno.Command("espeak-ng", {
    args: ["-w", wav, TRANSCRIPT],
    stdout: "null",
    stderr: "null",
  }).output();
  assert(success, "espeak-ng could not write the microphone's WAV");
  return wav;
}

Deno.test("the page's microphone, voice mode (the browser's voice) and reading a reply aloud", async (t) => {
  await using stt = startStandInStt();
  await using fake = startFakeOpenAI({ fallback: { text: REPLY } });
  await using home = await tempHome(voiceYaml(fake.url, { stt: stt.url }));
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser(microphoneFlags(await spokenWav(home.home)));
  const { page, problems } = await signIn(browser, hob);
  const mic = page.locator("#mic");

  await t.step("the microphone records, hob writes it down, the words join the box", async () => {
    await page.locator("#mic:not([disabled])").waitFor();
    await page.fill("#composer-input", "Also:");
    await record(page);
    await boxHolds(page, `Also: ${TRANSCRIPT}`);
    assertEquals(await mic.getAttribute("aria-pressed"), "false");
    assertEquals(await page.locator("#mic .mic-time").isHidden(), true);
    // Voice mode is off: the words wait in the box.
    assertEquals(await page.locator(".msg.user").count(), 0);
    assertEquals(stt.heard.length, 1);
    const [{ model, type, name, bytes }] = stt.heard;
    assertEquals(model, "whisper-1");
    assert(type.startsWith("audio/"), `the recording was sent as ${type}`);
    assert(bytes.length > 1_000, `the recording is ${bytes.length} bytes`);
    if (type.startsWith("audio/webm")) {
      // A WebM file starts with the EBML magic number.
      assertEquals([...bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3]);
      assertEquals(name, "recording.webm");
    }
  });

  await t.step("Escape cancels a recording: nothing is sent", async () => {
    await page.fill("#composer-input", "");
    await page.click("#mic");
    await page.locator("#mic.recording").waitFor();
    assertStringIncludes(await page.textContent("#voice-status") ?? "", "Escape cancels");
    await page.keyboard.press("Escape");
    await page.locator("#mic:not(.recording)").waitFor();
    assertEquals(await page.inputValue("#composer-input"), "");
  });

  await t.step(
    "in voice mode the words are sent, and the reply is read aloud when complete",
    async () => {
      await page.click("#voice-mode");
      assertEquals(await page.getAttribute("#voice-mode", "aria-pressed"), "true");
      await record(page);
      await page.locator(".msg.user", { hasText: TRANSCRIPT }).waitFor();
      await page.waitForSelector(".msg.assistant .meta:not(:empty)");
      await page.waitForFunction(() =>
        (globalThis as unknown as WatchedWindow).__voice.spoken.length > 0
      );
      // The rendered text, not the Markdown: no asterisks, no code, addresses by their site.
      assertEquals((await watched(page)).spoken.join(" "), SPOKEN);
      // The recording Escape cancelled never reached the server.
      assertEquals(stt.heard.length, 2);
      assertEquals(await page.inputValue("#composer-input"), "");
    },
  );

  await t.step("Stop speaking stops the voice", async () => {
    const stop = page.locator("#stop-speaking");
    await stop.waitFor();
    const before = (await watched(page)).cancels;
    await stop.click();
    await stop.waitFor({ state: "hidden" });
    assert((await watched(page)).cancels > before, "speechSynthesis.cancel() was called");
  });

  await t.step("voice mode is remembered; a reply's button reads it, and stops it", async () => {
    await page.reload();
    const play = page.locator(".msg.assistant .play").last();
    await play.waitFor();
    assertEquals(await page.getAttribute("#voice-mode", "aria-pressed"), "true");
    await page.click("#voice-mode");
    assertEquals(await page.getAttribute("#voice-mode", "aria-pressed"), "false");
    assertEquals(await play.getAttribute("aria-label"), "Read this reply aloud");
    await play.click();
    await page.locator(".msg.assistant .play.playing").waitFor();
    assertEquals((await watched(page)).spoken.join(" "), SPOKEN);
    assertEquals(await play.getAttribute("aria-label"), "Stop reading this reply");
    await play.click();
    await page.locator(".msg.assistant .play.playing").waitFor({ state: "detached" });
    await page.locator("#stop-speaking").waitFor({ state: "hidden" });
  });

  await t.step("sending a message stops the reading", async () => {
    await page.locator(".msg.assistant .play").last().click();
    await page.locator("#stop-speaking").waitFor();
    const before = (await watched(page)).cancels;
    await page.fill("#composer-input", "And the roses?");
    await page.press("#composer-input", "Enter");
    await page.locator("#stop-speaking").waitFor({ state: "hidden" });
    assert((await watched(page)).cancels > before);
    await page.locator(".msg.assistant .meta:not(:empty)").nth(1).waitFor();
    // Voice mode is off now: the new reply is not read.
    assertEquals(await page.locator("#stop-speaking").isHidden(), true);
  });

  assertEquals(problems, []);
});

Deno.test("with speech.speak, replies are read with hob's voice; without speech to text the microphone says why (on a phone)", async (t) => {
  await using fake = startFakeOpenAI({ fallback: { text: "The plants are watered." } });
  await using home = await tempHome(voiceYaml(fake.url, { speak: true }));
  await using hob = await startHob(home.home);
  const wav = await spokenWav(home.home);
  await using browser = await launchBrowser(microphoneFlags(wav));
  const { page, problems } = await signIn(browser, hob, true);
  const speech = await (await hob.fetch("/api/speech")).json();
  assertEquals([speech.transcribe.available, speech.speak.available], [false, true]);

  await t.step("the microphone is shown, disabled, with the reason as its title", async () => {
    const mic = page.locator("#mic[disabled]");
    await page.waitForFunction(
      (detail) =>
        (globalThis as unknown as { document: { querySelector(s: string): { title: string } } })
          .document.querySelector("#mic")?.title.includes(detail),
      speech.transcribe.detail,
    );
    assert(await mic.isVisible());
    assertStringIncludes(await mic.getAttribute("title") ?? "", "speech.transcribe");
  });

  await t.step(
    "voice mode reads the reply through /v1/audio/speech and plays the audio",
    async () => {
      await page.tap("#voice-mode");
      const spoken = page.waitForResponse((response) =>
        response.url().endsWith("/v1/audio/speech") && response.request().method() === "POST"
      );
      await page.fill("#composer-input", "Did you water the plants?");
      await page.tap("#send");
      const response = await spoken;
      assertEquals(response.status(), 200);
      assertEquals(response.headers()["content-type"], "audio/mpeg");
      const request = response.request().postDataJSON();
      assertEquals(request.input, "The plants are watered.");
      await page.waitForFunction(() =>
        (globalThis as unknown as WatchedWindow).__voice.played.length > 0
      );
      // The audio played to its end, and Stop speaking went with it.
      await page.waitForFunction(() => (globalThis as unknown as WatchedWindow).__voice.ended > 0);
      await page.locator("#stop-speaking").waitFor({ state: "hidden" });
      const seen = await watched(page);
      assert(seen.played[0].startsWith("blob:"), seen.played[0]);
      // hob spoke: the browser's own voice was not asked.
      assertEquals(seen.spoken, []);
    },
  );

  await t.step("a reply's button reads it with hob's voice too", async () => {
    const spoken = page.waitForResponse((response) => response.url().endsWith("/v1/audio/speech"));
    await page.locator(".msg.assistant .play").last().tap();
    assertEquals((await spoken).status(), 200);
    await page.waitForFunction(() =>
      (globalThis as unknown as WatchedWindow).__voice.played.length > 1
    );
  });

  await t.step(
    "on a 390-px phone the voice controls are 40 px or more and nothing overflows",
    async () => {
      for (const selector of ["#mic", "#voice-mode", ".msg.assistant .play", "#send"]) {
        const box = (await page.locator(selector).last().boundingBox())!;
        assert(box.width >= 40 && box.height >= 40, `${selector} is ${box.width}×${box.height}`);
        assert(
          box.x >= 0 && box.x + box.width <= 390,
          `${selector} spans ${box.x}–${box.x + box.width}`,
        );
      }
      const width = await page.evaluate(() =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
          .document.documentElement.scrollWidth
      );
      assert(width <= 390, `the page is ${width}px wide`);
    },
  );

  assertEquals(problems, []);
});
