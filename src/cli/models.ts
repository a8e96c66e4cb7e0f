/** `hob models`: the models every configured provider offers right now. */

import { type Command, EXIT } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, green, out, outJson, red } from "./output.ts";

export const models: Command = {
  name: "models",
  summary: "List the models the providers offer",
  help: `Usage: hob models [--json] [--home DIR]

Asks every configured provider for its models (Ollama's /api/tags, the
/v1/models of OpenAI-compatible servers, Anthropic's model list), each with a
3 s timeout, and lists them with the provider's status.

Options:
  --json         print {default, models, providers} as JSON
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { json: { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    const hob = await openHome(parsed);
    try {
      const report = await hob.app.models.discover({ refresh: true });
      if (parsed.values.json) {
        outJson({ default: hob.config.model, ...report });
        return EXIT.ok;
      }
      for (const provider of report.providers) {
        const mark = provider.ok ? green("✓") : red("✗");
        const detail = provider.ok ? `${provider.models} model(s)` : provider.error;
        out(`${mark} ${provider.name.padEnd(12)} ${dim(detail ?? "")}\n`);
      }
      out("\n");
      for (const model of report.models) {
        out(`${model.id === hob.config.model ? "*" : " "} ${model.id}\n`);
      }
      if (report.models.length === 0) {
        out(
          `No models found. Start Ollama or LM Studio, or set an API key (see 'hob doctor').\n`,
        );
      }
      if (!report.models.some((m) => m.id === hob.config.model)) {
        out(
          dim(
            `\nThe configured model ${hob.config.model} was not found among them.\n`,
          ),
        );
      }
      return EXIT.ok;
    } finally {
      await hob.close();
    }
  },
};
