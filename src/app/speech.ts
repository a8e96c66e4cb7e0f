/**
 * The voice actions — transcribe audio, speak text, say what this hob can
 * hear and say — each defined once: `/v1/audio/*`, `GET /api/speech`, the
 * page, `hob transcribe` / `hob say`, the channels and the turn (audio sent
 * with a message) are translators over these. A missing provider or program
 * is an `unavailable` refusal that says what to set or install; a file that
 * is not audio hob can read is `invalid` input naming `audio`; a provider
 * that fails is `failed`.
 */

import type { Token, Tokens } from "marked";
import { z } from "zod";
import type { Attachment } from "../core/types.ts";
import type { AudioClip } from "../media/audio.ts";
import { AUDIO_KINDS, sniffAudio, SPEECH_FORMATS, UnreadableAudioError } from "../media/audio.ts";
import type { MediaCapabilities } from "../media/capabilities.ts";
import { MissingProgramError } from "../media/programs.ts";
import {
  type Configured,
  MAX_SPEECH_CHARS,
  SpeechError,
  type SpeechToText,
  type TextToSpeech,
  type Transcript,
} from "../media/speech.ts";
import { ActionError, checkInput } from "./errors.ts";

/** Largest audio one transcription takes, in bytes (OpenAI's limit). */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/** Audio to transcribe. */
export const transcribeInput = z.object({
  audio: z.custom<Uint8Array>((value) => value instanceof Uint8Array, "expected audio bytes")
    .refine((bytes) => bytes.byteLength > 0, "is empty")
    .refine((bytes) => bytes.byteLength <= MAX_AUDIO_BYTES, `is larger than 25 MB`),
  type: z.string().max(200).default("application/octet-stream")
    .describe("The audio's media type"),
  name: z.string().max(300).optional(),
  language: z.string().regex(/^[a-z]{2,3}$/, "expected an ISO 639-1 code such as 'en'")
    .optional().describe("The language spoken (ISO 639-1); by default the provider guesses"),
  prompt: z.string().max(2_000).optional()
    .describe("Words to expect (names, jargon), for providers that take one"),
});
/** Text to speak. */
export const speakInput = z.strictObject({
  text: z.string().trim().min(1, "must not be empty").max(MAX_SPEECH_CHARS)
    .describe("What to say"),
  // A command provider may put the voice on its command line: it must not read as an option.
  voice: z.string().min(1).max(100).regex(/^[A-Za-z0-9][\w.:+@-]*$/, "expected a voice name")
    .refine((voice) => !voice.includes(".."), "expected a voice name")
    .optional().describe("The voice; by default speech.speak.voice"),
  format: z.enum(SPEECH_FORMATS).default("mp3").describe("The audio format"),
  speed: z.number().min(0.25).max(4).optional().describe("1 is normal"),
});

export type TranscribeInput = z.input<typeof transcribeInput>;
export type SpeakInput = z.input<typeof speakInput>;

/** What the voice actions work on: the configured providers and what the machine has. */
export interface SpeechDeps {
  transcriber(): Configured<SpeechToText>;
  speaker(): Configured<TextToSpeech>;
  capabilities(): MediaCapabilities;
  /** An upload's bytes, by its home-relative path. */
  readUpload(path: string): Promise<Uint8Array>;
}

/** The voice actions. */
export interface SpeechActions {
  /** `unavailable` without a provider, `failed` when it fails, `invalid` for bad input or no audio. */
  transcribe(input: TranscribeInput, signal?: AbortSignal): Promise<Transcript>;
  speak(input: SpeakInput, signal?: AbortSignal): Promise<AudioClip>;
  capabilities(): MediaCapabilities;
  /**
   * The attachments with each audio file's transcript (or why there is
   * none) filled in: audio sent with a message is heard before the turn.
   */
  hear(attachments: Attachment[], signal?: AbortSignal): Promise<Attachment[]>;
}

/**
 * The voice actions over the configured providers.
 *
 * @example
 * ```ts
 * const speech = createSpeechActions({ transcriber, speaker, capabilities, readUpload });
 * const { text } = await speech.transcribe({ audio: bytes, type: "audio/ogg" });
 * ```
 */
export function createSpeechActions(deps: SpeechDeps): SpeechActions {
  const transcribe: SpeechActions["transcribe"] = async (input, signal) => {
    const { audio, type, name, language, prompt } = checkInput(transcribeInput, input);
    // Refused before any provider or program sees it: a PDF is no one's audio.
    if (!sniffAudio(audio)) {
      throw new ActionError(
        "invalid",
        `'audio': ${name ?? "the file"} is not audio hob can read — it reads ${AUDIO_KINDS}`,
        { field: "audio" },
      );
    }
    const provider = ready(deps.transcriber());
    return await failing(() =>
      provider.transcribe({ bytes: audio, type, name }, { language, prompt, signal })
    );
  };
  return {
    transcribe,
    async speak(input, signal) {
      const { text, voice, format, speed } = checkInput(speakInput, input);
      const provider = ready(deps.speaker());
      return await failing(() => provider.speak(text, { voice, format, speed, signal }));
    },
    capabilities: () => deps.capabilities(),
    async hear(attachments, signal) {
      const heard: Attachment[] = [];
      for (const attachment of attachments) {
        if (!attachment.type.startsWith("audio/") || attachment.transcript !== undefined) {
          heard.push(attachment);
          continue;
        }
        try {
          const audio = await deps.readUpload(attachment.path);
          const { text } = await transcribe(
            { audio, type: attachment.type, name: attachment.name },
            signal,
          );
          heard.push({ ...attachment, transcript: text });
        } catch (error) {
          if (signal?.aborted) throw error;
          heard.push({ ...attachment, transcript_problem: (error as Error).message });
        }
      }
      return heard;
    },
  };
}

/** The provider, or the `unavailable` refusal that says what to set up. */
function ready<T>(configured: Configured<T>): T {
  if (configured.provider) return configured.provider;
  throw new ActionError("unavailable", configured.problem ?? "not configured");
}

/** Runs a provider call; what it cannot do or fails at becomes an {@linkcode ActionError}. */
async function failing<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof MissingProgramError) {
      throw new ActionError("unavailable", error.message, { cause: error });
    }
    if (error instanceof UnreadableAudioError) {
      throw new ActionError("invalid", `'audio': ${error.message} — hob reads ${AUDIO_KINDS}`, {
        field: "audio",
        cause: error,
      });
    }
    if (error instanceof SpeechError && error.status === 400) {
      throw new ActionError("invalid", error.message, { cause: error });
    }
    if (error instanceof Error && error.name !== "AbortError") {
      throw new ActionError("failed", error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * What of a Markdown reply is worth saying aloud: its words, without the
 * marks, code blocks and link addresses a listener cannot use; at most
 * {@linkcode MAX_SPEECH_CHARS} characters.
 *
 * @example
 * ```ts
 * await speakable("**Done.** See [the notes](https://x.y/z)."); // "Done. See the notes."
 * ```
 */
export async function speakable(markdown: string): Promise<string> {
  const { Lexer } = await import("marked");
  const words = (tokens: Token[]): string =>
    tokens.map((token) => {
      if (token.type === "code") return "\n(code not read out)\n";
      if (token.type === "space" || token.type === "hr" || token.type === "br") return "\n";
      if (token.type === "list") {
        return (token as Tokens.List).items.map((item) => words(item.tokens)).join("\n") + "\n";
      }
      if (token.type === "table") return "\n(a table, not read out)\n";
      if (token.type === "html") return "";
      const nested = (token as { tokens?: Token[] }).tokens;
      const text = nested ? words(nested) : (token as { text?: string }).text ?? "";
      return token.type === "paragraph" || token.type === "heading" ? `${text}\n` : text;
    }).join("");
  return words(Lexer.lex(markdown)).replace(/[ \t]+/g, " ").replace(/\n\s*\n+/g, "\n").trim()
    .slice(0, MAX_SPEECH_CHARS);
}
