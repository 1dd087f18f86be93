/**
 * Every disagreement in the declarations corpus that no general convention explains, each with
 * its reason. Keys are `<suite file> #<case> / <test description>` (one instance) or
 * `<suite file> #<case>` (every instance of a case); an entry that explains nothing any more
 * fails the corpus test, so the list only shrinks when the emitter improves.
 */

const REMOTE_REF =
  "a $ref to a remote document (the draft's metaschema): the emitter resolves references inside the document only and types it unknown; the validator cannot resolve it either (it throws Unresolved $ref)";
const INHERITED_MEMBERS =
  "keys named toString/constructor: TypeScript gives every object the inherited members, so it neither demands such a key nor accepts {} against toString?: { length?: string }";

const UNIQUE_ITEMS =
  "the host leaves `uniqueItems` to the upstream (src/codemode/upstream/tool-input-schema.ts): the validator compares every pair of items, and a 4 MB argument a program chose holds hundreds of thousands of them; the declaration says nothing about it either";

/** Suite files left out whole. */
export const SKIPPED_FILES: Record<string, string> = {
  "draft2020-12/dynamicRef.json":
    "$dynamicRef resolves through the dynamic scope at validation time; @cfworker/json-schema does not implement it (most of the file's instances disagree with the suite) and the emitter types $dynamicRef as unknown",
  "draft2020-12/vocabulary.json":
    "custom metaschemas with $vocabulary: neither the validator nor the emitter reads metaschemas",
};

/** Instances whose declaration disagrees with the suite for a reason of its own. */
export const TYPE_LEDGER: Record<string, string> = {
  "draft2020-12/defs.json #0": REMOTE_REF,
  "draft2020-12/ref.json #6": REMOTE_REF,
  "draft7/definitions.json #0": REMOTE_REF,
  "draft7/ref.json #7": REMOTE_REF,
  "draft2020-12/properties.json #5 / none of the properties mentioned": INHERITED_MEMBERS,
  "draft7/properties.json #5 / none of the properties mentioned": INHERITED_MEMBERS,
  "draft2020-12/required.json #4 / __proto__ present": INHERITED_MEMBERS,
  "draft7/required.json #4 / __proto__ present": INHERITED_MEMBERS,
};

/**
 * Instances on which the run-time validator (@cfworker/json-schema, as ToolCatalog.validate runs
 * it) disagrees with the suite.
 */
export const VALIDATOR_LEDGER: Record<string, string> = {
  "draft2020-12/format.json":
    "the validator asserts `format` (a malformed email is refused), where 2020-12 makes it an annotation by default: stricter than the suite, on purpose (a tool that declares a format gets it)",
  "draft2020-12/defs.json #0": REMOTE_REF,
  "draft2020-12/ref.json #6": REMOTE_REF,
  "draft7/definitions.json #0": REMOTE_REF,
  "draft7/ref.json #7": REMOTE_REF,
  "draft2020-12/uniqueItems.json": UNIQUE_ITEMS,
  "draft7/uniqueItems.json": UNIQUE_ITEMS,
  "draft2020-12/ref.json #19":
    "two subschemas declare the same $anchor under different base URIs; the validator resolves `#bigint` to the wrong one",
  "draft2020-12/unevaluatedItems.json #18":
    "needs $dynamicRef, which the validator does not implement",
  "draft2020-12/unevaluatedProperties.json #21":
    "needs $dynamicRef, which the validator does not implement",
  "draft7/ref.json #5 / ref valid, maxItems ignored":
    "the code tool validates every input schema as 2020-12, where keywords beside a $ref apply; draft-07 ignores them (the only draft-07 instance of the suite on which the two readings differ)",
  "draft7/ref.json #6":
    "in draft-07 a $ref hides its sibling $id; the validator applies the 2019-09 rule (the sibling $id changes the base URI)",
};

/** Tools whose json-schema-to-typescript type is wrong, with the type the schema means. */
export const JSTT_CORRECTIONS: Record<string, { reason: string; expected: string }> = {};
