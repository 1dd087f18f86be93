/**
 * cli/port-in-use.mjs: the launcher's question before any runtime starts (issue #42: a port in
 * use is refused like every other bad setting, so a `--stdio` client gets the message). Real
 * sockets on 127.0.0.1.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../../../cli/local-server/free-port.mjs";
import { portInUse } from "../../../cli/port-in-use.mjs";

describe("portInUse", () => {
  it("is true while another program listens on the port, false once it is free again", async () => {
    const port = await freePort();
    expect(await portInUse(port)).toBe(false);
    const other = createServer();
    await new Promise((resolve) => other.listen(port, "127.0.0.1", () => resolve(undefined)));
    try {
      expect(await portInUse(port)).toBe(true);
    } finally {
      await new Promise((resolve) => other.close(() => resolve(undefined)));
    }
    // Asking leaves the port free: the server's own listen takes it next.
    expect(await portInUse(port)).toBe(false);
  });
});
