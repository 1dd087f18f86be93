// Whether another program already listens on a port of 127.0.0.1, asked before any runtime
// starts: the launcher refuses then with the setting's name and the fix, like every other bad
// setting ("nothing was started"), and a `--stdio` client gets that refusal as its `initialize`
// error (issue #42). The supervisor's own listen still reports a port taken in between.
import { createServer } from "node:net";

/**
 * Tries to listen on 127.0.0.1:`port` and closes again at once.
 * @param {number} port
 * @returns {Promise<boolean>} true only when another program holds the port (EADDRINUSE); any
 *   other failure is left for the server's own listen to report
 */
export function portInUse(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (/** @type {NodeJS.ErrnoException} */ error) =>
      resolve(error.code === "EADDRINUSE"),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}
