/**
 * Voice over HTTP: OpenAI's audio API at `/v1/audio/transcriptions`
 * (multipart, answered as `json`, `text`, `verbose_json`, `srt` or `vtt`)
 * and `/v1/audio/speech` (JSON in, audio out), so any OpenAI client gets
 * voice through hob; and `GET /api/speech`, what this hob can hear and say.
 * Translators over the voice actions (src/app/speech.ts). A client's
 * `model` and `voice` names are taken as OpenAI's: the model is whatever
 * hob.yaml configures, so `whisper-1` and `tts-1` work with any provider.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { speakInput } from "../app/speech.ts";
import type { Hob } from "../app/hob.ts";
import { actAsync, ApiError } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { readForm, readJson } from "./validate.ts";

const capability = z.object({
  available: z.boolean(),
  by: z.string().optional(),
  detail: z.string(),
});

/** The routes below under /api, as the OpenAPI document lists them. */
export const speechRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/speech",
    tag: "speech",
    summary:
      "What this hob can hear and say: speech to text, text to speech, audio conversion, video",
    response: {
      description: "Each capability, by what, or why not",
      schema: z.object({
        transcribe: capability,
        speak: capability,
        convert: capability,
        video: capability,
      }),
    },
  },
];

/** OpenAI's speech request; `model` is accepted and the configured one used. */
const speechBody = z.looseObject({
  model: z.string().min(1).max(200),
  input: speakInput.shape.text,
  voice: z.union([z.string().min(1).max(100), z.looseObject({ id: z.string().min(1) })])
    .optional(),
  response_format: speakInput.shape.format,
  speed: speakInput.shape.speed,
});
/** The `voice` OpenAI's clients send for "the default": hob uses speech.speak.voice instead. */
const OPENAI_VOICES = new Set([
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "nova",
  "onyx",
  "sage",
  "shimmer",
  "verse",
]);
const TRANSCRIPT_FORMATS = ["json", "text", "verbose_json", "srt", "vtt"] as const;

/** `GET /api/speech`. */
export function speechRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get("/speech", (c) => c.json(hob.app.speech.capabilities()));
  return routes;
}

/**
 * `/v1/audio`: OpenAI's transcription and speech endpoints.
 *
 * @example
 * ```ts
 * api.route("/v1/audio", audioRoutes(hob));
 * ```
 */
export function audioRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.post("/transcriptions", (c) => transcription(c, hob));
  routes.post("/translations", () => {
    throw new ApiError(
      400,
      "unsupported",
      "hob does not translate audio; transcribe it and ask hob to translate the text",
    );
  });
  routes.post("/speech", async (c) => {
    const body = await readJson(c, speechBody);
    const voice = typeof body.voice === "string" ? body.voice : body.voice?.id;
    const configured = hob.config.speech.speak;
    // An OpenAI voice name sent to another provider means "the default voice".
    const chosen = voice && (!OPENAI_VOICES.has(voice) || configured?.provider === "openai")
      ? voice
      : undefined;
    const controller = abortWithClient(c);
    const audio = await actAsync(() =>
      hob.app.speech.speak(
        { text: body.input, voice: chosen, format: body.response_format, speed: body.speed },
        controller.signal,
      )
    );
    c.header("Content-Type", audio.type);
    return c.body(audio.bytes as Uint8Array<ArrayBuffer>);
  });
  return routes;
}

/** `POST /v1/audio/transcriptions`: the multipart form read, the action called, the answer shaped. */
async function transcription(c: Context, hob: Hob): Promise<Response> {
  if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
    throw new ApiError(415, "unsupported_media_type", "Send the audio as multipart/form-data");
  }
  const form = await readForm(c);
  const file = form.file;
  if (!(file instanceof File)) {
    throw new ApiError(400, "invalid_request", "No audio file in the field 'file'", "file");
  }
  const text = (name: string) => typeof form[name] === "string" ? form[name] as string : undefined;
  if (!text("model")) throw new ApiError(400, "invalid_request", "'model' is required", "model");
  const format = text("response_format") ?? "json";
  if (!(TRANSCRIPT_FORMATS as readonly string[]).includes(format)) {
    throw new ApiError(
      400,
      "invalid_request",
      `'response_format' must be one of ${TRANSCRIPT_FORMATS.join(", ")}`,
      "response_format",
    );
  }
  const controller = abortWithClient(c);
  const transcript = await actAsync(async () =>
    hob.app.speech.transcribe({
      audio: new Uint8Array(await file.arrayBuffer()),
      type: file.type || "application/octet-stream",
      name: file.name,
      language: text("language") || undefined,
      prompt: text("prompt") || undefined,
    }, controller.signal)
  ).catch((error) => {
    // The action's audio is this form's field 'file'.
    if (error instanceof ApiError && error.field === "audio") {
      throw new ApiError(400, error.code, error.message.replace(/^'audio'/, "'file'"), "file");
    }
    throw error;
  });
  const duration = transcript.duration_s ?? 0;
  switch (format) {
    case "text":
      return c.text(transcript.text);
    case "srt":
      return c.text(
        `1\n${timestamp(0, ",")} --> ${timestamp(duration, ",")}\n${transcript.text}\n`,
      );
    case "vtt":
      return c.text(
        `WEBVTT\n\n${timestamp(0, ".")} --> ${timestamp(duration, ".")}\n${transcript.text}\n`,
        200,
        { "Content-Type": "text/vtt; charset=UTF-8" },
      );
    case "verbose_json":
      return c.json({
        task: "transcribe",
        language: transcript.language ?? text("language") ?? "unknown",
        duration,
        text: transcript.text,
        segments: [{ id: 0, seek: 0, start: 0, end: duration, text: transcript.text }],
      });
    default:
      return c.json({ text: transcript.text });
  }
}

/** An abort controller that fires when the client goes away. */
function abortWithClient(c: Context): AbortController {
  const controller = new AbortController();
  c.req.raw.signal.addEventListener("abort", () => controller.abort());
  return controller;
}

/** `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT). */
function timestamp(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${
    pad(Math.floor(ms / 1000) % 60)
  }${separator}${pad(ms % 1000, 3)}`;
}
