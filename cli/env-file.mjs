// The env file through which the launchers hand settings to `wrangler dev`: secrets never appear
// on a command line or in output. Mode 0600, in a folder the launcher deletes on exit.
import { chmodSync, writeFileSync } from "node:fs";

/**
 * One line of the env file wrangler reads (dotenv rules): single quotes keep a value literal, so
 * JSON such as `UPSTREAM_MCP_AUTH={"github":"Bearer …"}` arrives intact (inside double quotes
 * dotenv keeps the backslashes of `\"`, and the Worker saw invalid JSON).
 * @param {string} key
 * @param {string} value
 * @returns {string | undefined} undefined when dotenv cannot carry the value
 */
export function envLine(key, value) {
  if (!value.includes("\n")) {
    for (const quote of ["'", "`"])
      if (!value.includes(quote)) return `${key}=${quote}${value}${quote}`;
  }
  // Double quotes expand \n; they cannot carry a double quote (dotenv leaves its backslash).
  if (!value.includes('"')) return `${key}="${value.replaceAll("\n", "\\n")}"`;
  return undefined;
}

/**
 * Writes `values` to `file` (mode 0600).
 * @param {string} file
 * @param {Record<string, string>} values
 * @returns {string | undefined} the name of a value that cannot be written, if any
 */
export function writeEnvFile(file, values) {
  const lines = [];
  for (const [key, value] of Object.entries(values)) {
    const line = envLine(key, value);
    if (line === undefined) return key;
    lines.push(line);
  }
  writeFileSync(file, lines.join("\n") + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return undefined;
}
