/** The `analyze_image` tool: an image file sent to the conversation's model as image content. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { readAll } from "./file_helpers.ts";
import { Buffer } from "node:buffer";

/** Largest image sent, in bytes (providers refuse larger ones). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export default defineTool({
  name: "analyze_image",
  description:
    "Look at an image file (PNG, JPEG, GIF, WebP or BMP) and answer a question about it, using the current model's vision.",
  category: "media",
  side_effect: "none",
  untrusted_output: true,
  permissions: { read: ["$ROOTS"] },
  services: ["model"],
  timeout_ms: 120_000,
  parameters: z.object({
    path: z.string().min(1).describe("The image file"),
    question: z.string().min(1).max(4_000).default("Describe this image in detail.").describe(
      "What to find out about the image",
    ),
  }),
  async run({ path, question }, context) {
    using opened = await context.openFile(path);
    // One byte past the cap is enough to know it is too large.
    const bytes = await readAll(opened.file, MAX_IMAGE_BYTES + 1);
    if (bytes.length > MAX_IMAGE_BYTES) throw new Error(`${path} is larger than 20 MB`);
    let media_type = imageType(bytes);
    if (!media_type) throw new Error(`${path} is not a PNG, JPEG, GIF, WebP or BMP image`);
    let image: Uint8Array = bytes;
    if (media_type === "image/bmp") {
      // Models take PNG, JPEG, GIF and WebP; a BMP goes as PNG.
      image = await bmpToPng(bytes);
      media_type = "image/png";
    }
    const answer = await context.services.call("model.complete", {
      prompt: question,
      images: [{ media_type, data: toBase64(image) }],
    });
    return answer;
  },
});

/** The image's media type, from its first bytes, or null. */
export function imageType(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0x89 && ascii(1, 4) === "PNG") return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(0, 4) === "GIF8") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  if (ascii(0, 2) === "BM") return "image/bmp";
  return null;
}

/** Converts a BMP image to PNG. */
export async function bmpToPng(bytes: Uint8Array): Promise<Uint8Array> {
  const [{ default: bmp }, { PNG }, { Buffer }] = await Promise.all([
    import("bmp-js"),
    import("pngjs"),
    import("node:buffer"),
  ]);
  const decoded = bmp.decode(Buffer.from(bytes)) as {
    width: number;
    height: number;
    data: Uint8Array;
  };
  const png = new PNG({ width: decoded.width, height: decoded.height });
  // bmp-js gives ABGR; PNG wants RGBA.
  for (let i = 0; i < decoded.data.length; i += 4) {
    png.data[i] = decoded.data[i + 3];
    png.data[i + 1] = decoded.data[i + 2];
    png.data[i + 2] = decoded.data[i + 1];
    png.data[i + 3] = 0xff;
  }
  return new Uint8Array(PNG.sync.write(png));
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}
