/**
 * The voice actions' dependencies for a home: the speech providers hob.yaml
 * names, what this machine has (ffmpeg, the programs), and the uploads.
 * Cheap to build — nothing runs until a request — so `hob transcribe` and
 * `hob say` build them from the configuration alone, without the runtime.
 */

import { join } from "node:path";
import type { HobConfig } from "../config/schema.ts";
import type { SpeechDeps } from "../app/speech.ts";
import { mediaCapabilities } from "../media/capabilities.ts";
import { configuredSpeaker, configuredTranscriber } from "../media/speech.ts";
import { findUpload } from "../app/uploads.ts";

/**
 * The speech dependencies of a home.
 *
 * @example
 * ```ts
 * const speech = createSpeechActions(speechDeps(home, config));
 * ```
 */
export function speechDeps(home: string, config: HobConfig): SpeechDeps {
  return {
    transcriber: () => configuredTranscriber(config),
    speaker: () => configuredSpeaker(config),
    capabilities: () => mediaCapabilities(config),
    async readUpload(path) {
      const upload = await findUpload(home, path);
      return await Deno.readFile(join(home, upload.path));
    },
  };
}
