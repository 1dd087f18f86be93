/**
 * The callers' keys on a real Linux /proc (cli/local-server/front/callers/peer-owners.mjs): a
 * server in the test, a child process and the test's own process connect to it, and each
 * connection must come out as the process that made it. Skipped where there is no /proc/net/tcp
 * (macOS, Windows): there every local client is `unknown` by design, which the fake-/proc tests
 * cover.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  createPeerOwners,
  type PeerOwners,
  UNKNOWN,
} from "../../../../../cli/local-server/front/callers/peer-owners.mjs";

const LINUX = process.platform === "linux" && existsSync("/proc/net/tcp");

/** The next connection `server` accepts. */
const accepted = (server: Server) =>
  new Promise<Socket>((resolve) => server.once("connection", resolve));

/** The socket's key once a look has settled it (a guard: at most ~10 s of looks). */
async function settled(owners: PeerOwners, socket: Socket): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const key = owners.of(socket);
    if (key !== UNKNOWN) return key;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return UNKNOWN;
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
});

describe.skipIf(!LINUX)("peer owners on this machine's /proc (Linux only)", () => {
  it("keys a child's connection by the child's pid, and our own by ours", async () => {
    const server = createServer();
    cleanup.push(() => server.close());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const owners = createPeerOwners();

    const fromChild = accepted(server);
    // The child connects and stays until its stdin closes (or 20 s, should the test die).
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const s = require("node:net").connect(${port}, "127.0.0.1");
         process.stdin.on("end", () => process.exit(0)); process.stdin.resume();
         setTimeout(() => process.exit(0), 20000);`,
      ],
      { stdio: ["pipe", "ignore", "inherit"] },
    );
    cleanup.push(() => child.kill());
    const childSocket = await fromChild;
    cleanup.push(() => childSocket.destroy());

    const fromUs = accepted(server);
    const ours = connect(port, "127.0.0.1");
    cleanup.push(() => ours.destroy());
    const ourSocket = await fromUs;
    cleanup.push(() => ourSocket.destroy());

    // Both asked about at once: one look finds both.
    expect(owners.of(childSocket)).toBe(UNKNOWN);
    expect(owners.of(ourSocket)).toBe(UNKNOWN);
    expect(await settled(owners, childSocket)).toBe(`process:${child.pid}`);
    expect(await settled(owners, ourSocket)).toBe(`process:${process.pid}`);
  });
});
