/**
 * A skill shipped with hob (CheddahBot's press-release pipeline): from a topic and a company it
 * has the model write 7 headlines, pick the best 2, and write a release of 600–750 words for
 * each, with a schema.org NewsArticle JSON-LD. Each release is saved as .txt, .docx and .json
 * under press_releases/<company>/ in the workspace.
 *
 *   /press_release topic: Acme opens a plant in Ohio
 *   company: Acme Robotics
 *   url: https://acme.example/news        (optional, context for the model)
 *   lsi_terms: automation, jobs, robotics (optional, worked in where they fit)
 *   required_phrase: made in Ohio          (optional, used exactly once)
 *
 * The same fields as a JSON object work too. Like every skill it runs with no permissions:
 * it reaches the model and the tools (write_file saves the files), nothing else.
 */

/** What hob hands a skill. */
interface SkillApi {
  tool(name: string, args?: Record<string, unknown>): Promise<string>;
  model(prompt: string, options?: { system?: string }): Promise<string>;
}

/** What the user asked for. */
export interface Brief {
  topic: string;
  company: string;
  url?: string;
  lsi_terms?: string;
  required_phrase?: string;
}

/** The words a release must have, inclusive. */
export const MIN_WORDS = 600;
export const MAX_WORDS = 750;
/** How many times a release is asked for before its length is fixed or given up. */
const ATTEMPTS = 3;

const SYSTEM = "You are a senior PR writer. You write factual, AP-style press releases " +
  "with no hype, no placeholders and no markdown.";

const USAGE = "Give a topic and a company, one per line: 'topic: …' and 'company: …' " +
  "(optional: url, lsi_terms, required_phrase), or the same as a JSON object.";

export default {
  name: "press_release",
  description:
    "Write 2 press releases (600–750 words, the best 2 of 7 headlines) with JSON-LD, saved as .txt, .docx and .json in press_releases/<company>/. Input: 'topic: …' and 'company: …' lines (optional url, lsi_terms, required_phrase).",
  async run(input: string, skill: SkillApi): Promise<string> {
    const brief = parseBrief(input);
    const headlines = await writeHeadlines(brief, skill);
    const chosen = await pickTwo(headlines, brief, skill);
    const dir = `press_releases/${slug(brief.company)}`;
    const date = new Date().toISOString().slice(0, 10);
    const lines = [`Wrote 2 press releases for ${brief.company} in ${dir}/:`];
    for (const headline of chosen) {
      const body = await writeRelease(headline, brief, skill);
      const schema = await writeSchema(headline, body, brief, date, skill);
      const base = `${dir}/${date}_${slug(headline).slice(0, 60).replace(/-+$/, "")}`;
      const text = `${headline}\n\n${body}\n`;
      await skill.tool("write_file", { path: `${base}.txt`, content: text });
      await skill.tool("write_file", { path: `${base}.docx`, content: text, format: "docx" });
      await skill.tool("write_file", {
        path: `${base}.json`,
        content: JSON.stringify(schema, null, 2) + "\n",
      });
      lines.push(`- ${headline} (${countWords(body)} words): ${base}.txt, .docx, .json`);
    }
    lines.push("", "The other headlines:", ...headlines.filter((h) => !chosen.includes(h)));
    return lines.join("\n");
  },
};

/** The brief from `key: value` lines or a JSON object; throws saying what is missing. */
export function parseBrief(input: string): Brief {
  const text = input.trim();
  let fields: Record<string, unknown> = {};
  if (text.startsWith("{")) {
    try {
      fields = JSON.parse(text);
    } catch {
      throw new Error(`The input is not valid JSON. ${USAGE}`);
    }
  } else {
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([a-z_ ]+?)\s*:\s*(.+)$/i.exec(line);
      if (match) fields[match[1].toLowerCase().replace(/ /g, "_")] = match[2].trim();
    }
  }
  const field = (...names: string[]) => {
    for (const name of names) {
      const value = fields[name];
      if (typeof value === "string" && value.trim()) return value.trim();
      if (Array.isArray(value) && value.length) return value.join(", ");
    }
    return undefined;
  };
  const topic = field("topic");
  const company = field("company", "company_name");
  if (!topic || !company) throw new Error(`A topic and a company are needed. ${USAGE}`);
  return {
    topic,
    company,
    url: field("url"),
    lsi_terms: field("lsi_terms", "lsi"),
    required_phrase: field("required_phrase", "phrase"),
  };
}

/** The brief as the model reads it. */
function describe(brief: Brief): string {
  return [
    `Topic: ${brief.topic}`,
    `Company: ${brief.company}`,
    brief.url ? `Reference URL: ${brief.url}` : "",
    brief.lsi_terms ? `Terms to work in naturally: ${brief.lsi_terms}` : "",
    brief.required_phrase ? `Required phrase (exactly once): "${brief.required_phrase}"` : "",
  ].filter(Boolean).join("\n");
}

/** Seven headlines, one a line, stripped of numbers, bullets and quotes. */
async function writeHeadlines(brief: Brief, skill: SkillApi): Promise<string[]> {
  const reply = await skill.model(
    `${describe(brief)}\n\nWrite 7 different press-release headlines for this news, ` +
      "each under 110 characters. One per line, nothing else.",
    { system: SYSTEM },
  );
  const headlines = reply.split(/\r?\n/)
    .map((line) => line.replace(/^\s*(?:\d+[.)]|[-*•])\s*/, "").replace(/^["“]|["”]$/g, "").trim())
    .filter((line) => line.length > 0);
  const unique = [...new Set(headlines)].slice(0, 7);
  if (unique.length < 2) throw new Error(`The model gave no usable headlines: ${reply.trim()}`);
  return unique;
}

/** The two headlines the model picks, by number; the first two when its answer names none. */
async function pickTwo(headlines: string[], brief: Brief, skill: SkillApi): Promise<string[]> {
  const reply = await skill.model(
    `${describe(brief)}\n\nHeadlines:\n${headlines.map((h, i) => `${i + 1}. ${h}`).join("\n")}` +
      "\n\nWhich two are the best press-release headlines? Answer with their two numbers only, " +
      "e.g. `2, 5`.",
    { system: SYSTEM },
  );
  const picked: string[] = [];
  for (const [number] of reply.matchAll(/\d+/g)) {
    const headline = headlines[Number(number) - 1];
    if (headline && !picked.includes(headline)) picked.push(headline);
    if (picked.length === 2) return picked;
  }
  for (const headline of headlines) {
    if (picked.length < 2 && !picked.includes(headline)) picked.push(headline);
  }
  return picked;
}

/**
 * A release of 600–750 words: asked for again, told its length, while it is out of bounds or
 * misses the required phrase; a last one that is too long is cut at a paragraph or sentence
 * within the bounds. Throws when no attempt can be brought within them.
 */
async function writeRelease(headline: string, brief: Brief, skill: SkillApi): Promise<string> {
  const ask = `${describe(brief)}\nHeadline: ${headline}\n\nWrite the press release under this ` +
    `headline: ${MIN_WORDS}–${MAX_WORDS} words, a dateline, a quote from a company spokesperson, ` +
    `an "About ${brief.company}" paragraph, and ### at the end. Do not repeat the headline.`;
  let prompt = ask;
  let body = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    body = (await skill.model(prompt, { system: SYSTEM })).trim();
    const words = countWords(body);
    const phraseMissing = brief.required_phrase !== undefined &&
      !body.toLowerCase().includes(brief.required_phrase.toLowerCase());
    if (words >= MIN_WORDS && words <= MAX_WORDS && !phraseMissing) return body;
    const problems = [
      words < MIN_WORDS ? `it has ${words} words, fewer than ${MIN_WORDS}: expand it` : "",
      words > MAX_WORDS ? `it has ${words} words, more than ${MAX_WORDS}: shorten it` : "",
      phraseMissing ? `it must contain "${brief.required_phrase}" exactly once` : "",
    ].filter(Boolean).join("; ");
    prompt = `${ask}\n\nYour last draft is below; ${problems}.\n\n${body}`;
  }
  const trimmed = trimToWords(body, MAX_WORDS);
  const words = countWords(trimmed);
  if (words < MIN_WORDS || words > MAX_WORDS) {
    throw new Error(
      `After ${ATTEMPTS} tries the release for "${headline}" has ${countWords(body)} words, ` +
        `not ${MIN_WORDS}–${MAX_WORDS}; nothing was saved for it.`,
    );
  }
  return trimmed;
}

/** Words as a reader counts them: runs of text holding a letter or a digit. */
export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}

/**
 * `text` cut to at most `max` words, at the last paragraph or sentence end that fits (the
 * closing ### kept); unchanged when it fits.
 */
export function trimToWords(text: string, max: number): string {
  if (countWords(text) <= max) return text;
  const closing = /\n*#{3}\s*$/.test(text) ? "\n\n###" : "";
  const pieces = text.replace(/\n*#{3}\s*$/, "").split(/(?<=[.!?]["”’)]?)(?=\s)/);
  let kept = "";
  for (const piece of pieces) {
    if (countWords(kept + piece) > max) break;
    kept += piece;
  }
  return kept.trim() + closing;
}

/**
 * A schema.org NewsArticle for the release: the model's JSON-LD (description, keywords, about…)
 * with the facts hob knows set by hob — type, headline, date, publisher, body. When the model's
 * answer is not a JSON object, hob's own fields alone.
 */
async function writeSchema(
  headline: string,
  body: string,
  brief: Brief,
  date: string,
  skill: SkillApi,
): Promise<Record<string, unknown>> {
  const reply = await skill.model(
    `Write schema.org JSON-LD (type NewsArticle) for this press release by ${brief.company}. ` +
      "Include description, keywords and about. Answer with the JSON object only.\n\n" +
      `Headline: ${headline}\n\n${body}`,
    { system: SYSTEM },
  );
  const modelSchema = jsonObjectIn(reply) ?? {};
  const publisher = modelSchema.publisher && typeof modelSchema.publisher === "object"
    ? { ...modelSchema.publisher as Record<string, unknown>, name: brief.company }
    : { "@type": "Organization", name: brief.company, ...(brief.url ? { url: brief.url } : {}) };
  return {
    ...modelSchema,
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    headline,
    datePublished: date,
    publisher,
    author: modelSchema.author ?? { "@type": "Organization", name: brief.company },
    wordCount: countWords(body),
    articleBody: body,
  };
}

/** The first JSON object in a model's answer (fences and chatter around it ignored). */
function jsonObjectIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const value = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** A name safe as a file or directory name: lower-case words joined by hyphens. */
function slug(text: string): string {
  return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "untitled";
}
