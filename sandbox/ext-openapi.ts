/**
 * Placeholder for the typecheck only: at run time `ext-openapi.js` is the bundle of
 * sandbox/extensions/openapi.ts (see scripts/build-sandbox.mjs).
 */
export { install } from "./extensions/openapi";
