/**
 * The HTTP servers a test file starts (a front, runtime stand-ins), each closed after its test
 * with its connections: a test that failed midway leaves none listening for the next.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { listenUnix } from "./unix-socket.js";

/** What {@link testServers} gives a test file. */
export interface TestServers {
  /** The servers the current test started, in order. */
  readonly started: readonly Server[];
  /** Listens on a free loopback port, and gives the port. */
  listen(server: Server): Promise<number>;
  /**
   * Listens on a Unix socket, as the local server's runtimes do, and gives its path: a fresh one,
   * or `path` (a runtime replacing one that served there).
   */
  listenRuntime(server: Server, path?: string): Promise<string>;
}

/**
 * Servers closed after each test; call it at a test file's top level (it registers the close
 * with `afterEach`).
 */
export function testServers(): TestServers {
  const started: Server[] = [];
  afterEach(async () => {
    for (const server of started.splice(0)) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
  return {
    started,
    async listen(server) {
      started.push(server);
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
      return (server.address() as AddressInfo).port;
    },
    listenRuntime(server, path) {
      started.push(server);
      return listenUnix(server, path);
    },
  };
}
