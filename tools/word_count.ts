/**
 * An example user tool: counts the lines, words and characters of a text file
 * in the workspace. It may read the workspace and nothing else; hob runs it in
 * a sandbox with exactly that permission.
 */

export default {
  name: "word_count",
  description: "Count the lines, words and characters of a text file in the workspace.",
  category: "text",
  side_effect: "none",
  permissions: { read: ["$WORKSPACE"] },
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "The file, relative to the workspace" } },
    required: ["path"],
  },
  async run(
    args: { path: string },
    context: { resolvePath(path: string): Promise<string> },
  ): Promise<string> {
    const text = await Deno.readTextFile(await context.resolvePath(args.path));
    const lines = text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const words = text.split(/\s+/).filter((word) => word.length > 0).length;
    return `${args.path}: ${lines} lines, ${words} words, ${text.length} characters`;
  },
};
