/**
 * A stand-in for an OpenAI-compatible speech server on 127.0.0.1 (OpenAI,
 * Groq, a whisper.cpp server, speaches, Kokoro-FastAPI all speak this):
 * `POST /v1/audio/transcriptions` reads the real multipart form and answers
 * `{text}` (or `text`), `POST /v1/audio/speech` reads the JSON and answers
 * audio bytes — a real WAV of a tone for `wav`, tagged bytes otherwise.
 * Every request is recorded; errors can be scripted.
 */

/** A transcription request as the stand-in read it. */
export interface HeardRequest {
  path: "/v1/audio/transcriptions";
  authorization: string | null;
  model: string;
  language: string | null;
  response_format: string | null;
  file: { name: string; type: string; bytes: Uint8Array };
}

/** A speech request as the stand-in read it. */
export interface SpokenRequest {
  path: "/v1/audio/speech";
  authorization: string | null;
  body: { model: string; input: string; voice?: string; response_format?: string };
}

/** The stand-in. `await using` closes it. */
export interface FakeSpeech extends AsyncDisposable {
  /** Base URL including `/v1`. */
  url: string;
  transcriptions: HeardRequest[];
  speeches: SpokenRequest[];
  /** What the next transcriptions say (in order); then `fallback`. */
  say(...texts: string[]): void;
  /** Answers the next request with this status and an OpenAI-style error. */
  fail(status: number, message: string): void;
}

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * await using speech = startFakeSpeech({ fallback: "hello there" });
 * ```
 */
export function startFakeSpeech(options: { fallback?: string; key?: string } = {}): FakeSpeech {
  const transcriptions: HeardRequest[] = [];
  const speeches: SpokenRequest[] = [];
  const queue: string[] = [];
  let failure: { status: number; message: string } | null = null;
  const refuse = (status: number, message: string) =>
    Response.json({ error: { message, type: "invalid_request_error", code: null } }, { status });

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const authorization = req.headers.get("authorization");
    if (failure) {
      const { status, message } = failure;
      failure = null;
      await req.body?.cancel();
      return refuse(status, message);
    }
    if (options.key && authorization !== `Bearer ${options.key}`) {
      await req.body?.cancel();
      return refuse(401, "Incorrect API key provided");
    }
    if (path === "/v1/audio/transcriptions" && req.method === "POST") {
      const form = await req.formData();
      const file = form.get("file");
      if (!(file instanceof File)) return refuse(400, "'file' is required");
      const model = form.get("model");
      if (typeof model !== "string") return refuse(400, "'model' is required");
      const field = (name: string) => (form.get(name) as string | null) ?? null;
      transcriptions.push({
        path,
        authorization,
        model,
        language: field("language"),
        response_format: field("response_format"),
        file: { name: file.name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) },
      });
      const text = queue.shift() ?? options.fallback ?? "hello from the stand-in";
      return field("response_format") === "text"
        ? new Response(text)
        : Response.json({ text, language: "en", duration: 1.5 });
    }
    if (path === "/v1/audio/speech" && req.method === "POST") {
      const body = await req.json() as SpokenRequest["body"];
      if (!body.input || !body.model) return refuse(400, "'input' and 'model' are required");
      speeches.push({ path, authorization, body });
      const format = body.response_format ?? "mp3";
      return format === "wav"
        ? new Response(toneWav(0.5) as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": "audio/wav" },
        })
        : new Response(new TextEncoder().encode(`${format}:${body.input}`), {
          headers: { "content-type": "application/octet-stream" },
        });
    }
    return refuse(404, `no route ${req.method} ${path}`);
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    transcriptions,
    speeches,
    say: (...texts) => queue.push(...texts),
    fail: (status, message) => failure = { status, message },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/**
 * A WAV file of a 440 Hz tone: 16 kHz, mono, 16-bit.
 *
 * @example
 * ```ts
 * await Deno.writeFile("tone.wav", toneWav(1));
 * ```
 */
export function toneWav(seconds: number, sampleRate = 16_000): Uint8Array {
  const samples = Math.round(seconds * sampleRate);
  const bytes = new Uint8Array(44 + samples * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) =>
    [...text].forEach((c, i) => bytes[at + i] = c.charCodeAt(0));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) {
    view.setInt16(
      44 + i * 2,
      Math.round(8_000 * Math.sin(2 * Math.PI * 440 * i / sampleRate)),
      true,
    );
  }
  return bytes;
}
