/**
 * What hob can do with sound and pictures on this machine, and why not:
 * for `hob doctor`, `hob status`, `GET /api/speech` and the page.
 */

import type { HobConfig } from "../config/schema.ts";
import { findProgram, MissingProgramError } from "./programs.ts";
import { configuredSpeaker, configuredTranscriber } from "./speech.ts";

/** One capability: whether it works, by what, and a line that says so or says why not. */
export interface Capability {
  available: boolean;
  /** The provider or program that does it. */
  by?: string;
  detail: string;
}

/** hob's speech and video capabilities. */
export interface MediaCapabilities {
  /** Speech to text. */
  transcribe: Capability;
  /** Text to speech on the server (the page falls back to the browser's voice). */
  speak: Capability;
  /** Converting audio between formats (`ffmpeg`). */
  convert: Capability;
  /** Frames from videos for a model that sees (`ffmpeg` and `ffprobe`). */
  video: Capability;
}

/**
 * The capabilities of a configuration on this machine; looks at PATH, runs nothing.
 *
 * @example
 * ```ts
 * const { transcribe } = mediaCapabilities(config);
 * if (!transcribe.available) console.log(transcribe.detail);
 * ```
 */
export function mediaCapabilities(config: HobConfig): MediaCapabilities {
  const ffmpeg = findProgram("ffmpeg");
  const ffprobe = findProgram("ffprobe");
  const convert: Capability = ffmpeg
    ? { available: true, by: ffmpeg, detail: `ffmpeg at ${ffmpeg}` }
    : { available: false, detail: new MissingProgramError("ffmpeg", "Audio conversion").message };
  const transcriber = configuredTranscriber(config);
  const transcribe: Capability = transcriber.provider
    ? {
      available: true,
      by: transcriber.provider.label,
      detail: config.speech.transcribe?.provider === "command" && !ffmpeg
        ? `${transcriber.provider.label}, WAV (16 kHz mono) only until ffmpeg is installed`
        : transcriber.provider.label,
    }
    : { available: false, detail: transcriber.problem };
  const speaker = configuredSpeaker(config);
  const speak: Capability = speaker.provider
    ? { available: true, by: speaker.provider.label, detail: speaker.provider.label }
    : { available: false, detail: speaker.problem };
  const missing = !ffmpeg ? "ffmpeg" : !ffprobe ? "ffprobe" : null;
  const video: Capability = missing
    ? { available: false, detail: new MissingProgramError(missing, "analyze_video").message }
    : {
      available: true,
      by: "ffmpeg",
      detail: "analyze_video sends key frames to the model (which must read images)",
    };
  return { transcribe, speak, convert, video };
}
