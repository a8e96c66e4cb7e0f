/**
 * The fully offline voice path, for real: Debian's festival speaks each
 * sentence to WAV, hob's command provider hears it with Debian's
 * pocketsphinx, and the word error rate is printed per sentence and overall.
 * Then the same audio as Ogg/Opus (Telegram), WebM/Opus (browsers) and M4A
 * (phones), converted by ffmpeg, and hob's own command speaker (espeak-ng).
 * Skipped, saying what to install, where the programs are missing.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createSpeechActions } from "../../src/app/speech.ts";
import { speechDeps } from "../../src/runtime/voice_deps.ts";
import { findProgram } from "../../src/media/programs.ts";
import { toSpeechWav, UnreadableAudioError, wavInfo } from "../../src/media/audio.ts";
import { tempHome } from "../helpers/home.ts";
import { festival, OFFLINE_SPEECH_YAML, SENTENCES, wordErrorRate } from "../helpers/speech.ts";

const PROGRAMS = ["text2wave", "pocketsphinx_continuous", "ffmpeg", "espeak-ng"];
const missing = PROGRAMS.filter((program) => !findProgram(program));
if (missing.length) {
  console.error(
    `offline speech tests skipped: ${
      missing.join(", ")
    } missing — apt-get install festival pocketsphinx pocketsphinx-en-us ffmpeg espeak-ng`,
  );
}

/** The audio converted by ffmpeg to another container (the way people send it). */
async function reencode(wav: Uint8Array, args: string[], extension: string): Promise<Uint8Array> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/in.wav`, wav);
    const { code } = await new Deno.Command("ffmpeg", {
      args: ["-v", "error", "-i", `${dir}/in.wav`, ...args, `${dir}/out.${extension}`],
      stderr: "inherit",
    }).output();
    assertEquals(code, 0);
    return await Deno.readFile(`${dir}/out.${extension}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "festival speaks, pocketsphinx hears: the word error rate of the offline path",
  ignore: missing.length > 0,
  async fn(t) {
    await using home = await tempHome(OFFLINE_SPEECH_YAML);
    const { config } = await loadConfig({ home: home.home, env: {} });
    const speech = createSpeechActions(speechDeps(home.home, config));
    const rows: string[] = [];
    let errors = 0;
    let words = 0;
    const spoken: Uint8Array[] = [];
    await t.step("each sentence, with its word error rate", async () => {
      for (const sentence of SENTENCES) {
        const wav = await festival(sentence);
        spoken.push(wav);
        const { text, duration_s } = await speech.transcribe({ audio: wav, type: "audio/wav" });
        const rate = wordErrorRate(sentence, text);
        const count = sentence.split(" ").length;
        errors += rate * count;
        words += count;
        rows.push(`| ${sentence} | ${text} | ${(rate * 100).toFixed(0)} % | ${duration_s} s |`);
      }
      const overall = errors / words;
      console.log(
        `\n| said (festival) | heard (pocketsphinx) | WER | audio |\n|---|---|---|---|\n${
          rows.join("\n")
        }\n| overall | | ${(overall * 100).toFixed(1)} % (${
          Math.round(errors)
        } of ${words} words) | |`,
      );
      // The programs are deterministic: this figure moves only when they or hob's path change.
      assert(overall < 0.4, `the offline path's word error rate is ${overall}`);
    });

    await t.step(
      "Ogg/Opus, WebM/Opus and M4A are converted by ffmpeg and heard alike",
      async () => {
        const wav = spoken[0];
        const direct = (await speech.transcribe({ audio: wav, type: "audio/wav" })).text;
        const formats = [
          { type: "audio/ogg", bytes: await reencode(wav, ["-c:a", "libopus"], "ogg") },
          { type: "audio/webm", bytes: await reencode(wav, ["-c:a", "libopus"], "webm") },
          { type: "audio/mp4", bytes: await reencode(wav, ["-c:a", "aac"], "m4a") },
        ];
        for (const { type, bytes } of formats) {
          const { text } = await speech.transcribe({ audio: bytes, type });
          assert(
            wordErrorRate(direct, text) <= 0.2,
            `${type} was heard as '${text}', not '${direct}'`,
          );
        }
      },
    );

    await t.step("a playlist posing as audio makes ffmpeg read nothing else", async () => {
      // An HLS playlist naming a recording elsewhere on the machine: ffmpeg would follow it.
      const elsewhere = await Deno.makeTempFile({ suffix: ".wav" });
      await Deno.writeFile(elsewhere, spoken[0]);
      const playlist =
        `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile://${elsewhere}\n#EXT-X-ENDLIST\n`;
      try {
        const bytes = new TextEncoder().encode(playlist);
        const error = await speech.transcribe({ audio: bytes, type: "audio/ogg" })
          .then(() => null, (error: Error) => error);
        assert(error, "the playlist was transcribed");
        assertMatch(error.message, /is not audio hob can read/);
        // Nor does ffmpeg follow it when handed it directly: it reads one recording or nothing.
        const read = await toSpeechWav({ bytes, type: "audio/ogg" })
          .then(() => null, (error: Error) => error);
        assert(read instanceof UnreadableAudioError, String(read));
      } finally {
        await Deno.remove(elsewhere);
      }
    });

    await t.step(
      "a long reply is spoken to MP3 whole: ffmpeg's output is read as it writes",
      async () => {
        const text = "This reply goes on for a while, sentence after sentence. ".repeat(20);
        const mp3 = await speech.speak({ text, format: "mp3" });
        // Over a minute of speech at 64 kb/s: far past what one pipe holds.
        assert(mp3.bytes.length > 200_000, `only ${mp3.bytes.length} bytes`);
      },
    );

    await t.step(
      "hob's command speaker (espeak-ng) writes WAV, and MP3 through ffmpeg",
      async () => {
        const wav = await speech.speak({ text: "Good morning", format: "wav" });
        assertEquals(wav.type, "audio/wav");
        assert((wavInfo(wav.bytes)?.durationS ?? 0) > 0.3, "espeak-ng wrote almost nothing");
        const mp3 = await speech.speak({ text: "Good morning", format: "mp3" });
        assertEquals(mp3.type, "audio/mpeg");
        assertMatch(new TextDecoder().decode(mp3.bytes.subarray(0, 3)), /ID3|\ufffd/);
        const opus = await speech.speak({ text: "-n starts like an option", format: "opus" });
        assertEquals(new TextDecoder().decode(opus.bytes.subarray(0, 4)), "OggS");
      },
    );
  },
});
