/** Files sent with messages: upload, attach to a chat turn, images to the model, text files by path, serving back. */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml } from "../helpers/home.ts";

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("uploads: an image goes to the model as an image, a text file by path the agent can read", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await tempApi(
    fakeProviderYaml(fake.url, "memory: { embedder: none }\nserver: { max_upload_bytes: 4096 }"),
  );
  const upload = (...files: File[]) => {
    const form = new FormData();
    for (const file of files) form.append("file", file);
    return api.call("/api/uploads", { method: "POST", body: form });
  };
  let image = "";
  let text = "";

  await t.step(
    "POST /api/uploads stores the files under uploads/ and answers their paths",
    async () => {
      const response = await upload(
        new File([PNG], "photo of ../../cat.png", { type: "image/png" }),
        new File(["Shopping: eggs, milk, bread.\n"], "list.txt", { type: "text/plain" }),
        // Half a character in a name (sent as U+FFFD) is kept, the character marked.
        new File(["x"], "half \ud83d.txt", { type: "text/plain" }),
      );
      assertEquals(response.status, 201);
      const { uploads } = await response.json();
      assertEquals(uploads.map((u: { name: string; type: string }) => [u.name, u.type]), [
        ["cat.png", "image/png"],
        ["list.txt", "text/plain"],
        ["half _.txt", "text/plain"],
      ]);
      [image, text] = uploads.map((u: { path: string }) => u.path);
      // A NUL in a name is not a form at all: refused, nothing stored.
      const nul = await upload(new File(["x"], "no\u0000te.txt", { type: "text/plain" }));
      assertEquals([nul.status, (await nul.json()).error.code], [400, "invalid_form"]);
      assertMatch(image, /^uploads\/\d{4}-\d\d-\d\d\/[0-9a-f]{8}-cat\.png$/);
      assertEquals(await Deno.readFile(`${api.home.home}/${image}`), PNG);
    },
  );

  await t.step("a chat turn with them: the model gets the image and the file's path", async () => {
    fake.enqueue({ text: "A cat, and a shopping list." });
    const response = await api.call("/api/chat", {
      method: "POST",
      json: { message: "What are these?", attachments: [image, text] },
    });
    assertEquals(response.status, 200);
    const reply = await response.json();
    const sent = fake.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    const user = sent.at(-1)!.content as {
      type: string;
      text?: string;
      image_url?: { url: string };
    }[];
    const parts = user.map((p) => p.type);
    assert(parts.includes("image_url") && parts.includes("text"), JSON.stringify(parts));
    const imagePart = user.find((p) => p.type === "image_url")!;
    assertMatch(imagePart.image_url!.url, /^data:image\/png;base64,iVBORw0KGgo/);
    const words = user.find((p) => p.type === "text")!.text!;
    assertStringIncludes(words, "What are these?");
    assertStringIncludes(
      words,
      `[Attached file: list.txt (text/plain, 29 B), at ${api.home.home}/${text}`,
    );

    const { messages } =
      await (await api.call(`/api/conversations/${reply.conversation_id}/messages`)).json();
    assertEquals(messages[0].attachments.map((a: { path: string }) => a.path), [image, text]);

    // The agent's file tools can read what was sent.
    const read = await api.runtime.toolbox.registry.invoke("read_file", {
      path: `${api.home.home}/${text}`,
    }, "api");
    assertEquals(read.is_error, false, read.content);
    assertStringIncludes(read.content, "eggs, milk, bread");
  });

  await t.step(
    "GET /api/uploads/… serves images inline and anything else as a download, sandboxed",
    async () => {
      const shown = await api.call(`/api/${image}`);
      assertEquals(shown.headers.get("content-type"), "image/png");
      assertMatch(shown.headers.get("content-disposition") ?? "", /^inline/);
      assertEquals(new Uint8Array(await shown.arrayBuffer()), PNG);
      const saved = await api.call(`/api/${text}`);
      assertEquals(saved.headers.get("content-type"), "application/octet-stream");
      assertMatch(
        saved.headers.get("content-disposition") ?? "",
        /^attachment; filename\*=UTF-8''list\.txt/,
      );
      assertMatch(saved.headers.get("content-security-policy") ?? "", /sandbox/);
      assertEquals((await api.call("/api/uploads/2026-01-01/00000000-none.txt")).status, 404);
      assertEquals((await api.call("/api/uploads/../hob.yaml")).status, 404);
    },
  );

  await t.step("bad uploads and attachments are 4xx naming the field", async () => {
    const missing = await api.call("/api/chat", {
      method: "POST",
      json: { message: "hi", attachments: [image, "uploads/2026-01-01/../../token"] },
    });
    assertEquals(missing.status, 400);
    assertEquals((await missing.json()).error.field, "attachments.1");
    const empty = await api.call("/api/uploads", { method: "POST", body: new FormData() });
    assertEquals((await empty.json()).error.field, "file");
    const json = await api.call("/api/uploads", { method: "POST", json: { file: "x" } });
    assertEquals(json.status, 415);
    const large = await upload(new File([new Uint8Array(8_000)], "big.bin"));
    assertEquals(large.status, 413);
  });
});
