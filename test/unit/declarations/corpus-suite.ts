/**
 * The JSON Schema Test Suite cases of the declarations corpus (issue #16): every schema of the
 * suite's draft2020-12 and draft7 keyword files (vendored under test/fixtures/json-schema-test-suite,
 * see its README), each with the suite's valid and invalid instances.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A draft the suite covers and the corpus uses. */
export type SuiteDraft = "2020-12" | "7";

/** One instance of a suite case. */
export interface SuiteInstance {
  description: string;
  data: unknown;
  valid: boolean;
}

/** One schema of the suite with its instances. */
export interface SuiteCase {
  /** `draft2020-12/items.json #3`: where the case is, stable across runs. */
  id: string;
  draft: SuiteDraft;
  file: string;
  description: string;
  schema: unknown;
  tests: SuiteInstance[];
}

const ROOT = fileURLToPath(new URL("../../fixtures/json-schema-test-suite/", import.meta.url));
const DIRS: Record<SuiteDraft, string> = { "2020-12": "draft2020-12", "7": "draft7" };

/** Every case of both drafts, in file and case order. */
export function suiteCases(): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (const draft of ["2020-12", "7"] as const) {
    const dir = DIRS[draft];
    const files = readdirSync(join(ROOT, dir)).filter((f) => f.endsWith(".json"));
    for (const file of files.toSorted()) {
      const groups = JSON.parse(readFileSync(join(ROOT, dir, file), "utf8")) as Array<{
        description: string;
        schema: unknown;
        tests: SuiteInstance[];
      }>;
      groups.forEach((group, index) =>
        cases.push({
          id: `${dir}/${file} #${index}`,
          draft,
          file,
          description: group.description,
          schema: group.schema,
          tests: group.tests,
        }),
      );
    }
  }
  return cases;
}
