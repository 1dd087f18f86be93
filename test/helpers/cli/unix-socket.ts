/**
 * A Unix socket for a test's stand-in runtime: the local server's runtimes serve HTTP on Unix
 * sockets in a private folder (cli/local-server/runtime.mjs), so their stand-ins do too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const folder = mkdtempSync(join(tmpdir(), "cmm-test-"));
let count = 0;
process.once("exit", () => rmSync(folder, { recursive: true, force: true }));

/**
 * A fresh socket path (nothing listens on it yet).
 * @returns the path
 */
export function socketPath(): string {
  return join(folder, `s${++count}.sock`);
}

/**
 * Makes `server` listen on `path` (default: a fresh one), removing a file a closed server left.
 * @returns the path
 */
export async function listenUnix(server: Server, path = socketPath()): Promise<string> {
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return path;
}
