/**
 * Headless Chromium for the page's tests: Debian's `chromium`, driven by
 * playwright-core, never a browser downloaded at run time.
 */

import { type Browser, chromium, type Page } from "playwright-core";

/** Where Debian installs chromium (`apt-get install chromium`). */
export const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/**
 * Launches the browser; `await using` closes it. `args` adds to its flags,
 * e.g. `--use-fake-device-for-media-stream` for a microphone.
 */
export async function launchBrowser(args: string[] = []): Promise<Browser & AsyncDisposable> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `The page's tests need Debian's chromium at ${CHROMIUM}: apt-get install chromium`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...FLAGS, ...args],
  });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}

/** Collects what the page logs as errors and the exceptions it throws. */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return problems;
}
