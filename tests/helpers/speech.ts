/**
 * The offline voice path's test data and tools: the sentences it is measured
 * on, festival to speak them, the word error rate, and hob.yaml for
 * pocketsphinx and espeak-ng (tests/media/offline_speech_test.ts,
 * bench/speech.ts; the figures are in bench/RESULTS.md).
 */

import { assertEquals } from "./assert.ts";

/** What people say to an assistant. */
export const SENTENCES = [
  "remind me to water the plants on tuesday",
  "what is the weather like today",
  "add milk and eggs to my shopping list",
  "call my mother at six in the evening",
  "how many meetings do I have tomorrow",
  "turn off the lights in the kitchen",
  "send an email to the team about the project",
  "play some music while I cook dinner",
  "what time does the train leave",
  "write a note that the car needs new tires",
];

/**
 * The word error rate of `heard` against `said`: (substitutions + deletions
 * + insertions) / words said, by the edit distance over words.
 *
 * @example
 * ```ts
 * wordErrorRate("turn off the lights", "turn of the lights"); // 0.25
 * ```
 */
export function wordErrorRate(said: string, heard: string): number {
  const words = (text: string) =>
    text.toLowerCase().replace(/[^a-z0-9' ]/g, " ").split(/\s+/).filter(Boolean);
  const a = words(said);
  const b = words(heard);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return a.length ? previous[b.length] / a.length : b.length ? 1 : 0;
}

/** hob.yaml for the offline path. */
export const OFFLINE_SPEECH_YAML = `memory: { embedder: none }
speech:
  transcribe:
    provider: command
    command: [pocketsphinx_continuous, -infile, "{input}", -logfn, /dev/null]
  speak:
    provider: command
    command: [espeak-ng, --stdin, -w, "{output}"]
`;

/** Festival's voice saying `text`, as WAV. */
export async function festival(text: string): Promise<Uint8Array> {
  const output = await new Deno.Command("text2wave", {
    args: ["-o", "/dev/stdout", "-F", "16000"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = output.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout } = await output.output();
  assertEquals(code, 0);
  return stdout;
}
