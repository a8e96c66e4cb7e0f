/**
 * "I saved it" must be true. Weak models say they saved, noted or will
 * remember something without calling a tool (nanobot #1931). A final reply
 * that claims so, in a turn offered the memory tools where none of them
 * succeeded, is taken back and the model gets one hob-written nudge to call
 * the tool or answer again. Knows the memory tools by name and the English
 * phrasings of a claim; nothing of how memory is written.
 */

import { type ModelStep, offeredTools } from "./model_step.ts";
import { type Turn, UNSAVED_CLAIM } from "./turn.ts";
import type { AgentEvent } from "./types.ts";

/** The tools that write to memory: a claim to have saved is true once one of them succeeded. */
export const MEMORY_WRITE_TOOLS: readonly string[] = ["remember_this", "log_note", "memory_write"];

/**
 * A claim, in one sentence (lower-cased, straight apostrophes, its end
 * punctuation gone): a promise to remember, a note made, something saved
 * with nothing after it, or saved somewhere that is memory.
 */
const CLAIMS: readonly RegExp[] = [
  /\bi(?:'ll| will| shall|'m going to| am going to)(?: \w+ly| also| now)? (?:remember\b|keep (?:that|this|it|them) in mind|make a note|(?:note|jot|write) (?:that|this|it|them)(?: down)?\b|(?:save|store|log|record) (?:that|this|it|them|your \w+)\b)/,
  /\bi(?:'ve| have)(?: \w+ly| also| now| just)? (?:noted|made a note|remembered|jotted|committed (?:that|this|it|them) to memory)\b/,
  /\bi(?:'ve| have)(?: \w+ly| also| now| just)? (?:saved|stored|logged|recorded)(?: (?:that|this|it|them|these|those|your [\w'-]+(?: [\w'-]+)?))?(?: for (?:you|later|next time|the future|future reference))?$/,
  /\b(?:saved|stored|added|written|wrote|logged|recorded|noted|put|committed|kept)\b.{0,40}?\b(?:to|in|into) (?:your |my |the )?(?:long-term )?(?:memory\.md|memory|memories|notes|daily log)(?![\w./-])/,
  /(?:^|[,;:—–-]\s*)noted\b/,
  /(?:^|[,;:—–-]\s*)saved$/,
];
/** Words before a claim that deny it: "it wasn't saved to memory", "nothing was noted". */
const NEGATION = /\b(?:not|never|no|nothing|cannot|unable)\b|n't\b/;
/** A sentence that offers or asks instead of claiming: "If you like, I'll remember it." */
const OFFER =
  /\b(?:if|once|when|whenever|unless) you\b|\bwant me to\b|\bwould you like\b|\b(?:shall|should) i\b|\bdo you want\b|\blet me know\b/;

/**
 * Whether `text` says something was saved or will be remembered: any
 * sentence that is not a question, an offer or a denial and says so.
 *
 * @example
 * ```ts
 * claimsSaving("Got it, I'll remember that."); // true
 * claimsSaving("I don't remember that. Should I save it?"); // false
 * ```
 */
export function claimsSaving(text: string): boolean {
  const sentences = text.toLowerCase().replace(/[‘’]/g, "'").split(/(?<=[.!?])\s+|\n+/);
  return sentences.some((raw) => {
    const sentence = raw.trim().replace(/[.!…]+$/, "").trim();
    if (!sentence || sentence.endsWith("?") || OFFER.test(sentence)) return false;
    return CLAIMS.some((claim) => {
      const found = claim.exec(sentence);
      return found !== null && !NEGATION.test(sentence.slice(0, found.index + 1));
    });
  });
}

/** A turn's check of its final reply for a claim to have saved. */
export interface SaveClaims {
  /** Whether this final reply claims a save no memory tool made, and the turn has not been nudged. */
  unsaved(step: ModelStep): boolean;
  /**
   * Takes the claim back — out of the stored conversation (its message keeps
   * no text, so neither the page nor a later turn reads it) — and asks the
   * model to save for real or answer again. Resolves with the notice for people.
   */
  nudge(step: ModelStep): Promise<AgentEvent>;
}

/**
 * The check for a turn whose context is loaded: what the turn adds to its
 * messages from now on is what it did.
 *
 * @example
 * ```ts
 * const claims = saveClaims(turn);
 * if (claims.unsaved(step)) yield await claims.nudge(step);
 * ```
 */
export function saveClaims(turn: Turn): SaveClaims {
  const ownFrom = turn.messages.length;
  let nudged = false;
  const offered = () => {
    const names = new Set(offeredTools(turn).map((tool) => tool.name));
    return MEMORY_WRITE_TOOLS.filter((name) => names.has(name));
  };
  const saved = () =>
    turn.messages.slice(ownFrom).some((message) =>
      message.role === "tool" && MEMORY_WRITE_TOOLS.includes(message.name) && !message.is_error
    );
  return {
    unsaved(step) {
      if (nudged || step.calls.length > 0 || !claimsSaving(step.text)) return false;
      return offered().length > 0 && !saved();
    },
    async nudge(step) {
      nudged = true;
      const taint = turn.tainted ? { taint: turn.tainted } : {};
      turn.messages.push(
        { role: "assistant", content: step.text, ...taint },
        { role: "user", content: nudgeText(offered()) },
      );
      const { store } = turn.deps;
      const id = turn.lastAssistantId;
      if (id !== null) await store.write(() => store.updateMessage(id, { content: "" }));
      return {
        type: "notice",
        code: UNSAVED_CLAIM,
        message:
          "The reply said something was saved, but no memory tool had run; hob asked the model to save it for real.",
      };
    },
  };
}

/** hob's words to the model, naming the memory tools it was offered. */
function nudgeText(tools: string[]): string {
  return `[hob, not the user] Your last reply says something was saved or will be remembered, but no memory tool ran in this turn: nothing was saved, and that reply was taken back. If something should be kept, call ${
    tools.join(" or ")
  } now, then answer the user. If nothing needed saving, answer the user again without saying it was saved.`;
}
