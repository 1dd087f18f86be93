/**
 * A stand-in for the sandbox runner's Worker, for tests that start real runtimes
 * (cli/local-server/runtime.mjs): its module (a `SandboxRunner` entry point, as the runtime's
 * configuration names one, and a `fetch` of the test's choosing) and a GET to it over the Unix
 * socket the runtime serves on.
 */
import { writeFileSync } from "node:fs";
import { request } from "node:http";

/**
 * Writes the stand-in runner's module to `path`.
 * @param path - where (the runner message's `scriptPath`)
 * @param fetch - the source of its `fetch` handler, e.g. `() => new Response("ok")`
 * @returns the path
 */
export function writeStandInRunner(path: string, fetch: string): string {
  writeFileSync(
    path,
    `import { WorkerEntrypoint } from "cloudflare:workers";\nexport class SandboxRunner extends WorkerEntrypoint {}\nexport default { fetch: ${fetch} };\n`,
  );
  return path;
}

/**
 * GET / over a Unix socket.
 * @param socket - the socket's path
 * @returns the answer's body
 */
export function getOverSocket(socket: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = request({ socketPath: socket, path: "/", method: "GET" }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}
