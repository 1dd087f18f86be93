// `code-mode-mcp check <spec>`: what a user wants to know before serving a spec. It runs the same
// validation and compiler as `serve` and the build step (swagger-parser, then the Worker's
// compiler), and lists the tools/list `/mcp` would answer with, counted in tokens.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Checks one spec file and prints a summary (stdout) or its problems (stderr).
 * @param {any} product - the product module
 * @param {string} input - the spec file as the user wrote it
 * @param {(line: string) => void} progress - stderr
 * @returns {Promise<number>} the exit code: 0 usable, 1 not
 */
export async function checkSpecFile(product, input, progress) {
  const file = resolve(input);
  if (!existsSync(file) || !statSync(file).isFile()) {
    console.error(
      `code-mode-mcp check: ${file} does not exist.\n  Fix: name an OpenAPI 2.0/3.0/3.1 file (JSON or YAML).`,
    );
    return 1;
  }
  const problems = (/** @type {string} */ text) => {
    console.error(
      `code-mode-mcp check: ${input} cannot be served.\nProblems (where: what is wrong (rule)):\n${text}\n  Fix: correct the spec where each line says (a JSON pointer, or a line and column) as its rule says (the OpenAPI schema, or what the server relies on), then run check again.`,
    );
    return 1;
  };
  progress(`code-mode-mcp check: validating ${input} …`);
  const loaded = await product.loadSpecFile(file, product.findSpecProblems);
  if (!loaded.ok) return problems(loaded.message);
  progress(`code-mode-mcp check: compiling …`);
  /** @type {any} */
  let compact;
  try {
    compact = product.compileSpec(loaded.doc, { label: input });
  } catch (error) {
    return problems(product.terminalText(/** @type {Error} */ (error)?.message ?? error));
  }
  const text = JSON.stringify(compact);
  progress(`code-mode-mcp check: listing the tools …`);
  const listed = await product.measureToolsList(text);
  const doc = loaded.doc;
  const version = doc.swagger ? `Swagger ${doc.swagger}` : `OpenAPI ${doc.openapi}`;
  /** @type {string[]} */
  const servers = (compact.servers ?? [])
    .map((/** @type {{ url?: unknown }} */ s) => s?.url)
    .filter((/** @type {unknown} */ u) => typeof u === "string");
  const absolute = servers.find((u) => /^https?:\/\//.test(u));
  // The spec's own strings, each as one line with no terminal controls: a server URL holding a
  // carriage return or an ESC sequence rewrote the "base URL" line, the one that says where the
  // credential goes (cli/product/terminal-text.mjs).
  const shown = (/** @type {unknown} */ value) => product.oneLineText(value);
  const lines = [
    `code-mode-mcp check: ${input}`,
    `  spec:        "${shown(doc.info?.title)}" ${shown(doc.info?.version)} (${shown(version)})`,
    `  operations:  ${compact.operations.length}`,
    `  compiled:    ${text.length} bytes (what the Worker ships and search reads)`,
    `  tools/list:  ${listed.tokens} o200k tokens for ${listed.tools.join(" + ")} (about the same for any spec size)`,
    `  base URL:    ${absolute ? `${shown(absolute)} (from servers; --base-url overrides)` : "none in servers: serve needs --base-url"}`,
    ...loaded.notes.map((/** @type {string} */ n) => `  note:        ${shown(n)}`),
    `  problems:    none`,
    "",
    `Serve it: npx code-mode-mcp serve --spec ${input}${absolute ? "" : " --base-url https://api.example.com"}`,
  ];
  console.log(lines.join("\n"));
  return 0;
}
