/**
 * hob while another program holds hob.db's write lock: a real `hob serve`
 * (hob's flags, a fake provider) has `/api/health` polled one request after
 * another for {@linkcode HOLD_MS} with the lock free, then for as long again
 * while another process holds it in `BEGIN IMMEDIATE` — a chat sent at its
 * start and a reply streaming across it, so hob has writes waiting. Each
 * revision (this tree, and `--compare REV`'s) is measured the same way.
 */

import { join } from "node:path";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { cleanEnv, HOB_FLAGS } from "../tests/helpers/hob_process.ts";
import { holdWriteLock } from "../tests/helpers/hold_lock.ts";
import type { Revision } from "./startup.ts";
import { percentile } from "./stats.ts";

/** How long the lock is held, and health polled without it: what the issue measured. */
const HOLD_MS = 8_000;

/** Health's latencies over one window. */
export interface HealthWindow {
  answers: number;
  p50: number;
  p95: number;
  max: number;
}

/** One revision's figures. */
export interface StoreLockFigures {
  label: string;
  free: HealthWindow;
  locked: HealthWindow;
  /** The status of the chat sent as the lock was taken. */
  chatDuringLock: number;
  /** How long that chat took to be answered, in ms. */
  chatMs: number;
}

/** Measures each revision in turn. */
export async function measureStoreLock(revisions: Revision[]): Promise<StoreLockFigures[]> {
  const figures: StoreLockFigures[] = [];
  for (const revision of revisions) figures.push(await measureOne(revision));
  return figures;
}

async function measureOne(revision: Revision): Promise<StoreLockFigures> {
  await using fake = startFakeOpenAI({
    respond: (body) =>
      JSON.stringify(body.messages).includes("slow")
        ? { text: Array.from({ length: 40 }, (_, i) => `w${i} `), delay_ms: 250 }
        : { text: "ok" },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    "heartbeat: { enabled: false }\nmemory: { embedder: none }",
  ));
  await using hob = await serve(revision.root, home.home);
  await (await hob.chat("warm up")).text();
  const free = await pollHealth(hob.url, () => false, performance.now() + HOLD_MS);

  const slow = await hob.chat("slow", true);
  const reading = slow.text();
  await using lock = await holdWriteLock(join(home.home, "hob.db"), HOLD_MS);
  const sent = performance.now();
  const during = hob.chat("during the lock").then(async (response) => {
    await response.text();
    return { status: response.status, ms: performance.now() - sent };
  });
  const locked = await pollHealth(hob.url, () => lock.isReleased(), Infinity);
  await reading;
  const chat = await during;
  return { label: revision.label, free, locked, chatDuringLock: chat.status, chatMs: chat.ms };
}

/** Polls health one request after another until `over` or the deadline. */
async function pollHealth(url: string, over: () => boolean, until: number): Promise<HealthWindow> {
  const times: number[] = [];
  while (!over() && performance.now() < until) {
    const started = performance.now();
    const response = await fetch(`${url}/api/health`);
    await response.body?.cancel();
    if (!response.ok) throw new Error(`/api/health answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return {
    answers: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: Math.max(...times),
  };
}

/** `hob serve` of the revision at `root` on a fresh port. */
async function serve(root: string, home: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, join(root, "main.ts"), "serve", "--home", home, "--port", "0"],
    env: cleanEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  let match: RegExpMatchArray | null = null;
  while (!match) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`hob serve (${root}) did not start: ${said}`);
    said += value;
    match = said.match(/Open (http:\/\/[^/\s]+)\/\?token=(\S+)\n/);
  }
  const draining = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  const [, url, token] = match;
  return {
    url,
    chat: (message: string, stream = false) =>
      fetch(`${url}/api/chat`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...(stream ? { accept: "text/event-stream" } : {}),
        },
        body: JSON.stringify({ message }),
      }),
    async [Symbol.asyncDispose]() {
      child.kill("SIGKILL");
      await child.status;
      await draining;
    },
  };
}

/** The figures as lines. */
export function formatStoreLock(figures: StoreLockFigures[]): string {
  const window = (w: HealthWindow) =>
    `${w.answers} answers, p50 ${w.p50.toFixed(2)} ms, p95 ${w.p95.toFixed(2)} ms, max ${
      w.max.toFixed(1)
    } ms`;
  return figures.flatMap((f) => [
    `store lock (${f.label}): /api/health, lock free, ${HOLD_MS / 1000} s: ${window(f.free)}`,
    `store lock (${f.label}): /api/health, hob.db locked by another process ${HOLD_MS / 1000} s: ${
      window(f.locked)
    }`,
    `store lock (${f.label}): a chat sent as the lock was taken: ${f.chatDuringLock} after ${
      (f.chatMs / 1000).toFixed(1)
    } s`,
  ]).join("\n");
}
