/**
 * The page's cold load: a real `hob serve`, headless Chromium with an empty
 * cache each time, signed in by its session cookie. First paint and first
 * contentful paint as the browser reports them, and the bytes that crossed
 * the wire (every response's transfer size, headers included).
 */

import { launchBrowser } from "../tests/helpers/browser.ts";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { startHob } from "../tests/helpers/hob_process.ts";
import { ms, percentile } from "./stats.ts";

const LOADS = 10;

export interface PageLoadResult {
  loads: number;
  first_paint_p50: number;
  first_contentful_paint_p50: number;
  dom_content_loaded_p50: number;
  bytes: number;
  requests: number;
}

interface Timings {
  fp: number;
  fcp: number;
  dcl: number;
  bytes: number;
  requests: number;
}

/** Loads the page `LOADS` times, each in a fresh browser context (an empty cache). */
export async function measurePageLoad(): Promise<PageLoadResult> {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  // Sign in once to learn the cookie; each measured load then starts cold but signed in.
  const signIn = await browser.newContext();
  await (await signIn.newPage()).goto(`${hob.url}/?token=${hob.token}`);
  const cookies = await signIn.cookies();
  await signIn.close();

  const runs: Timings[] = [];
  for (let i = 0; i < LOADS + 1; i++) {
    const context = await browser.newContext();
    await context.addCookies(cookies);
    const page = await context.newPage();
    await page.goto(`${hob.url}/`, { waitUntil: "load" });
    await page.waitForSelector("#conversation-list .empty, #conversation-list ul");
    const timings = await page.evaluate(() => {
      const perf = (globalThis as unknown as { performance: BrowserPerformance }).performance;
      const paint = (name: string) => perf.getEntriesByName(name)[0]?.startTime ?? NaN;
      const navigation = perf.getEntriesByType("navigation")[0];
      const resources = perf.getEntriesByType("resource");
      return {
        fp: paint("first-paint"),
        fcp: paint("first-contentful-paint"),
        dcl: navigation.domContentLoadedEventEnd ?? NaN,
        bytes: [navigation, ...resources].reduce(
          (sum, entry) => sum + (entry.transferSize ?? 0),
          0,
        ),
        requests: 1 + resources.length,
      };
    });
    await context.close();
    // The first load warms hob's gzip cache and Chromium's process pool; it is not counted.
    if (i > 0) runs.push(timings);
  }
  const p50 = (pick: (t: Timings) => number) => percentile(runs.map(pick), 50);
  return {
    loads: runs.length,
    first_paint_p50: p50((t) => t.fp),
    first_contentful_paint_p50: p50((t) => t.fcp),
    dom_content_loaded_p50: p50((t) => t.dcl),
    bytes: p50((t) => t.bytes),
    requests: p50((t) => t.requests),
  };
}

/** The little of the browser's Performance API read inside the page. */
interface BrowserPerformance {
  getEntriesByName(name: string): { startTime: number }[];
  getEntriesByType(
    type: string,
  ): { startTime: number; transferSize?: number; domContentLoadedEventEnd?: number }[];
}

/** Prints the result line; given the floor (bench/startup.ts), each time's ratio to it. */
export function formatPageLoad(r: PageLoadResult, floor?: number): string {
  return `page cold load (${r.loads} loads, empty cache): first paint p50 ${
    ms(r.first_paint_p50, floor)
  } · first contentful paint p50 ${
    ms(r.first_contentful_paint_p50, floor)
  } · DOMContentLoaded p50 ${ms(r.dom_content_loaded_p50, floor)} · ${
    (r.bytes / 1024).toFixed(1)
  } KB in ${r.requests} requests`;
}

if (import.meta.main) {
  console.log(formatPageLoad(await measurePageLoad()));
  Deno.exit(0);
}
