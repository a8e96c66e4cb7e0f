/**
 * Speech behind two ports — speech to text and text to speech — each with
 * two kinds of provider: an OpenAI-compatible server (`/audio/transcriptions`,
 * `/audio/speech`: OpenAI, Groq, a whisper.cpp server, speaches,
 * Kokoro-FastAPI) and a local program run per request (whisper-cli,
 * pocketsphinx, espeak-ng, piper). Which one `speech:` in hob.yaml names is
 * built here; what is missing is said, never guessed around.
 */

import type { HobConfig } from "../config/schema.ts";
import type { ProviderConfig } from "../config/providers.ts";
import {
  type AudioClip,
  durationOf,
  FORMAT_TYPES,
  fromWav,
  type SpeechFormat,
  toSpeechWav,
  withTempFile,
} from "./audio.ts";
import { findProgram, MissingProgramError, runProgram } from "./programs.ts";

/** Longest text one request speaks, in characters (OpenAI's limit). */
export const MAX_SPEECH_CHARS = 4_096;

/** What a transcription gives. */
export interface Transcript {
  text: string;
  /** The language, where the provider says. */
  language?: string;
  /** The audio's length in seconds, where known. */
  duration_s?: number;
}

/** Options for one transcription. */
export interface TranscribeOptions {
  /** ISO 639-1 language of the speech; the configured one, else the provider guesses. */
  language?: string;
  /** Words to expect (names, jargon), for providers that take a prompt. */
  prompt?: string;
  signal?: AbortSignal;
}

/** Options for speaking one text. */
export interface SpeakOptions {
  voice?: string;
  format: SpeechFormat;
  /** 0.25–4, 1 the provider's normal pace. */
  speed?: number;
  signal?: AbortSignal;
}

/** Speech to text. */
export interface SpeechToText {
  /** How status names it: `openai/whisper-1`, `command: pocketsphinx_continuous`. */
  readonly label: string;
  transcribe(clip: AudioClip, options?: TranscribeOptions): Promise<Transcript>;
}

/** Text to speech. */
export interface TextToSpeech {
  readonly label: string;
  speak(text: string, options: SpeakOptions): Promise<AudioClip>;
}

/** Raised for speech hob cannot do or a provider refused; the message says what to change. */
export class SpeechError extends Error {
  override name = "SpeechError";
  constructor(message: string, readonly status = 502, options?: ErrorOptions) {
    super(message, options);
  }
}

/** One direction of speech as configured: the provider, or why there is none. */
export type Configured<T> = { provider: T; problem?: undefined } | {
  provider?: undefined;
  problem: string;
};

type TranscribeConfig = NonNullable<HobConfig["speech"]["transcribe"]>;
type SpeakConfig = NonNullable<HobConfig["speech"]["speak"]>;

/**
 * The speech-to-text provider hob.yaml names, or why there is none.
 *
 * @example
 * ```ts
 * const { provider, problem } = configuredTranscriber(config);
 * if (provider) console.log((await provider.transcribe(clip)).text);
 * ```
 */
export function configuredTranscriber(config: HobConfig): Configured<SpeechToText> {
  const settings = config.speech.transcribe;
  if (!settings) {
    return {
      problem:
        "no speech-to-text provider: set speech.transcribe in hob.yaml (docs/voice.md has recipes for OpenAI, Groq, whisper.cpp and pocketsphinx)",
    };
  }
  if (settings.provider === "command") {
    const problem = missingProgram(settings.command!, "speech.transcribe.command");
    return problem ? { problem } : { provider: commandTranscriber(settings) };
  }
  const provider = httpProvider(config, settings.provider, "speech.transcribe.provider");
  return typeof provider === "string"
    ? { problem: provider }
    : { provider: openAiTranscriber(provider, settings) };
}

/** The text-to-speech provider hob.yaml names, or why there is none. */
export function configuredSpeaker(config: HobConfig): Configured<TextToSpeech> {
  const settings = config.speech.speak;
  if (!settings) {
    return {
      problem:
        "no text-to-speech provider: set speech.speak in hob.yaml (the page speaks with the browser's voice meanwhile)",
    };
  }
  if (settings.provider === "command") {
    const problem = missingProgram(settings.command!, "speech.speak.command");
    return problem ? { problem } : { provider: commandSpeaker(settings) };
  }
  const provider = httpProvider(config, settings.provider, "speech.speak.provider");
  return typeof provider === "string"
    ? { problem: provider }
    : { provider: openAiSpeaker(provider, settings) };
}

/** An OpenAI-compatible provider by name, or why it cannot serve speech. */
function httpProvider(config: HobConfig, name: string, key: string): ProviderConfig | string {
  const provider = config.providers[name];
  if (!provider) return `${key} names '${name}', which is not in providers`;
  if (provider.type !== "openai" || !provider.base_url) {
    return `${key} names '${name}', whose type is ${provider.type}: speech needs an OpenAI-compatible provider`;
  }
  return provider;
}

function missingProgram(command: string[], key: string): string | null {
  if (findProgram(command[0])) return null;
  return `${key}: ${new MissingProgramError(command[0], "This speech command").message}`;
}

/** Speech to text through `POST {base_url}/audio/transcriptions` (multipart, OpenAI's format). */
export function openAiTranscriber(
  provider: ProviderConfig,
  settings: TranscribeConfig,
): SpeechToText {
  return {
    label: `${provider.name}/${settings.model}`,
    async transcribe(clip, options = {}) {
      // The formats OpenAI's endpoint takes go as they are; anything else as WAV.
      const sendable =
        /^audio\/(wav|x-wav|mpeg|mp3|mp4|m4a|x-m4a|ogg|webm|flac)$|^video\/(mp4|webm)$/
          .test(clip.type.split(";")[0]);
      const bytes = sendable ? clip.bytes : await toSpeechWav(clip, options.signal);
      const type = sendable ? clip.type : "audio/wav";
      const form = new FormData();
      form.append(
        "file",
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type }),
        sendable ? clip.name ?? `audio.${extensionOf(type)}` : "audio.wav",
      );
      form.append("model", settings.model);
      form.append("response_format", "json");
      const language = options.language ?? settings.language;
      if (language) form.append("language", language);
      if (options.prompt) form.append("prompt", options.prompt);
      const response = await request(provider, "/audio/transcriptions", {
        body: form,
        timeoutS: settings.timeout_s,
        signal: options.signal,
      });
      const body = await response.json().catch(() => null) as
        | { text?: unknown; language?: unknown; duration?: unknown }
        | null;
      if (typeof body?.text !== "string") {
        throw new SpeechError(`${provider.name} answered a transcription without text`);
      }
      return {
        text: body.text.trim(),
        ...(typeof body.language === "string" ? { language: body.language } : {}),
        ...(typeof body.duration === "number"
          ? { duration_s: body.duration }
          : durationField(bytes)),
      };
    },
  };
}

/** Text to speech through `POST {base_url}/audio/speech` (JSON in, audio bytes out). */
export function openAiSpeaker(provider: ProviderConfig, settings: SpeakConfig): TextToSpeech {
  return {
    label: `${provider.name}/${settings.model}`,
    async speak(text, options) {
      const response = await request(provider, "/audio/speech", {
        json: {
          model: settings.model,
          input: text,
          voice: options.voice ?? settings.voice,
          response_format: options.format,
          ...(options.speed ? { speed: options.speed } : {}),
        },
        timeoutS: settings.timeout_s,
        signal: options.signal,
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length === 0) throw new SpeechError(`${provider.name} answered with no audio`);
      return { bytes, type: FORMAT_TYPES[options.format] };
    },
  };
}

/** Sends one request to a provider; a refusal becomes a {@linkcode SpeechError} with its message. */
async function request(
  provider: ProviderConfig,
  path: string,
  init: { body?: FormData; json?: unknown; timeoutS: number; signal?: AbortSignal },
): Promise<Response> {
  const timeout = AbortSignal.timeout(init.timeoutS * 1000);
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.api_key) headers.authorization = `Bearer ${provider.api_key}`;
  if (init.json) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`${provider.base_url!.replace(/\/+$/, "")}${path}`, {
      method: "POST",
      headers,
      body: init.json ? JSON.stringify(init.json) : init.body,
      signal: init.signal ? AbortSignal.any([timeout, init.signal]) : timeout,
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const why = timeout.aborted ? `no answer in ${init.timeoutS} s` : (error as Error).message;
    throw new SpeechError(`Could not reach ${provider.name} for speech: ${why}`, 502, {
      cause: error,
    });
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => "");
  let message = text.slice(0, 300);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string };
    message = typeof parsed.error === "string" ? parsed.error : parsed.error?.message ?? message;
  } catch {
    // Not JSON: the text itself.
  }
  throw new SpeechError(
    `${provider.name} refused the speech request (HTTP ${response.status})${
      message ? `: ${message}` : ""
    }`,
    // The request's own faults are the caller's; a key refused or a model not found is hob's setup.
    [400, 413, 415, 422].includes(response.status) ? 400 : 502,
  );
}

/**
 * Speech to text by a local program: the audio as 16 kHz mono WAV in a
 * temporary file named by `{input}`; the text is what it prints (lines
 * joined), or what it writes to `{output}` when the argv names that.
 */
export function commandTranscriber(settings: TranscribeConfig): SpeechToText {
  const argv = settings.command!;
  return {
    label: `command: ${argv[0]}`,
    async transcribe(clip, options = {}) {
      const wav = await toSpeechWav(clip, options.signal);
      return await withTempFile(wav, async (input) => {
        const output = `${input}.txt`;
        const filled = fill(argv, {
          input,
          output,
          language: options.language ?? settings.language ?? "en",
        });
        const { stdout } = await runProgram(filled, {
          timeoutMs: settings.timeout_s * 1000,
          signal: options.signal,
          purpose: "Speech to text",
        });
        const raw = argv.some((arg) => arg.includes("{output}"))
          ? await Deno.readTextFile(output)
          : new TextDecoder().decode(stdout);
        return { text: joinLines(raw), ...durationField(wav) };
      });
    },
  };
}

/**
 * Text to speech by a local program: the text on its stdin (or as `{text}`),
 * WAV from `{output}` (or its stdout), converted to the format asked for.
 */
export function commandSpeaker(settings: SpeakConfig): TextToSpeech {
  const argv = settings.command!;
  return {
    label: `command: ${argv[0]}`,
    async speak(text, options) {
      const dir = await Deno.makeTempDir({ prefix: "hob-speech-" });
      try {
        const output = `${dir}/speech.wav`;
        const named = argv.some((arg) => arg.includes("{text}"));
        // As one argument, a text that starts with '-' would read as an option.
        const spoken = text.startsWith("-") ? ` ${text}` : text;
        const filled = fill(argv, { output, text: spoken, voice: options.voice ?? settings.voice });
        const { stdout } = await runProgram(filled, {
          stdin: named ? undefined : new TextEncoder().encode(text),
          timeoutMs: settings.timeout_s * 1000,
          signal: options.signal,
          purpose: "Text to speech",
        });
        const wav = argv.some((arg) => arg.includes("{output}"))
          ? await Deno.readFile(output)
          : stdout;
        if (wav.length === 0) throw new SpeechError(`${argv[0]} wrote no audio`);
        return await fromWav(wav, options.format, options.signal);
      } finally {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };
}

/** The argv with each `{name}` replaced by its value, within any argument. */
function fill(argv: string[], values: Record<string, string>): string[] {
  return argv.map((arg) =>
    arg.replace(
      /\{(input|output|text|voice|language)\}/g,
      (whole, name: string) => values[name] ?? whole,
    )
  );
}

/** A program's transcript: lines joined, timestamps like whisper's `[00:00.000 --> …]` dropped. */
function joinLines(raw: string): string {
  return raw.split(/\r?\n/)
    .map((line) => line.replace(/^\s*\[[\d:.]+\s*-->\s*[\d:.]+\]\s*/, "").trim())
    .filter(Boolean)
    .join(" ");
}

function durationField(bytes: Uint8Array): { duration_s?: number } {
  const duration = durationOf(bytes);
  return duration === null ? {} : { duration_s: Math.round(duration * 100) / 100 };
}

function extensionOf(type: string): string {
  const subtype = type.split(";")[0].split("/")[1] ?? "bin";
  return { mpeg: "mp3", "x-wav": "wav", "x-m4a": "m4a", mp4: "m4a" }[subtype] ?? subtype;
}
