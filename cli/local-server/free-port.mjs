/**
 * A TCP port free on 127.0.0.1 right now (the OS picks it), for the scripts that start local
 * servers: the e2e tests and the benchmark.
 */
import { createServer } from "node:net";

/** @returns {Promise<number>} the port */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
