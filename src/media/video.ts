/**
 * `extractVideoFrames`: evenly spaced frames of a video, as JPEG images a
 * model can look at, by `ffprobe` (the length) and `ffmpeg` (one frame per
 * seek). Only container formats of real videos are read (no playlists or
 * concat lists, which would name other files) and only from local files.
 */

import { MissingProgramError, runProgram } from "./programs.ts";

/** Demuxers ffmpeg may use: video containers, never playlists or lists of other files. */
const FORMATS = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,flv,mpegts,mpeg,ogg,gif,asf";
const INPUT = ["-format_whitelist", FORMATS, "-protocol_whitelist", "file"];
/** Longest one ffprobe or ffmpeg run may take. */
const STEP_TIMEOUT_MS = 30_000;

/** One frame: where in the video, and the JPEG. */
export interface VideoFrame {
  /** Seconds from the start. */
  at: number;
  jpeg: Uint8Array;
}

/** What the video is and the frames taken from it. */
export interface ExtractedFrames {
  duration_s: number;
  width: number;
  height: number;
  frames: VideoFrame[];
}

/** How many frames, and how wide at most. */
export interface FrameOptions {
  count: number;
  maxWidth: number;
  signal?: AbortSignal;
}

/**
 * `count` frames spaced evenly through the video at `path` (each at the
 * middle of its share of the video), scaled down to `maxWidth`.
 *
 * @example
 * ```ts
 * const { frames } = await extractVideoFrames("/work/clip.mp4", { count: 6, maxWidth: 768 });
 * ```
 */
export async function extractVideoFrames(
  path: string,
  options: FrameOptions,
): Promise<ExtractedFrames> {
  const info = await probe(path, options.signal);
  const count = Math.max(1, Math.min(options.count, Math.ceil(info.duration_s * 4) || 1));
  const frames: VideoFrame[] = [];
  for (let index = 0; index < count; index++) {
    const at = Math.round(info.duration_s * (index + 0.5) / count * 1000) / 1000;
    const jpeg = await frameAt(path, at, options);
    if (jpeg.length > 0) frames.push({ at, jpeg });
  }
  if (frames.length === 0) throw new Error(`ffmpeg found no frames in ${path}`);
  return { ...info, frames };
}

/** The video's length and size, from ffprobe. */
async function probe(
  path: string,
  signal?: AbortSignal,
): Promise<Omit<ExtractedFrames, "frames">> {
  const output = await run("ffprobe", [
    "-v",
    "error",
    ...INPUT,
    "-select_streams",
    "v:0",
    "-show_entries",
    "format=duration:stream=width,height",
    "-of",
    "json",
    path,
  ], signal);
  const parsed = JSON.parse(new TextDecoder().decode(output)) as {
    streams?: { width?: number; height?: number }[];
    format?: { duration?: string };
  };
  const stream = parsed.streams?.[0];
  if (!stream?.width) throw new Error(`${path} has no video stream`);
  return {
    duration_s: Number(parsed.format?.duration) || 0,
    width: stream.width,
    height: stream.height ?? 0,
  };
}

/** One frame at `at` seconds as a JPEG. */
async function frameAt(path: string, at: number, options: FrameOptions): Promise<Uint8Array> {
  return await run("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    ...INPUT,
    "-ss",
    String(at),
    "-i",
    path,
    "-frames:v",
    "1",
    "-vf",
    `scale='min(${options.maxWidth},iw)':-2`,
    "-f",
    "image2pipe",
    "-c:v",
    "mjpeg",
    "-q:v",
    "4",
    "pipe:1",
  ], options.signal);
}

/** Runs ffprobe or ffmpeg; a missing program or a failure is an Error that says what to do. */
async function run(program: string, args: string[], signal?: AbortSignal): Promise<Uint8Array> {
  try {
    const { stdout } = await runProgram([program, ...args], {
      timeoutMs: STEP_TIMEOUT_MS,
      signal,
      purpose: "Looking at videos",
    });
    return stdout;
  } catch (error) {
    if (error instanceof MissingProgramError || signal?.aborted) throw error;
    const why = (error as Error).message.replace(/^\S+ failed \(exit \d+\):?\s*/, "");
    throw new Error(`${program} could not read the video${why ? `: ${why}` : ""}`);
  }
}
