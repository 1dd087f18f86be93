/**
 * Vite's `?raw` imports (a file's text as a string), as the test suites use them for large
 * JSON specs: typing a 4 MB JSON module would double the typecheck time.
 */
declare module "*?raw" {
  const text: string;
  export default text;
}
