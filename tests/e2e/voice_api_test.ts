/**
 * Voice through hob, as users reach it: the official `openai` client's
 * `audio.transcriptions` and `audio.speech` against a real `hob serve`
 * (backed by a stand-in OpenAI-compatible speech server, and by Debian's
 * pocketsphinx and espeak-ng for real where installed), `GET /api/speech`,
 * `hob transcribe` and `hob say`, and audio sent with a chat message heard
 * before the turn.
 */

import OpenAI, { toFile } from "openai";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { startFakeSpeech, toneWav } from "../fakes/speech_server.ts";
import { tempHome } from "../helpers/home.ts";
import { cleanEnv, hobArgv, runHob, startHob } from "../helpers/hob_process.ts";
import { findProgram } from "../../src/media/programs.ts";
import { wavInfo } from "../../src/media/audio.ts";
import { festival, OFFLINE_SPEECH_YAML } from "../helpers/speech.ts";

const offline = ["text2wave", "pocketsphinx_continuous", "espeak-ng", "ffmpeg"]
  .every((program) => findProgram(program));

function speechYaml(url: string): string {
  return `memory: { embedder: none }
providers:
  voice: { type: openai, base_url: "${url}", api_key: sk-voice }
speech:
  transcribe: { provider: voice, model: whisper-large-v3 }
  speak: { provider: voice, model: kokoro, voice: af_bella }
`;
}

Deno.test("the openai client transcribes and speaks through hob serve", async (t) => {
  await using speech = startFakeSpeech({ key: "sk-voice", fallback: "book a table for two" });
  await using home = await tempHome(speechYaml(speech.url));
  await using hob = await startHob(home.home);
  const client = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: hob.token, maxRetries: 0 });

  await t.step("audio.transcriptions: json, text, verbose_json and srt", async () => {
    const file = await toFile(toneWav(1), "note.wav", { type: "audio/wav" });
    const json = await client.audio.transcriptions.create({ file, model: "whisper-1" });
    assertEquals(json.text, "book a table for two");
    // hob sent the file on with the model hob.yaml names, under its own key.
    const sent = speech.transcriptions.at(-1)!;
    assertEquals([sent.model, sent.authorization], ["whisper-large-v3", "Bearer sk-voice"]);
    assertEquals(sent.file.bytes.byteLength, toneWav(1).byteLength);
    const text = await client.audio.transcriptions.create({
      file: await toFile(toneWav(1), "note.wav"),
      model: "whisper-1",
      response_format: "text",
    });
    assertEquals(String(text).trim(), "book a table for two");
    const verbose = await client.audio.transcriptions.create({
      file: await toFile(toneWav(1), "note.wav"),
      model: "whisper-1",
      response_format: "verbose_json",
    });
    assertEquals([verbose.text, verbose.duration], ["book a table for two", 1.5]);
    const srt = await client.audio.transcriptions.create({
      file: await toFile(toneWav(1), "note.wav"),
      model: "whisper-1",
      response_format: "srt",
    });
    assertMatch(String(srt), /^1\n00:00:00,000 --> 00:00:01,500\nbook a table for two\n/);
  });

  await t.step("audio.speech: the audio's bytes, in the format asked", async () => {
    const response = await client.audio.speech.create({
      model: "tts-1",
      voice: "alloy",
      input: "Your table is booked.",
      response_format: "wav",
    });
    assertEquals(response.headers.get("content-type"), "audio/wav");
    const wav = new Uint8Array(await response.arrayBuffer());
    assertEquals(wavInfo(wav)?.durationS, 0.5);
    // An OpenAI voice name means "the default" to another provider: hob.yaml's voice is used.
    assertEquals(speech.speeches.at(-1)!.body, {
      model: "kokoro",
      input: "Your table is booked.",
      voice: "af_bella",
      response_format: "wav",
    });
  });

  await t.step("errors in OpenAI's shape: the provider's, and the caller's", async () => {
    speech.fail(500, "the GPU caught fire");
    const failed = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "x" })
      .catch((error) => error);
    assert(failed instanceof OpenAI.APIError, String(failed));
    assertEquals(failed.status, 502);
    assertStringIncludes(failed.message, "the GPU caught fire");
    const empty = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "" })
      .catch((error) => error);
    assertEquals([empty.status, empty.param], [400, "input"]);
    const noFile = await hob.fetch("/v1/audio/transcriptions", {
      method: "POST",
      body: (() => {
        const form = new FormData();
        form.append("model", "whisper-1");
        return form;
      })(),
    });
    assertEquals(noFile.status, 400);
    assertEquals((await noFile.json()).error.param, "file");
  });

  await t.step("GET /api/speech says what this hob can hear and say", async () => {
    const can = await (await hob.fetch("/api/speech")).json();
    assertEquals([can.transcribe.available, can.transcribe.by], [true, "voice/whisper-large-v3"]);
    assertEquals([can.speak.available, can.speak.by], [true, "voice/kokoro"]);
  });
});

Deno.test("without a speech provider, /v1/audio answers 503 saying what to set", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  await using hob = await startHob(home.home);
  const client = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: hob.token, maxRetries: 0 });
  const error = await client.audio.transcriptions.create({
    file: await toFile(toneWav(0.2), "a.wav"),
    model: "whisper-1",
  }).catch((error) => error);
  assertEquals(error.status, 503);
  assertStringIncludes(error.message, "set speech.transcribe in hob.yaml");
});

Deno.test({
  name:
    "a file that is not audio is refused naming it: hob transcribe and /v1/audio/transcriptions",
  ignore: !findProgram("ffmpeg"),
  async fn(t) {
    // A local program stands in for the recogniser: what reaches it goes through ffmpeg first.
    await using home = await tempHome(`memory: { embedder: none }
speech:
  transcribe: { provider: command, command: [echo, heard] }
`);
    const pdf = `${home.home}/plan.pdf`;
    await Deno.writeTextFile(pdf, "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n");
    // An Ogg file's first bytes and nothing an Ogg file holds: only ffmpeg finds out.
    const damaged = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
    damaged.set(new TextEncoder().encode("OggS"));
    await Deno.writeFile(`${home.home}/memo.ogg`, damaged);
    await Deno.writeFile(`${home.home}/tone.wav`, toneWav(0.5));
    const kinds = "WAV, MP3, Ogg/Opus, FLAC, WebM, M4A/MP4, AAC, AIFF, AMR, CAF and WMA";

    await t.step("hob transcribe: one line naming the file, exit 2", async () => {
      const heard = await runHob(["transcribe", "--home", home.home, `${home.home}/tone.wav`]);
      assertEquals([heard.code, heard.stdout.trim()], [0, "heard"], heard.stderr);
      const notAudio = await runHob(["transcribe", "--home", home.home, pdf]);
      assertEquals([notAudio.code, notAudio.stdout], [2, ""]);
      assertEquals(
        notAudio.stderr,
        `hob transcribe: ${pdf} is not audio hob can read — it reads ${kinds}\n`,
      );
      const unreadable = await runHob(["transcribe", "--home", home.home, `${home.home}/memo.ogg`]);
      assertEquals(unreadable.code, 2, unreadable.stderr);
      assertMatch(
        unreadable.stderr,
        new RegExp(
          `^hob transcribe: ${home.home}/memo\\.ogg could not be read as audio \\(ffmpeg: [^\\n]+\\) — hob reads ${kinds}\\n$`,
        ),
      );
      assert(!unreadable.stderr.includes("hob-media-"), unreadable.stderr);
    });

    await t.step("the API: a 400 naming the field 'file', not a 500 or a 502", async () => {
      await using hob = await startHob(home.home);
      const send = async (name: string, bytes: Uint8Array) => {
        const form = new FormData();
        form.append("model", "whisper-1");
        form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], name));
        const response = await hob.fetch("/v1/audio/transcriptions", {
          method: "POST",
          body: form,
        });
        return { status: response.status, error: (await response.json()).error };
      };
      const notAudio = await send("plan.pdf", await Deno.readFile(pdf));
      assertEquals([notAudio.status, notAudio.error.param], [400, "file"]);
      assertEquals(
        notAudio.error.message,
        `'file': plan.pdf is not audio hob can read — it reads ${kinds}`,
      );
      const unreadable = await send("memo.ogg", damaged);
      assertEquals([unreadable.status, unreadable.error.param], [400, "file"]);
      assertMatch(
        unreadable.error.message,
        /^'file': memo\.ogg could not be read as audio \(ffmpeg: /,
      );
      assert(!unreadable.error.message.includes("hob-media-"), unreadable.error.message);
    });
  },
});

Deno.test("audio sent with a chat message is heard before the turn", async () => {
  await using speech = startFakeSpeech({ key: "sk-voice", fallback: "please summarise my week" });
  await using llm = startFakeOpenAI({ replies: [{ text: "Here is your week." }] });
  await using home = await tempHome(
    speechYaml(speech.url).replace(
      "providers:\n",
      `model: fake/fake-model\nproviders:\n  fake: { type: openai, base_url: "${llm.url}", api_key: t }\n`,
    ),
  );
  await using hob = await startHob(home.home);
  const form = new FormData();
  form.append("file", new File([toneWav(1) as Uint8Array<ArrayBuffer>], "memo.wav"));
  form.append("file", new File([new Uint8Array(64)], "clip.mp4"));
  const { uploads } = await (await hob.fetch("/api/uploads", { method: "POST", body: form }))
    .json();
  const reply = await (await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      message: "Listen to this",
      attachments: uploads.map((upload: { path: string }) => upload.path),
    }),
  })).json();
  assertEquals(reply.content, "Here is your week.");
  // A video is not heard; the model is told how to look at it.
  assertEquals(speech.transcriptions.length, 1);
  const sent = llm.requests[0].body.messages as { role: string; content: string }[];
  const user = sent.findLast((message) => message.role === "user")!.content;
  // What the recording says reached the model, labelled as untrusted like the file it came from.
  assertMatch(
    user,
    /<untrusted source="upload">[\s\S]*Attached audio: memo\.wav[\s\S]*What it says: please summarise my week/,
  );
  assertMatch(user, /Attached video: clip\.mp4 \(video\/mp4[^\]]*see it with analyze_video\]/);
  // The transcript is kept with the message, so later turns read it without hearing it again.
  const { messages } =
    await (await hob.fetch(`/api/conversations/${reply.conversation_id}/messages`))
      .json();
  assertEquals(messages[0].attachments[0].transcript, "please summarise my week");
});

Deno.test({
  name: "offline: the openai client and the CLI through pocketsphinx and espeak-ng",
  ignore: !offline,
  async fn(t) {
    await using home = await tempHome(OFFLINE_SPEECH_YAML);
    const wav = await festival("turn off the lights in the kitchen");
    await Deno.writeFile(`${home.home}/lights.wav`, wav);

    await t.step("hob transcribe FILE and hob say TEXT -o FILE", async () => {
      const heard = await runHob(["transcribe", "--home", home.home, `${home.home}/lights.wav`]);
      assertEquals([heard.code, heard.stdout.trim()], [0, "turn off the lights in the kitchen"]);
      const said = await runHob([
        "say",
        "--home",
        home.home,
        "Good night",
        "-o",
        `${home.home}/n.mp3`,
      ]);
      assertEquals(said.code, 0, said.stderr);
      assert((await Deno.stat(`${home.home}/n.mp3`)).size > 1_000);
      const missing = await runHob(["transcribe", "--home", home.home, `${home.home}/none.wav`]);
      assertEquals([missing.code, missing.stderr.trim()], [
        1,
        `hob: There is no file ${home.home}/none.wav`,
      ]);
      const empty = await runHob(["say", "--home", home.home, " "]);
      assertEquals(empty.code, 2);
      assertStringIncludes(empty.stderr, "TEXT: must not be empty");
    });

    await t.step("the openai client against hob serve", async () => {
      await using hob = await startHob(home.home);
      const client = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: hob.token, maxRetries: 0 });
      const transcript = await client.audio.transcriptions.create({
        file: await toFile(wav, "lights.wav"),
        model: "whisper-1",
      });
      assertEquals(transcript.text, "turn off the lights in the kitchen");
      const speech = await client.audio.speech.create({
        model: "tts-1",
        voice: "alloy",
        input: "The kitchen lights are off.",
        response_format: "opus",
      });
      const bytes = new Uint8Array(await speech.arrayBuffer());
      assertEquals(new TextDecoder().decode(bytes.subarray(0, 4)), "OggS");
    });
  },
});

Deno.test({
  name: "hob say at a terminal with no sound device fails, says why, and suggests -o FILE",
  ignore: !findProgram("espeak-ng") || !findProgram("python3"),
  async fn() {
    await using home = await tempHome(OFFLINE_SPEECH_YAML);
    // ffplay as it behaves with no sound card: it says the audio device failed, and exits 0.
    const bin = `${home.home}/bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/ffplay`,
      "#!/bin/sh\necho 'ALSA lib confmisc.c:855:(parse_card) cannot find card 0' >&2\n" +
        "echo 'No more combinations to try, audio open failed' >&2\nexit 0\n",
    );
    await Deno.chmod(`${bin}/ffplay`, 0o755);
    const driver = new URL("../fakes/pty_drive.py", import.meta.url).pathname;
    const output = await new Deno.Command("python3", {
      args: [driver, "[]", ...hobArgv(["say", "--home", home.home, "Good night"])],
      env: cleanEnv({ PATH: `${bin}:${Deno.env.get("PATH")}` }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const transcript = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 1, transcript);
    assertStringIncludes(
      transcript,
      "hob: ffplay could not play the audio (No more combinations to try, audio open failed) — is there a sound device? Write the audio with -o FILE instead",
    );
  },
});
