/**
 * The shape of the schema's marks as a tree of keys: what schema_marks.ts
 * makes of the schema, marks.gen.ts holds, and redact.ts walks.
 */

import type { Sensitivity } from "./schema.ts";

/**
 * Where a configuration's marked values are: a mark, or the marks under each
 * key (`*` standing for any key of a record, `[]` for any element of an array).
 */
export type MarkTree = Exclude<Sensitivity, "public"> | { readonly [key: string]: MarkTree };
