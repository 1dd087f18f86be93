/**
 * One instance of each class redaction's hot passes make per view, kept for the isolate's life:
 * its map (V8's hidden class) then stays alive between bodies.
 *
 * Why (issue #40): V8 holds the map an instance ends up with after its constructor's fields only
 * while some object has it (a class's field transitions are weak), and optimized code refers to
 * the maps it checks weakly too. A full collection that finds no instance (between two views, at
 * the forced collections during a large body: ../request/large-body-collection.ts) frees the map
 * and throws away every optimized function that checks it; the hot passes then ran unoptimized
 * until V8 compiled them again. Four random 4 MiB bodies threw away ~200 optimized functions,
 * ~30 % of their CPU (bench/README.md, "Random bytes: the redaction's garbage"). A leaf: it
 * imports nothing.
 */

const kept: object[] = [];

/**
 * Keeps `instance`, and so its map, for the isolate's life. Give it an instance whose fields hold
 * values of the kinds real ones hold (integers where they hold integers): a field that later
 * holds another kind (a fraction, `Infinity`) gets a new map, which the kept one does not hold.
 * @param instance - a small instance of the class (an empty text, no buffers)
 * @returns the instance
 */
export function keepShape<T extends object>(instance: T): T {
  kept.push(instance);
  return instance;
}

/** The instances kept so far (a test checks every hot class has one). */
export const keptShapes = (): readonly object[] => kept;
