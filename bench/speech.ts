/**
 * Speech: transcription time per second of audio for each kind of provider
 * measured here, each beside its floor in the same run — the local program
 * run directly on the same files (for hob's command provider), a bare
 * multipart POST to the same stand-in (for the OpenAI-compatible provider)
 * — and the offline path's word error rate (festival speaks the sentences
 * of tests/helpers/speech.ts, pocketsphinx hears them through hob).
 */

import { loadConfig } from "../src/config/load.ts";
import { createSpeechActions } from "../src/app/speech.ts";
import { speechDeps } from "../src/runtime/voice_deps.ts";
import { findProgram } from "../src/media/programs.ts";
import { durationOf } from "../src/media/audio.ts";
import { startFakeSpeech } from "../tests/fakes/speech_server.ts";
import { tempHome } from "../tests/helpers/home.ts";
import {
  festival,
  OFFLINE_SPEECH_YAML,
  SENTENCES,
  wordErrorRate,
} from "../tests/helpers/speech.ts";
import { floorRatio } from "./stats.ts";

/** Requests to the stand-in measured (after as many to warm up). */
const HTTP_ROUNDS = 40;

/** One provider kind's figure: milliseconds per second of audio, and its floor's. */
interface Rate {
  name: string;
  ms_per_audio_s: number;
  floor_ms_per_audio_s: number;
  floor: string;
}

/** What the speech bench found. */
export interface SpeechFigures {
  skipped?: string;
  audio_s: number;
  rates: Rate[];
  wer: { said: string; heard: string; rate: number }[];
  overall_wer: number;
}

/** Measures the offline path (where its programs are) and the OpenAI-compatible path. */
export async function measureSpeech(): Promise<SpeechFigures> {
  const missing = ["text2wave", "pocketsphinx_continuous", "ffmpeg", "espeak-ng"]
    .filter((program) => !findProgram(program));
  if (missing.length) {
    return {
      skipped: `${missing.join(", ")} missing`,
      audio_s: 0,
      rates: [],
      wer: [],
      overall_wer: 0,
    };
  }
  await using home = await tempHome(OFFLINE_SPEECH_YAML);
  const { config } = await loadConfig({ home: home.home, env: {} });
  const speech = createSpeechActions(speechDeps(home.home, config));
  const clips = await Promise.all(SENTENCES.map((sentence) => festival(sentence)));
  const audioS = clips.reduce((sum, clip) => sum + (durationOf(clip) ?? 0), 0);
  const files = await Promise.all(clips.map(async (clip, index) => {
    const path = `${home.home}/clip-${index}.wav`;
    await Deno.writeFile(path, clip);
    return path;
  }));
  const oggs = await Promise.all(files.map((path) => toOgg(path)));

  const direct = await timed(async () => {
    for (const path of files) await pocketsphinx(path);
  });
  const wer: SpeechFigures["wer"] = [];
  const viaHob = await timed(async () => {
    for (const [index, clip] of clips.entries()) {
      const { text } = await speech.transcribe({ audio: clip, type: "audio/wav" });
      wer.push({
        said: SENTENCES[index],
        heard: text,
        rate: wordErrorRate(SENTENCES[index], text),
      });
    }
  });
  const viaOgg = await timed(async () => {
    for (const ogg of oggs) await speech.transcribe({ audio: ogg, type: "audio/ogg" });
  });
  const words = SENTENCES.reduce((sum, sentence) => sum + sentence.split(" ").length, 0);
  const errors = wer.reduce((sum, row) => sum + row.rate * row.said.split(" ").length, 0);
  return {
    audio_s: audioS,
    rates: [
      rate("command: pocketsphinx, WAV", viaHob, direct, audioS, "pocketsphinx run directly"),
      rate(
        "command: pocketsphinx, Ogg/Opus (ffmpeg)",
        viaOgg,
        direct,
        audioS,
        "pocketsphinx run directly on the WAV",
      ),
      await measureHttp(clips[0]),
    ],
    wer,
    overall_wer: errors / words,
  };
}

/** The OpenAI-compatible provider against a stand-in that answers at once: what hob adds. */
async function measureHttp(clip: Uint8Array): Promise<Rate> {
  await using fake = startFakeSpeech({ fallback: "ok" });
  await using home = await tempHome(`providers:
  voice: { type: openai, base_url: "${fake.url}", api_key: k }
speech:
  transcribe: { provider: voice }
`);
  const { config } = await loadConfig({ home: home.home, env: {} });
  const speech = createSpeechActions(speechDeps(home.home, config));
  const bare = async () => {
    const form = new FormData();
    form.append(
      "file",
      new Blob([clip as Uint8Array<ArrayBuffer>], { type: "audio/wav" }),
      "a.wav",
    );
    form.append("model", "whisper-1");
    await (await fetch(`${fake.url}/audio/transcriptions`, { method: "POST", body: form })).json();
  };
  const viaHob = () => speech.transcribe({ audio: clip, type: "audio/wav" });
  for (let i = 0; i < HTTP_ROUNDS; i++) await Promise.all([bare(), viaHob()]).catch(() => {});
  const floor = await timed(async () => {
    for (let i = 0; i < HTTP_ROUNDS; i++) await bare();
  });
  const hob = await timed(async () => {
    for (let i = 0; i < HTTP_ROUNDS; i++) await viaHob();
  });
  const seconds = (durationOf(clip) ?? 1) * HTTP_ROUNDS;
  return rate(
    "OpenAI-compatible (stand-in answering at once)",
    hob,
    floor,
    seconds,
    "a bare multipart POST",
  );
}

function rate(name: string, ms: number, floorMs: number, audioS: number, floor: string): Rate {
  return { name, ms_per_audio_s: ms / audioS, floor_ms_per_audio_s: floorMs / audioS, floor };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function pocketsphinx(path: string): Promise<void> {
  const { code } = await new Deno.Command("pocketsphinx_continuous", {
    args: ["-infile", path, "-logfn", "/dev/null"],
    stdout: "null",
    stderr: "null",
  }).output();
  if (code !== 0) throw new Error(`pocketsphinx failed on ${path}`);
}

async function toOgg(path: string): Promise<Uint8Array> {
  const out = path.replace(/\.wav$/, ".ogg");
  const { code } = await new Deno.Command("ffmpeg", {
    args: ["-v", "error", "-i", path, "-c:a", "libopus", out],
  }).output();
  if (code !== 0) throw new Error(`ffmpeg failed on ${path}`);
  return await Deno.readFile(out);
}

/** The figures as lines: each rate beside its floor, then the word error rate table. */
export function formatSpeech(figures: SpeechFigures): string {
  if (figures.skipped) return `speech: skipped (${figures.skipped})`;
  const lines = [`speech: ${figures.audio_s.toFixed(1)} s of festival's voice, 10 sentences`];
  for (const r of figures.rates) {
    lines.push(
      `  ${r.name}: ${r.ms_per_audio_s.toFixed(1)} ms per second of audio (${
        floorRatio(r.ms_per_audio_s, r.floor_ms_per_audio_s)
      } ${r.floor}: ${r.floor_ms_per_audio_s.toFixed(1)} ms)`,
    );
  }
  lines.push("  | said (festival) | heard (pocketsphinx, through hob) | WER |", "  |---|---|---|");
  for (const row of figures.wer) {
    lines.push(`  | ${row.said} | ${row.heard} | ${(row.rate * 100).toFixed(0)} % |`);
  }
  lines.push(`  overall word error rate: ${(figures.overall_wer * 100).toFixed(1)} %`);
  return lines.join("\n");
}
