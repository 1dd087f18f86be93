// What the supervisor replaced, read from the server's output: it logs every replacement as
// "npm start: <runtime N | runner N> is replaced because <reason>…" (cli/local-server/
// supervise.mjs). The load scripts assert on these lines: a replacement is the failure they
// look for, whatever the clients saw.

/**
 * Every replacement line in `output`.
 * @param {string} output
 * @returns {string[]}
 */
export function replacements(output) {
  return output.split("\n").filter((line) => / is replaced because /.test(line));
}

/**
 * Host runtime replacements only ("runtime N is replaced …").
 * @param {string} output
 */
export function hostReplacements(output) {
  return replacements(output).filter((line) => /\bruntime \d+ is replaced because /.test(line));
}
