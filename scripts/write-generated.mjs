// Writes a generated file the way concurrent builds need: unchanged content is not written at
// all (the file keeps its bytes and its time), changed content goes to a file beside it that is
// renamed into place. CI runs `npm test` (whose pretest builds) beside `npm run e2e`, smoke,
// deploy:dry and `npm pack` (each builds too): with plain writes, one build could read a file
// another was halfway through rewriting.
import { readFile, rename, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `file` unless it already holds exactly that; atomically when it does not.
 * @param {string} file - absolute path; its folder must exist
 * @param {string} text
 * @returns {Promise<boolean>} whether the file was written
 */
export async function writeGenerated(file, text) {
  const current = await readFile(file, "utf8").catch(() => undefined);
  if (current === text) return false;
  const staged = `${file}.${process.pid}.tmp`;
  await writeFile(staged, text);
  await rename(staged, file);
  return true;
}
