/**
 * Telling audio from what is not: every kind hob says it reads, as ffmpeg
 * really writes it, is recognised by its first bytes and converted; a PDF, a
 * picture or text is not audio; and a file that looks like audio but is not
 * is refused by ffmpeg in one line naming the file, never hob's temporary one.
 */

import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import {
  AUDIO_KINDS,
  isSpeechWav,
  sniffAudio,
  toSpeechWav,
  UnreadableAudioError,
} from "../../src/media/audio.ts";
import { findProgram } from "../../src/media/programs.ts";

const ffmpeg = !!findProgram("ffmpeg");

/** Each kind in AUDIO_KINDS (AMR aside: Debian's ffmpeg cannot write it) and how ffmpeg writes it. */
const KINDS: { kind: string; extension: string; args: string[] }[] = [
  { kind: "WAV", extension: "wav", args: [] },
  { kind: "MP3", extension: "mp3", args: ["-c:a", "libmp3lame"] },
  // Without an ID3 tag an MP3 begins with its first frame.
  { kind: "MP3", extension: "mp3", args: ["-c:a", "libmp3lame", "-id3v2_version", "0"] },
  { kind: "Ogg/Opus", extension: "ogg", args: ["-c:a", "libopus"] },
  { kind: "FLAC", extension: "flac", args: [] },
  { kind: "WebM", extension: "webm", args: ["-c:a", "libopus"] },
  { kind: "M4A/MP4", extension: "m4a", args: ["-c:a", "aac"] },
  { kind: "M4A/MP4", extension: "mov", args: ["-c:a", "aac"] },
  { kind: "AAC", extension: "aac", args: ["-c:a", "aac"] },
  { kind: "AIFF", extension: "aiff", args: [] },
  { kind: "CAF", extension: "caf", args: [] },
  { kind: "WMA", extension: "wma", args: ["-c:a", "wmav2"] },
];

/** Half a second of a tone, written by ffmpeg in the container the extension names. */
async function written(extension: string, args: string[]): Promise<Uint8Array> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/tone.${extension}`;
    const { code, stderr } = await new Deno.Command("ffmpeg", {
      args: ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", ...args, file],
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    return await Deno.readFile(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "sniffAudio knows each kind hob says it reads, as ffmpeg writes them",
  ignore: !ffmpeg,
  async fn(t) {
    for (const { kind, extension, args } of KINDS) {
      await t.step(`${kind} (.${extension} ${args.join(" ")})`, async () => {
        assert(AUDIO_KINDS.includes(kind), `${kind} is not in AUDIO_KINDS`);
        const bytes = await written(extension, args);
        assert(sniffAudio(bytes), `${kind} was not recognised`);
        const wav = await toSpeechWav({ bytes, type: "application/octet-stream" });
        assert(isSpeechWav(wav), `${kind} was not converted to 16 kHz mono WAV`);
      });
    }
  },
});

Deno.test("sniffAudio finds no audio in a PDF, a picture, text or nothing", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  assertEquals(sniffAudio(encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n")), null);
  assertEquals(sniffAudio(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), null);
  assertEquals(sniffAudio(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46])), null);
  assertEquals(sniffAudio(encode("Remember the milk.\n")), null);
  assertEquals(sniffAudio(encode("#EXTM3U\n#EXTINF:10,\nfile:///etc/passwd\n")), null);
  assertEquals(sniffAudio(new Uint8Array(0)), null);
  // AMR's header, which Debian's ffmpeg reads but cannot write.
  assertEquals(sniffAudio(encode("#!AMR\n\x3c")), "audio/amr");
});

Deno.test({
  name: "toSpeechWav refuses what ffmpeg cannot read in one line naming the clip",
  ignore: !ffmpeg,
  async fn() {
    // Ogg's first bytes, then nothing an Ogg file holds.
    const bytes = new Uint8Array(4096);
    bytes.set(new TextEncoder().encode("OggS"));
    for (let i = 4; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
    const error = await assertRejects(() =>
      toSpeechWav({ bytes, type: "audio/ogg", name: "memo.ogg" })
    );
    assert(error instanceof UnreadableAudioError, String(error));
    assert(
      error.message.startsWith("memo.ogg could not be read as audio (ffmpeg: "),
      error.message,
    );
    assert(!error.message.includes("hob-media-"), error.message);
    assert(!error.message.includes("\n"), error.message);
  },
});
