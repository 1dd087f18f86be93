/**
 * Golden files: generated text compared byte for byte with a checked-in file under test/golden/
 * (vitest's `toMatchFileSnapshot`). Regenerate with `-u` (or `UPDATE_GOLDEN=1`, which
 * vitest.config.ts turns into `-u`); a missing golden is written locally and fails in CI.
 */
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** Absolute path of the golden files' folder. */
export const GOLDEN_DIR = fileURLToPath(new URL("../golden/", import.meta.url));

/**
 * Asserts that `actual` equals the golden file `name` (a path under test/golden/).
 * @param name - the golden's file name, e.g. `code-description.5.txt`
 * @param actual - the generated text
 */
export async function golden(name: string, actual: string): Promise<void> {
  await expect(actual).toMatchFileSnapshot(GOLDEN_DIR + name);
}
