/**
 * Whether a runtime's socket file is still its own (cli/local-server/health/socket-identity.mjs),
 * over real Unix sockets: the file removed, or another socket bound at its name (what another
 * process of the user did to take the host's requests), is no longer the same file.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  sameSocketFile,
  socketIdentity,
} from "../../../../cli/local-server/health/socket-identity.mjs";

const dir = mkdtempSync(join(tmpdir(), "socket-identity-"));
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

function listen(file: string): Promise<void> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  return new Promise((resolve) => server.listen(file, () => resolve()));
}

describe("a runtime's socket file", () => {
  it("a socket has an identity; a missing file, a plain file or no path has none", async () => {
    const file = join(dir, "a.sock");
    await listen(file);
    expect(socketIdentity(file)).toMatch(/^\d+:\d+$/);
    expect(socketIdentity(join(dir, "missing.sock"))).toBeUndefined();
    writeFileSync(join(dir, "plain"), "x");
    expect(socketIdentity(join(dir, "plain"))).toBeUndefined();
    expect(socketIdentity("")).toBeUndefined();
  });

  it("stays the same until the file is removed", async () => {
    const file = join(dir, "b.sock");
    await listen(file);
    const same = sameSocketFile(() => file);
    expect(same()).toBe(true);
    expect(same()).toBe(true);
    unlinkSync(file);
    expect(same()).toBe(false);
  });

  it("another socket bound at its name is not the same file", async () => {
    const file = join(dir, "c.sock");
    await listen(file);
    const same = sameSocketFile(() => file);
    expect(same()).toBe(true);
    unlinkSync(file);
    await listen(file);
    expect(same()).toBe(false);
  });

  it("a runtime not listening yet is not taken for gone; its first socket is the one", async () => {
    const file = join(dir, "d.sock");
    let path = "";
    const same = sameSocketFile(() => path);
    expect(same()).toBe(true);
    path = file;
    expect(same()).toBe(true);
    await listen(file);
    expect(same()).toBe(true);
    expect(same()).toBe(true);
  });
});
