/** The `get_time` tool: the current date and time, in UTC and any IANA time zone. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "get_time",
  description:
    "Get the current date and time. Optionally in an IANA time zone such as 'Europe/Berlin'; defaults to the machine's zone.",
  category: "time",
  side_effect: "none",
  untrusted_output: false,
  parameters: z.object({
    timezone: z.string().min(1).max(64).optional().describe(
      "IANA time zone, e.g. 'America/New_York'",
    ),
  }),
  run({ timezone }, { now }) {
    const date = now();
    const zone = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    let local: string;
    try {
      local = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        dateStyle: "full",
        timeStyle: "long",
      })
        .format(date);
    } catch {
      throw new Error(`Unknown time zone '${zone}'. Use an IANA name such as 'Europe/Paris'.`);
    }
    return `${local} (${zone})\nUTC: ${date.toISOString()}`;
  },
});
