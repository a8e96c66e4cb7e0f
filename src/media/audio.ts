/**
 * Audio as hob passes it around: bytes with a media type, WAV headers read
 * without a library, and conversions through `ffmpeg` — any format people
 * send (webm/opus from browsers, ogg from Telegram, m4a from phones) to the
 * 16 kHz mono WAV speech programs read, and WAV to the formats clients ask for.
 */

import { join } from "node:path";
import { ProgramError, runProgram } from "./programs.ts";

/** A piece of audio: its bytes and its media type (`audio/wav`, `audio/ogg`, …). */
export interface AudioClip {
  bytes: Uint8Array;
  type: string;
  /** The file name it came with, when it came as a file. */
  name?: string;
}

/** The formats speech comes out in: OpenAI's `response_format` values. */
export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
export type SpeechFormat = typeof SPEECH_FORMATS[number];

/** Each speech format's media type. */
export const FORMAT_TYPES: Record<SpeechFormat, string> = {
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

/** How ffmpeg writes each format: its muxer and codec arguments. */
const FFMPEG_OUTPUT: Record<SpeechFormat, string[]> = {
  mp3: ["-f", "mp3", "-c:a", "libmp3lame", "-b:a", "64k"],
  opus: ["-f", "ogg", "-c:a", "libopus", "-b:a", "32k"],
  aac: ["-f", "adts", "-c:a", "aac", "-b:a", "64k"],
  flac: ["-f", "flac"],
  wav: ["-f", "wav", "-c:a", "pcm_s16le"],
  // OpenAI's pcm: raw 24 kHz signed 16-bit little-endian mono.
  pcm: ["-f", "s16le", "-c:a", "pcm_s16le", "-ar", "24000", "-ac", "1"],
};

/**
 * Demuxers ffmpeg may use on audio people send: containers of one recording,
 * never a playlist (HLS) or a list that names other files to read.
 */
const AUDIO_FORMATS =
  "wav,w64,ogg,mp3,flac,aac,matroska,webm,mov,mp4,m4a,3gp,3g2,mj2,aiff,caf,amr,asf";

/** Longest an ffmpeg conversion may take. */
const CONVERT_TIMEOUT_MS = 120_000;

/** What a WAV file's header says. */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** 1 for integer PCM. */
  format: number;
  durationS: number;
}

/** A WAV file's header, or null when the bytes are not a WAV file hob can read. */
export function wavInfo(bytes: Uint8Array): WavInfo | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
  let format: Omit<WavInfo, "durationS"> | null = null;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt " && at + 24 <= bytes.length) {
      format = {
        format: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
    } else if (id === "data" && format) {
      // Streamed WAVs may say 0 or 0xFFFFFFFF: the bytes that are there count.
      const rest = bytes.length - at - 8;
      const length = size === 0 || size === 0xffffffff ? rest : Math.min(size, rest);
      const bytesPerSecond = format.sampleRate * format.channels * (format.bitsPerSample / 8);
      return { ...format, durationS: bytesPerSecond > 0 ? length / bytesPerSecond : 0 };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** The kinds of audio hob reads, as people name them: those {@linkcode sniffAudio} knows. */
export const AUDIO_KINDS = "WAV, MP3, Ogg/Opus, FLAC, WebM, M4A/MP4, AAC, AIFF, AMR, CAF and WMA";

/** Container atoms an MP4 or QuickTime file may begin with (its `ftyp`, or an old MOV's). */
const MP4_ATOMS = new Set(["ftyp", "moov", "mdat", "wide", "free", "skip"]);

/**
 * The media type of audio or video bytes, from their first bytes: one of the
 * containers ffmpeg is let read ({@linkcode AUDIO_FORMATS}); null when they
 * are none of them (a PDF, a picture, text).
 *
 * @example
 * ```ts
 * sniffAudio(await Deno.readFile("note.ogg")); // "audio/ogg"
 * sniffAudio(await Deno.readFile("plan.pdf")); // null
 * ```
 */
export function sniffAudio(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  const head = ascii(0, 4);
  const magic: Record<string, string> = {
    OggS: "audio/ogg",
    fLaC: "audio/flac",
    caff: "audio/x-caf",
    // Sony Wave64: a GUID that begins 'riff'.
    riff: "audio/wav",
  };
  if (magic[head]) return magic[head];
  if (head === "RIFF" && ascii(8, 12) === "WAVE") return "audio/wav";
  if (head === "FORM" && /^AIF[FC]$/.test(ascii(8, 12))) return "audio/aiff";
  if (ascii(0, 5) === "#!AMR") return "audio/amr";
  if (ascii(0, 3) === "ID3") return "audio/mpeg";
  // ADTS (AAC) and MPEG audio frames share the 0xFFF sync; ADTS's layer bits are 00.
  if (bytes[0] === 0xff && (bytes[1] & 0xf6) === 0xf0) return "audio/aac";
  if (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0) return "audio/mpeg";
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) {
    return "audio/webm";
  }
  // ASF (WMA, WMV): its header object's GUID.
  if (bytes[0] === 0x30 && bytes[1] === 0x26 && bytes[2] === 0xb2 && bytes[3] === 0x75) {
    return "audio/x-ms-wma";
  }
  if (MP4_ATOMS.has(ascii(4, 8))) return "audio/mp4";
  return null;
}

/**
 * Raised when ffmpeg could not read a clip as audio (damaged, or not audio
 * at all); the message names the clip as it came and says what ffmpeg said,
 * in one line without hob's temporary file.
 */
export class UnreadableAudioError extends Error {
  override name = "UnreadableAudioError";
  constructor(readonly clipName: string, reason: string, options?: ErrorOptions) {
    super(`${clipName} could not be read as audio${reason ? ` (ffmpeg: ${reason})` : ""}`, options);
  }
}

/** Whether the clip is already what speech programs read: 16 kHz, mono, 16-bit PCM WAV. */
export function isSpeechWav(bytes: Uint8Array): boolean {
  const info = wavInfo(bytes);
  return !!info && info.format === 1 && info.sampleRate === 16_000 && info.channels === 1 &&
    info.bitsPerSample === 16;
}

/**
 * The clip as 16 kHz mono 16-bit WAV, converted by ffmpeg unless it is one
 * already. The input goes through a temporary file, as MP4 and M4A may keep
 * their index at the end, where a pipe cannot seek.
 *
 * @example
 * ```ts
 * const wav = await toSpeechWav({ bytes: await Deno.readFile("note.ogg"), type: "audio/ogg" });
 * ```
 */
export async function toSpeechWav(clip: AudioClip, signal?: AbortSignal): Promise<Uint8Array> {
  if (isSpeechWav(clip.bytes)) return clip.bytes;
  return await withTempFile(clip.bytes, async (input) => {
    const { stdout } = await runProgram(
      [
        "ffmpeg",
        "-nostdin",
        "-hide_banner",
        "-loglevel",
        "error",
        // One local file, read as a recording: a playlist inside it opens nothing else.
        "-format_whitelist",
        AUDIO_FORMATS,
        "-protocol_whitelist",
        "file,pipe",
        "-i",
        input,
        "-vn",
        "-ar",
        "16000",
        "-ac",
        "1",
        "-c:a",
        "pcm_s16le",
        "-f",
        "wav",
        "pipe:1",
      ],
      { timeoutMs: CONVERT_TIMEOUT_MS, signal, purpose: `Reading ${describe(clip)}` },
    ).catch((error) => {
      throw unreadable(error, clip, input);
    });
    return fixStreamedWav(stdout);
  });
}

/**
 * ffmpeg's refusal of a clip as an {@linkcode UnreadableAudioError}: its last
 * line, without the temporary file's path. Anything else (no ffmpeg, a
 * timeout, an abort) stays as it was.
 */
function unreadable(error: unknown, clip: AudioClip, input: string): unknown {
  if (!(error instanceof ProgramError)) return error;
  const said = error.stderr.split("\n").map((line) => line.split(input).join("").trim())
    .map((line) => line.replace(/^:\s*/, ""))
    .filter(Boolean);
  return new UnreadableAudioError(clip.name ?? "the audio", said.at(-1)?.slice(0, 200) ?? "", {
    cause: error,
  });
}

/**
 * WAV audio in the format a client asked for, converted by ffmpeg unless
 * it is WAV already.
 */
export async function fromWav(
  wav: Uint8Array,
  format: SpeechFormat,
  signal?: AbortSignal,
): Promise<AudioClip> {
  if (format === "wav") return { bytes: wav, type: FORMAT_TYPES.wav };
  const { stdout } = await runProgram(
    ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-f", "wav", "-i", "pipe:0"]
      .concat(FFMPEG_OUTPUT[format], ["pipe:1"]),
    { stdin: wav, timeoutMs: CONVERT_TIMEOUT_MS, signal, purpose: `Speech as ${format}` },
  );
  return { bytes: stdout, type: FORMAT_TYPES[format] };
}

/** The length of a clip in seconds, where its header says (WAV); else null. */
export function durationOf(bytes: Uint8Array): number | null {
  return wavInfo(bytes)?.durationS ?? null;
}

/** ffmpeg writing WAV to a pipe cannot go back to fill in the sizes: they are set here. */
function fixStreamedWav(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 44) return bytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(4, bytes.length - 8, true);
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = String.fromCharCode(...bytes.subarray(at, at + 4));
    if (id === "data") {
      view.setUint32(at + 4, bytes.length - at - 8, true);
      break;
    }
    at += 8 + view.getUint32(at + 4, true);
  }
  return bytes;
}

/** Runs `use` with the bytes in a private temporary file, removed afterwards. */
export async function withTempFile<T>(
  bytes: Uint8Array,
  use: (path: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "hob-media-" });
  try {
    const path = join(dir, "input");
    await Deno.writeFile(path, bytes, { mode: 0o600 });
    return await use(path);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

function describe(clip: AudioClip): string {
  return clip.name ? `${clip.name} (${clip.type})` : `${clip.type} audio`;
}
