/**
 * `hob transcribe FILE` and `hob say TEXT`: the voice actions from the
 * terminal. They need only hob.yaml, so they load the configuration and the
 * speech providers, not the runtime.
 */

import { extname } from "node:path";
import { ActionError, checkInput } from "../app/errors.ts";
import { type SpeakInput, speakInput } from "../app/speech.ts";
import type { SpeechActions } from "../app/speech.ts";
import { loadConfig } from "../config/load.ts";
import { findProgram } from "../media/programs.ts";
import { mediaType } from "../app/uploads.ts";
import { type Command, CommandError, EXIT, type ParsedArgs, UsageError } from "./command.ts";
import { existingHome } from "./open.ts";
import { out, outJson } from "./output.ts";

/** What a player writes when it cannot play: ffplay, paplay and aplay say it in these words. */
const PLAYER_FAILURE = /fail|error|cannot|can't|unable|refused|no such/i;

/** Players tried, in order, when `hob say` has no `-o` and a terminal for output; each gets a file. */
const PLAYERS: string[][] = [
  ["ffplay", "-nodisp", "-autoexit", "-loglevel", "error"],
  ["paplay"],
  ["aplay", "-q"],
  ["afplay"],
];

export const transcribe: Command = {
  name: "transcribe",
  summary: "Turn speech in an audio file into text",
  help: `Usage: hob transcribe FILE [--language CODE] [--json] [--home DIR]

Transcribes an audio file (WAV, MP3, OGG/Opus, WebM, M4A, FLAC…) with the
speech-to-text provider of speech.transcribe in hob.yaml: an
OpenAI-compatible server or a local program (docs/voice.md has recipes for
whisper.cpp and pocketsphinx). Formats other than WAV need ffmpeg for a local
program. '-' reads the audio from stdin.

Options:
  --language CODE  the language spoken, e.g. en (default: the provider guesses)
  --json           print {text, language?, duration_s?}
  --home DIR       hob home (default: $HOB_HOME or ~/.hob)
  -h, --help       show this help`,
  options: { language: { type: "string" }, json: { type: "boolean" } },
  positionals: [1, 1],
  async run(parsed) {
    const [file] = parsed.positionals;
    const audio = file === "-" ? await readStdin() : await readAudio(file);
    const speech = await speechOf(parsed);
    const transcript = await acting("transcribe", () =>
      speech.transcribe({
        audio,
        type: mediaType(file),
        name: file === "-" ? undefined : file,
        language: parsed.values.language as string | undefined,
      }));
    if (parsed.values.json) outJson(transcript);
    else out(`${transcript.text}\n`);
    return EXIT.ok;
  },
};

export const say: Command = {
  name: "say",
  summary: "Speak text aloud, or into an audio file (-o FILE)",
  help: `Usage: hob say TEXT [-o FILE] [--voice NAME] [--format FORMAT] [--home DIR]

Speaks TEXT with the text-to-speech provider of speech.speak in hob.yaml: an
OpenAI-compatible server or a local program such as espeak-ng or piper.
With -o, writes the audio to FILE (its format from the extension: .mp3,
.wav, .ogg/.opus, .aac, .flac); without, plays it (ffplay, paplay, aplay or
afplay) — or writes it to stdout when that is not a terminal. '-' reads the
text from stdin.

Options:
  -o, --output FILE  write the audio here
  --voice NAME       the voice (default: speech.speak.voice)
  --format FORMAT    mp3, opus, aac, flac, wav or pcm (default: from -o, else wav)
  --home DIR         hob home (default: $HOB_HOME or ~/.hob)
  -h, --help         show this help`,
  options: {
    output: { type: "string", short: "o" },
    voice: { type: "string" },
    format: { type: "string" },
  },
  positionals: [1, 1],
  async run(parsed) {
    const text = parsed.positionals[0] === "-"
      ? new TextDecoder().decode(await readStdin())
      : parsed.positionals[0];
    const output = parsed.values.output as string | undefined;
    const input = sayInput(text, parsed, output);
    const speech = await speechOf(parsed);
    const audio = await acting("say", () => speech.speak(input));
    if (output) {
      await Deno.writeFile(output, audio.bytes);
      return EXIT.ok;
    }
    if (!Deno.stdout.isTerminal()) {
      await Deno.stdout.write(audio.bytes);
      return EXIT.ok;
    }
    await play(audio.bytes);
    return EXIT.ok;
  },
};

/** The speak action's input from the command line, checked before anything loads. */
function sayInput(text: string, parsed: ParsedArgs, output?: string): SpeakInput {
  const byExtension: Record<string, string> = {
    ".mp3": "mp3",
    ".wav": "wav",
    ".ogg": "opus",
    ".opus": "opus",
    ".oga": "opus",
    ".aac": "aac",
    ".flac": "flac",
    ".pcm": "pcm",
  };
  const format = (parsed.values.format as string | undefined) ??
    (output ? byExtension[extname(output).toLowerCase()] ?? "wav" : "wav");
  const input = { text, voice: parsed.values.voice as string | undefined, format };
  try {
    return checkInput(speakInput, input) as SpeakInput;
  } catch (error) {
    if (error instanceof ActionError) {
      const option = error.field === "text" ? "TEXT" : `--${error.field}`;
      throw new UsageError(`hob say: ${option}: ${error.message.replace(/^'\w+': /, "")}`);
    }
    throw error;
  }
}

/** The voice actions of the home, over its configuration alone. */
async function speechOf(parsed: ParsedArgs): Promise<SpeechActions> {
  const home = await existingHome(parsed);
  const [{ config }, { createSpeechActions }, { speechDeps }] = await Promise.all([
    loadConfig({ home }),
    import("../app/speech.ts"),
    import("../runtime/voice_deps.ts"),
  ]);
  return createSpeechActions(speechDeps(home, config));
}

/** Runs a voice action; its refusal is one line: exit 2 for bad input, else 1. */
async function acting<T>(command: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ActionError)) throw error;
    if (error.code === "invalid" && error.field) {
      // The audio is the FILE given, which the message names: the action's name for it is no help.
      const message = error.field === "audio"
        ? error.message.replace(/^'audio': /, "")
        : error.message;
      throw new UsageError(`hob ${command}: ${message}`);
    }
    throw new CommandError(error.message);
  }
}

async function readAudio(file: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new CommandError(`There is no file ${file}`);
    throw new CommandError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

async function readStdin(): Promise<Uint8Array> {
  return new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer());
}

/** Plays audio through the first player installed; says what to do when none is. */
async function play(bytes: Uint8Array): Promise<void> {
  const player = PLAYERS.find(([program]) => findProgram(program));
  if (!player) {
    throw new CommandError(
      "No audio player found (ffplay, paplay, aplay, afplay): write the audio with -o FILE",
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "hob-say-" });
  try {
    const file = `${dir}/speech.wav`;
    await Deno.writeFile(file, bytes);
    const { code, stderr } = await new Deno.Command(player[0], {
      args: [...player.slice(1), file],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    // With no sound device ffplay says so and still exits 0: what it says decides.
    const said = new TextDecoder().decode(stderr).trim().split("\n");
    const failure = said.findLast((line) => PLAYER_FAILURE.test(line));
    if (code !== 0 || failure) {
      throw new CommandError(
        `${player[0]} could not play the audio (${
          failure?.trim() || `exit ${code}`
        }) — is there a sound device? Write the audio with -o FILE instead`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
