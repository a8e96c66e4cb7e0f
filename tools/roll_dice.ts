/**
 * An example user tool with no permissions at all: rolls dice like "2d6+3".
 * Copy it, change it, and hob picks up the change while it runs.
 */

export default {
  name: "roll_dice",
  description: "Roll dice in the usual notation, e.g. '2d6+3' or 'd20'.",
  category: "fun",
  side_effect: "none",
  parameters: {
    type: "object",
    properties: { dice: { type: "string", description: "Like 2d6+3" } },
    required: ["dice"],
  },
  run(args: { dice: string }): string {
    const match = /^(\d*)d(\d+)([+-]\d+)?$/.exec(args.dice.replace(/\s+/g, ""));
    if (!match) throw new Error(`'${args.dice}' is not dice notation; try 2d6+3`);
    const count = Number(match[1] || 1);
    const sides = Number(match[2]);
    if (count < 1 || count > 100 || sides < 2 || sides > 1000) {
      throw new Error("Use 1-100 dice of 2-1000 sides");
    }
    const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
    const total = rolls.reduce((sum, roll) => sum + roll, 0) + Number(match[3] ?? 0);
    return `${args.dice}: ${rolls.join(" + ")}${match[3] ?? ""} = ${total}`;
  },
};
