/**
 * hob.yaml's schema read for its sensitivity marks (schema.ts): what a key is
 * marked, every key the schema can hold, and the tree of marks redact.ts
 * walks (marks.gen.ts, written from {@linkcode marksOf} by `deno task
 * gen:config`). Loads the schema: for the generator, tests and the reference.
 */

import type { z } from "zod";
import type { MarkTree } from "./mark_tree.ts";
import { type Sensitivity, sensitivity } from "./schema.ts";

type Schema = z.core.$ZodType;
/** The definition fields the walk reads; which ones are set depends on `type`. */
interface Def {
  type: string;
  innerType?: Schema;
  getter?: () => Schema;
  shape?: Record<string, Schema>;
  valueType?: Schema;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  options?: Schema[];
  left?: Schema;
  right?: Schema;
  in?: Schema;
  out?: Schema;
}

/** Wrappers whose value is the wrapped schema's (or nothing). */
const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "nonoptional",
  "readonly",
  "catch",
]);

function defOf(schema: Schema): Def {
  return schema._zod.def as unknown as Def;
}

/** The schema a wrapper (optional, default, lazy…) stands for, or undefined for any other. */
function innerOf(schema: Schema): Schema | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return def.innerType;
  if (def.type === "lazy") return def.getter?.();
  return undefined;
}

/**
 * The mark on a schema: its own, or that of the first marked schema it wraps,
 * so `secret(z.string()).optional()` is as secret as `secret(z.string())`.
 *
 * @example
 * ```ts
 * sensitivityOf(providerSchema.shape.api_key); // "secret"
 * ```
 */
export function sensitivityOf(schema: Schema): Sensitivity | undefined {
  for (let layer: Schema | undefined = schema; layer; layer = innerOf(layer)) {
    const mark = sensitivity.get(layer);
    if (mark) return mark.sensitivity;
  }
  return undefined;
}

/** The schema under every wrapper. */
export function unwrapSchema(schema: Schema): Schema {
  let layer = schema;
  for (let inner = innerOf(layer); inner; inner = innerOf(layer)) layer = inner;
  return layer;
}

/** One key of an object schema, wherever it sits in the tree. */
export interface SchemaKey {
  /** Dotted, with `*` for a record's entries and `[]` for an array's: `providers.*.api_key`. */
  path: string;
  /** The key's own name. */
  name: string;
  schema: Schema;
}

/**
 * Every key of every object a schema can hold — through records, arrays,
 * unions and wrappers — for tests that check each secret-looking key is marked.
 *
 * @example
 * ```ts
 * [...schemaKeys(configSchema)].some((key) => key.path === "email.smtp.password"); // true
 * ```
 */
export function* schemaKeys(schema: Schema, path = ""): Generator<SchemaKey> {
  const def = defOf(unwrapSchema(schema));
  const at = (part: string) => (path ? `${path}.${part}` : part);
  switch (def.type) {
    case "object":
      for (const [name, child] of Object.entries(def.shape ?? {})) {
        yield { path: at(name), name, schema: child };
        yield* schemaKeys(child, at(name));
      }
      return;
    case "record":
      yield* schemaKeys(def.valueType!, at("*"));
      return;
    case "array":
      yield* schemaKeys(def.element!, `${path}[]`);
      return;
    default:
      for (const child of childrenOf(def)) yield* schemaKeys(child, path);
  }
}

/** The schemas a union, intersection, tuple or pipe is made of. */
function childrenOf(def: Def): Schema[] {
  switch (def.type) {
    case "union":
      return def.options ?? [];
    case "intersection":
      return [def.left!, def.right!];
    case "tuple":
      return [...(def.items ?? []), ...(def.rest ? [def.rest] : [])];
    case "pipe":
      return [def.in!, def.out!];
    default:
      return [];
  }
}

/**
 * The tree of marks under `schema`: for each marked value (other than
 * `public`), the keys that lead to it — through objects by name, records as
 * `*`, arrays and tuples as `[]`, and unions, intersections and pipes each
 * part at the same place. Where parts disagree, the tree hides at least what
 * applying each part in turn would: a mark over a place wins over marks
 * inside it, two different marks are `secret`, and a record's marks (`*`)
 * reach the keys an object beside it names.
 *
 * @example
 * ```ts
 * marksOf(configSchema).providers["*"].api_key; // "secret"
 * ```
 */
export function marksOf(schema: Schema): MarkTree | undefined {
  const mark = sensitivityOf(schema);
  if (mark && mark !== "public") return mark;
  const def = defOf(unwrapSchema(schema));
  let tree: MarkTree | undefined;
  const put = (key: string, child: Schema) => {
    const marks = marksOf(child);
    if (marks !== undefined) tree = merged(tree, { [key]: marks });
  };
  switch (def.type) {
    case "object":
      for (const [name, child] of Object.entries(def.shape ?? {})) put(name, child);
      break;
    case "record":
      put("*", def.valueType!);
      break;
    case "array":
      put("[]", def.element!);
      break;
    case "tuple":
      for (const child of childrenOf(def)) put("[]", child);
      break;
    default:
      for (const child of childrenOf(def)) {
        const marks = marksOf(child);
        if (marks !== undefined) tree = merged(tree, marks);
      }
  }
  return tree;
}

/** Two parts' marks at one place, as one that hides what either would. */
function merged(a: MarkTree | undefined, b: MarkTree): MarkTree {
  if (a === undefined || a === b) return b;
  if (typeof a === "string" && typeof b === "string") return "secret";
  if (typeof a === "string") return a;
  if (typeof b === "string") return b;
  const tree: Record<string, MarkTree> = { ...a };
  for (const [key, value] of Object.entries(b)) tree[key] = merged(tree[key], value);
  const any = tree["*"];
  if (any === undefined) return tree;
  // A key an object names may be the record's too: it gets both parts' marks.
  for (const key of Object.keys(tree)) if (key !== "*") tree[key] = merged(tree[key], any);
  return tree;
}
