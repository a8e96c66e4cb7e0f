/**
 * The approval actions — list, the recent decisions, decide — each defined
 * once: one zod schema for its input (the one the OpenAPI document shows)
 * and its refusals as {@linkcode ActionError}s. REST, the page and
 * `hob approvals` are translators over these. It knows the approval store,
 * nothing of any wire format, nor of the tool call that waits.
 */

import { z } from "zod";
import { type Approval, ApprovalError, type SqliteApprovals } from "../store/approvals.ts";
import { ActionError, checkInput } from "./errors.ts";

/** Decisions the page lists as decided: the last screenful. */
const RECENT_DECISIONS = 30;
/** The shortest prefix that may stand for an id, as git's: shorter ones match too much to mean one. */
export const MIN_ID_PREFIX = 4;
/** Candidates an ambiguous prefix names: enough to pick from, not a listing. */
const AMBIGUOUS_SHOWN = 5;

/** Every state a listing can filter by; `all` for every state. */
export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "all"] as const;

/** A listing, newest first: pending ones unless `status` says otherwise. */
export const listApprovalsInput = z.object({
  status: z.enum(APPROVAL_STATUSES).default("pending"),
});
/** What deciding takes beyond the id. */
export const decisionBody = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  remember: z.boolean().default(false),
});
/**
 * A decision on one approval, named by its id or a unique prefix of it (at
 * least {@linkcode MIN_ID_PREFIX} characters). With `remember`, later calls of
 * the same tool with the same argument shape get the same answer unasked.
 */
export const decideInput = decisionBody.extend({ id: z.string().min(1) });

export type ListApprovalsInput = z.input<typeof listApprovalsInput>;
export type DecideInput = z.input<typeof decideInput>;

/** The approval actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface ApprovalActions {
  list(input?: ListApprovalsInput): Approval[];
  /** The approvals decided lately (approved, denied, expired), newest first. */
  recent(): Approval[];
  /**
   * `not_found` when no approval has that id or prefix; `invalid` (field `id`)
   * when the prefix fits several, naming them; `conflict` when it is decided or expired.
   */
  decide(input: DecideInput): Approval;
}

/**
 * The approval actions over a store.
 *
 * @example
 * ```ts
 * const approvals = createApprovalActions(new SqliteApprovals(db));
 * const [waiting] = approvals.list();
 * approvals.decide({ id: waiting.id, decision: "approve" });
 * ```
 */
export function createApprovalActions(approvals: SqliteApprovals): ApprovalActions {
  return {
    list(input = {}) {
      return approvals.list(checkInput(listApprovalsInput, input).status);
    },
    recent() {
      return approvals.list("all", RECENT_DECISIONS).filter((each) => each.status !== "pending");
    },
    decide(input) {
      const { id: given, decision, remember } = checkInput(decideInput, input);
      const id = resolveId(approvals, given);
      try {
        return approvals.decide(id, decision, remember);
      } catch (error) {
        if (!(error instanceof ApprovalError)) throw error;
        if (error.code === "not_found") {
          // Too short to be read as a prefix: say so, rather than only that it is not there.
          const short = given.length < MIN_ID_PREFIX
            ? ` — give at least ${MIN_ID_PREFIX} characters of its id (the list of approvals shows them)`
            : " — the list of approvals shows the pending ones";
          throw new ActionError("not_found", `${error.message}${short}`, {
            field: "id",
            cause: error,
          });
        }
        throw new ActionError("conflict", error.message, { cause: error });
      }
    },
  };
}

/**
 * The id `given` stands for: itself when an approval has it, else the one id
 * it is a prefix of (git-style, at least {@linkcode MIN_ID_PREFIX}
 * characters). An unknown id is left for the decision to refuse; a prefix
 * that fits several is refused here, naming them.
 */
function resolveId(approvals: SqliteApprovals, given: string): string {
  if (approvals.get(given) || given.length < MIN_ID_PREFIX) return given;
  const ids = approvals.idsStartingWith(given, AMBIGUOUS_SHOWN + 1);
  if (ids.length <= 1) return ids[0] ?? given;
  const shown = ids.slice(0, AMBIGUOUS_SHOWN).join(", ");
  const more = ids.length > AMBIGUOUS_SHOWN ? ", …" : "";
  throw new ActionError(
    "invalid",
    `Approval id '${given}' is ambiguous: it starts ${shown}${more} — give more of it`,
    { field: "id" },
  );
}
