/**
 * The Skills view's fragments: the list, a skill's install review, and the
 * forms that add, accept and refuse one — translators from form fields to
 * `app.skills` (src/app/skills.ts), whose refusals are shown on the view
 * they came from. Knows no skill file: only the actions.
 */

import type { Context, Hono } from "hono";
import { ActionError } from "../app/errors.ts";
import type { AcceptSkillInput } from "../app/skills.ts";
import type { Hob } from "../app/hob.ts";
import { readForm } from "../http/validate.ts";
import { skillReview, skillsPanel } from "./skills_panel.ts";
import type { Flash } from "./view_parts.ts";

/** A form field as `readForm` gives it. */
type FormValue = string | File | (string | File)[] | undefined;

/**
 * The Skills view, with a message after an action (422 when it was refused).
 *
 * @example
 * ```ts
 * panels.skills = (c) => skillsView(c, hob);
 * ```
 */
export async function skillsView(
  c: Context,
  hob: Hob,
  shown: { message?: Flash; source?: string; status?: 200 | 422 } = {},
): Promise<Response> {
  const listing = await hob.app.skills.list();
  return c.html(skillsPanel(listing, shown), shown.status ?? 200);
}

/**
 * Mounts the skill fragments on the page's `/ui` routes.
 *
 * @example
 * ```ts
 * skillFragments(ui, hob);
 * ```
 */
export function skillFragments(ui: Hono, hob: Hob): void {
  const { skills } = hob.app;
  /** The review of `name`, or the list saying why there is none. */
  const review = async (c: Context, name: string, message?: Flash, status: 200 | 422 = 200) => {
    try {
      return c.html(skillReview(await skills.show({ name }), message), status);
    } catch (error) {
      return skillsView(c, hob, { message: refusal(error), status: 422 });
    }
  };

  ui.get("/skills/review", (c) => review(c, c.req.query("name") ?? ""));

  ui.post("/skills", async (c) => {
    const form = await readForm(c);
    const source = typeof form.source === "string" ? form.source : "";
    try {
      const added = await skills.add({ source }, { by: "page" });
      return review(c, added.name, {
        ok: true,
        text:
          `Added “${added.name}”. Nothing uses it yet: read what it would do, then accept or refuse it.`,
      });
    } catch (error) {
      return skillsView(c, hob, { message: refusal(error), source, status: 422 });
    }
  });

  ui.post("/skills/accept", async (c) => {
    const form = await readForm(c, { all: true });
    const name = String(form.name ?? "");
    try {
      const accepted = await skills.accept({
        name,
        hash: form.hash,
        // The review shows a box for each tool and host: none ticked is none granted, not all.
        tools: list(form.tools),
        hosts: list(form.hosts),
      } as AcceptSkillInput);
      const tools = accepted.granted_tools.join(", ") || "nothing";
      return skillsView(c, hob, {
        message: {
          ok: true,
          text:
            `Accepted “${accepted.name}”: models are offered it now; it runs ${tools} without asking.`,
        },
      });
    } catch (error) {
      return review(c, name, refusal(error), 422);
    }
  });

  ui.post("/skills/remove", async (c) => {
    const form = await readForm(c);
    const name = String(form.name ?? "");
    try {
      const { removed } = await skills.remove({ name });
      return skillsView(c, hob, { message: { ok: true, text: `Removed “${removed}”.` } });
    } catch (error) {
      return skillsView(c, hob, { message: refusal(error), status: 422 });
    }
  });
}

/** The values of a field that may come once, several times or not at all. */
function list(value: FormValue): FormValue {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** An action's refusal as the page shows it; anything else is a bug and is thrown. */
function refusal(error: unknown): Flash {
  if (!(error instanceof ActionError)) throw error;
  return { ok: false, text: error.message };
}
