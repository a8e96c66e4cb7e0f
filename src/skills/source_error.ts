/** A source hob cannot install a skill from, and why: the caller's input is at fault. */
export class SkillSourceError extends Error {
  override name = "SkillSourceError";
}
