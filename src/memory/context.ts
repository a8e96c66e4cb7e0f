/**
 * The PromptSources port over the home's Markdown files: SOUL.md and USER.md
 * for identity, and the tail of MEMORY.md and of today's log as memory
 * context. Files are read every turn, so a user's edits in vim apply at once.
 */

import { join } from "node:path";
import type { Clock, PromptSources } from "../core/ports.ts";

/** How much of MEMORY.md the prompt carries: its newest part. */
const LONG_TERM_TAIL_CHARS = 2_000;
/** How much of today's log the prompt carries. */
const DAILY_LOG_TAIL_CHARS = 1_500;

/**
 * Creates prompt sources reading the files of `home`.
 *
 * @example
 * ```ts
 * const sources = createPromptSources(home, { now: () => new Date() });
 * const { soul, user } = await sources.identity();
 * ```
 */
export function createPromptSources(home: string, clock: Clock): PromptSources {
  return {
    async identity() {
      const [soul, user] = await Promise.all([
        readOrEmpty(join(home, "identity", "SOUL.md")),
        readOrEmpty(join(home, "identity", "USER.md")),
      ]);
      return { soul, user };
    },

    async memoryContext() {
      const today = localDate(clock.now());
      const [longTerm, daily] = await Promise.all([
        readOrEmpty(join(home, "memory", "MEMORY.md")),
        readOrEmpty(join(home, "memory", `${today}.md`)),
      ]);
      const parts: string[] = [];
      if (longTerm.trim()) {
        parts.push(
          `## Long-term memory (MEMORY.md)\n\n${tail(longTerm, LONG_TERM_TAIL_CHARS)}`,
        );
      }
      if (daily.trim()) {
        parts.push(
          `## Today's log (${today})\n\n${tail(daily, DAILY_LOG_TAIL_CHARS)}`,
        );
      }
      return parts.join("\n\n");
    },
  };
}

/** The date in the machine's time zone, as daily logs are named: YYYY-MM-DD. */
export function localDate(date: Date): string {
  const y = date.getFullYear();
  const m = String(date.getMonth() + 1).padStart(2, "0");
  const d = String(date.getDate()).padStart(2, "0");
  return `${y}-${m}-${d}`;
}

function tail(text: string, chars: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= chars) return trimmed;
  const cut = trimmed.slice(-chars);
  const newline = cut.indexOf("\n");
  return `…${newline >= 0 ? cut.slice(newline) : cut}`;
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}
