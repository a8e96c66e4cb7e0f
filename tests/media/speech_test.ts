/**
 * The speech providers against a stand-in OpenAI-compatible server speaking
 * the real wire formats (multipart in, JSON out; JSON in, audio out), and
 * what the capabilities say when something is missing.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createSpeechActions } from "../../src/app/speech.ts";
import { ActionError } from "../../src/app/errors.ts";
import { speechDeps } from "../../src/runtime/voice_deps.ts";
import { mediaCapabilities } from "../../src/media/capabilities.ts";
import { wavInfo } from "../../src/media/audio.ts";
import { startFakeSpeech, toneWav } from "../fakes/speech_server.ts";
import { tempHome } from "../helpers/home.ts";

/** The ActionError `fn` rejects with; fails when it resolves or rejects with anything else. */
async function refused(fn: () => Promise<unknown>): Promise<ActionError> {
  const error = await assertRejects(fn);
  assert(error instanceof ActionError, `expected an ActionError, got ${error}`);
  return error;
}

async function speechFor(yaml: string) {
  const home = await tempHome(yaml);
  const { config } = await loadConfig({ home: home.home, env: {} });
  return { home, config, speech: createSpeechActions(speechDeps(home.home, config)) };
}

function remoteYaml(url: string): string {
  return `providers:
  voice: { type: openai, base_url: "${url}", api_key: sk-voice }
speech:
  transcribe: { provider: voice, model: whisper-large-v3, language: en }
  speak: { provider: voice, model: kokoro, voice: af_bella }
`;
}

Deno.test("an OpenAI-compatible speech provider gets OpenAI's wire format", async (t) => {
  await using fake = startFakeSpeech({ key: "sk-voice", fallback: "turn off the lights" });
  const { home, speech } = await speechFor(remoteYaml(fake.url));
  await using _home = home;

  await t.step("a transcription is a multipart form with the file as sent", async () => {
    const ogg = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 1, 2, 3, 4]);
    const transcript = await speech.transcribe({ audio: ogg, type: "audio/ogg", name: "v.ogg" });
    assertEquals(transcript, { text: "turn off the lights", language: "en", duration_s: 1.5 });
    const [heard] = fake.transcriptions;
    assertEquals(heard.authorization, "Bearer sk-voice");
    assertEquals(heard.model, "whisper-large-v3");
    assertEquals(heard.language, "en");
    assertEquals(heard.response_format, "json");
    assertEquals(heard.file.name, "v.ogg");
    assertEquals(heard.file.type, "audio/ogg");
    assertEquals([...heard.file.bytes], [...ogg]);
  });

  await t.step("speech is JSON in, the audio's bytes out, in the format asked", async () => {
    const audio = await speech.speak({ text: "Hello there.", format: "opus" });
    assertEquals(audio.type, "audio/ogg");
    assertEquals(new TextDecoder().decode(audio.bytes), "opus:Hello there.");
    assertEquals(fake.speeches[0].body, {
      model: "kokoro",
      input: "Hello there.",
      voice: "af_bella",
      response_format: "opus",
    });
    const wav = await speech.speak({ text: "Hi", format: "wav", voice: "am_adam" });
    assertEquals(wavInfo(wav.bytes)?.sampleRate, 16_000);
    assertEquals(fake.speeches[1].body.voice, "am_adam");
  });

  await t.step("the provider's refusal is said with its message", async () => {
    fake.fail(401, "Incorrect API key provided");
    const error = await refused(() =>
      speech.transcribe({ audio: toneWav(0.2), type: "audio/wav" })
    );
    // A refused key is hob's setup, not the caller's fault: a failure, with the provider's words.
    assertEquals(error.code, "failed");
    assertMatch(error.message, /voice refused the speech request \(HTTP 401\): Incorrect API key/);
    fake.fail(400, "Invalid file format");
    const bad = await refused(() => speech.transcribe({ audio: toneWav(0.2), type: "audio/wav" }));
    assertEquals(bad.code, "invalid");
    fake.fail(503, "overloaded");
    const down = await refused(() => speech.speak({ text: "Hi" }));
    assertEquals(down.code, "failed");
    assertMatch(down.message, /HTTP 503\): overloaded/);
  });

  await t.step("bad input is refused before any request, naming the field", async () => {
    const before = fake.speeches.length;
    const empty = await refused(() => speech.speak({ text: "  " }));
    assertEquals([empty.code, empty.field], ["invalid", "text"]);
    const long = await refused(() => speech.speak({ text: "a".repeat(4_097) }));
    assertEquals(long.field, "text");
    // A voice that would read as an option on a command provider's command line.
    const option = await refused(() => speech.speak({ text: "hi", voice: "--output=/tmp/x" }));
    assertEquals(option.field, "voice");
    const nothing = await refused(() => speech.transcribe({ audio: new Uint8Array(0) }));
    assertEquals(nothing.field, "audio");
    assertEquals(fake.speeches.length, before);
  });
});

Deno.test("without speech configured, the actions and capabilities say what to set", async () => {
  const { home, speech, config } = await speechFor("memory: { embedder: none }\n");
  await using _home = home;
  const refusal = await refused(() =>
    speech.transcribe({ audio: toneWav(0.1), type: "audio/wav" })
  );
  assertEquals(refusal.code, "unavailable");
  assertMatch(refusal.message, /set speech\.transcribe in hob\.yaml/);
  const can = mediaCapabilities(config);
  assertEquals([can.transcribe.available, can.speak.available], [false, false]);
  assertMatch(can.speak.detail, /browser's voice/);
});

Deno.test("a speech program that is not installed is named, with what to install", async () => {
  const { home, config, speech } = await speechFor(`speech:
  transcribe: { provider: command, command: [no-such-whisper, -f, "{input}"] }
  speak: { provider: nowhere }
`);
  await using _home = home;
  const can = mediaCapabilities(config);
  assert(!can.transcribe.available);
  assertMatch(can.transcribe.detail, /needs 'no-such-whisper', which is not installed here/);
  assertMatch(
    can.speak.detail,
    /speech\.speak\.provider names 'nowhere', which is not in providers/,
  );
  const refusal = await refused(() => speech.speak({ text: "hi" }));
  assertEquals(refusal.code, "unavailable");
});

Deno.test("a speech provider that is not OpenAI-compatible is refused by name", async () => {
  const { home, config } = await speechFor(`speech:
  transcribe: { provider: anthropic }
`);
  await using _home = home;
  assertMatch(
    mediaCapabilities(config).transcribe.detail,
    /names 'anthropic', whose type is anthropic: speech needs an OpenAI-compatible provider/,
  );
});

Deno.test("hob.yaml's speech keys are checked: a command provider needs its command", async () => {
  await using home = await tempHome(`speech:\n  transcribe: { provider: command }\n`);
  const error = await assertRejects(() => loadConfig({ home: home.home, env: {} }));
  assertMatch((error as Error).message, /speech\.transcribe\.command/);
});
