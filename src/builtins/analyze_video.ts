/**
 * The `analyze_video` tool: evenly spaced frames of a video sent to the
 * conversation's model as images, with the question and where in the video
 * each frame is. The frames are taken by hob (the `media.video_frames`
 * service runs ffmpeg on a path inside the roots), so the tool's own
 * sandbox may read nothing and run nothing.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "analyze_video",
  description:
    "Look at a video file (MP4, WebM, MOV, MKV, AVI…) and answer a question about it: evenly spaced frames go to the current model's vision, with their times. Needs ffmpeg.",
  category: "media",
  side_effect: "none",
  untrusted_output: true,
  services: ["model", "media"],
  timeout_ms: 300_000,
  parameters: z.object({
    path: z.string().min(1).describe("The video file"),
    question: z.string().min(1).max(4_000).default(
      "Describe what happens in this video.",
    ).describe("What to find out about the video"),
    frames: z.number().int().min(1).max(16).default(8).describe(
      "How many frames to look at, spaced evenly through the video",
    ),
  }),
  async run({ path, question, frames }, context) {
    const video = await context.services.call("media.video_frames", {
      path,
      count: frames,
    });
    const times = video.frames.map((frame, index) => `${index + 1}: ${frame.at.toFixed(1)} s`);
    const answer = await context.services.call("model.complete", {
      prompt: `${question}\n\n(The images are ${video.frames.length} frames of a ${
        video.duration_s.toFixed(1)
      }-second video, ${video.width}×${video.height}, in order, taken at ${times.join(", ")}.)`,
      images: video.frames.map(({ media_type, data }) => ({ media_type, data })),
    });
    return answer;
  },
});
