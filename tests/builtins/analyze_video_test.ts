/**
 * `analyze_video` for real: a clip made by ffmpeg's test source, its frames
 * taken by ffmpeg and sent to a stand-in model as images with their times;
 * formats that name other files (a concat list) are refused. Skipped,
 * saying what to install, without ffmpeg.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";
import { collectReply } from "../../src/core/reply.ts";
import { unmark } from "../helpers/tools.ts";
import { findProgram } from "../../src/media/programs.ts";

const ffmpeg = !!findProgram("ffmpeg") && !!findProgram("ffprobe");
if (!ffmpeg) console.error("analyze_video tests skipped: apt-get install ffmpeg");

type Part = { type: string; text?: string; image_url?: { url: string } };

/** A 6-second 320×240 clip of ffmpeg's test pattern, with a counter. */
async function testVideo(path: string): Promise<void> {
  const { code, stderr } = await new Deno.Command("ffmpeg", {
    args: [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=duration=6:size=320x240:rate=10",
      "-pix_fmt",
      "yuv420p",
      path,
    ],
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
}

Deno.test({
  name: "analyze_video sends evenly spaced frames to the model as images",
  ignore: !ffmpeg,
  async fn(t) {
    await using fake = startFakeOpenAI({
      replies: [
        { tool_calls: [{ name: "analyze_video", arguments: { path: "clip.mp4", frames: 4 } }] },
        { text: "Colour bars with a counter." },
        { text: "It shows a test pattern." },
      ],
    });
    await using env = await tempRuntime(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
    const workspace = env.runtime.toolbox.scope.workspace;
    await testVideo(`${workspace}/clip.mp4`);

    await t.step("four frames, as JPEG, with their times in the prompt", async () => {
      const reply = await collectReply(env.runtime.turn({ message: "what is in clip.mp4?" }));
      assertEquals(unmark(reply.tool_calls[0].result!), "Colour bars with a counter.");
      assertEquals(reply.content, "It shows a test pattern.");
      const vision = fake.requests[1].body.messages as { content: Part[] }[];
      const parts = vision.at(-1)!.content;
      const images = parts.filter((part) => part.type === "image_url");
      assertEquals(images.length, 4);
      for (const image of images) {
        assertMatch(image.image_url!.url, /^data:image\/jpeg;base64,\/9j\//);
      }
      assertMatch(
        parts[0].text!,
        /4 frames of a 6\.0-second video, 320×240, in order, taken at 1: 0\.8 s, 2: 2\.3 s, 3: 3\.8 s, 4: 5\.3 s/,
      );
    });

    await t.step("the frames differ: they come from different moments", () => {
      const parts = (fake.requests[1].body.messages as { content: Part[] }[]).at(-1)!.content;
      const urls = parts.filter((part) => part.type === "image_url").map((p) => p.image_url!.url);
      assertEquals(new Set(urls).size, urls.length);
    });

    await t.step("a concat list naming other files is not read", async () => {
      await Deno.writeTextFile(
        `${workspace}/list.mp4`,
        `ffconcat version 1.0\nfile ${workspace}/clip.mp4\n`,
      );
      fake.enqueue(
        { tool_calls: [{ name: "analyze_video", arguments: { path: "list.mp4" } }] },
        { text: "ok" },
      );
      const reply = await collectReply(env.runtime.turn({ message: "and list.mp4?" }));
      assert(reply.tool_calls[0].is_error);
      assertMatch(reply.tool_calls[0].result!, /ffprobe could not read the video/);
    });
  },
});
