/**
 * Placeholder for the typecheck only. At run time the host supplies `user.js`: the model's code,
 * normalized and instrumented by src/executor/instrument.ts. The sandbox bundle never includes
 * this file (`./user.js` is external in scripts/build-sandbox.mjs).
 */
const entry: unknown = undefined;
export default entry;
