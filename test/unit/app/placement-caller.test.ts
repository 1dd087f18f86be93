// Who a run is placed for (src/app/placement-caller.ts): on a local server every client comes
// from loopback, so the front names each connection's process (X-Local-Caller) and the host
// places runs by it, but only where the host's ports take the front's requests alone (the
// cluster secret). A copy a client wrote itself, sent where no secret guards the ports
// (deployed, `wrangler dev`), names nobody.
import { describe, expect, it } from "vitest";
import type { AppConfig } from "../../../src/app/config/config";
import { placementCaller } from "../../../src/app/placement-caller";
import { LOCAL_CALLER_HEADER } from "../../../src/executor/runners/cluster-secret";

const open = { oauth: false, apiKey: undefined } as unknown as AppConfig;

/** A request as the app sees it: the address the front or the edge wrote, and a caller. */
function request(address: string | undefined, caller?: string): Request {
  const headers = new Headers();
  if (address !== undefined) headers.set("cf-connecting-ip", address);
  if (caller !== undefined) headers.set(LOCAL_CALLER_HEADER, caller);
  return new Request("http://localhost/mcp", { method: "POST", headers });
}

describe("placementCaller on a local server (the front's caller believed)", () => {
  it("places each local process as a caller of its own", () => {
    expect(placementCaller(request("127.0.0.1", "process:1234"), open, undefined, true)).toBe(
      "local:process:1234",
    );
    expect(placementCaller(request("127.0.0.1", "process:99"), open, undefined, true)).toBe(
      "local:process:99",
    );
    // Another user's processes are not ours to read: one caller per user.
    expect(placementCaller(request("::1", "user:1001"), open, undefined, true)).toBe(
      "local:user:1001",
    );
    expect(placementCaller(request(undefined, "process:7"), open, undefined, true)).toBe(
      "local:process:7",
    );
  });

  it("names nobody for a client not named yet, nor where /proc cannot tell, nor an odd key", () => {
    for (const caller of [
      undefined,
      "",
      "unknown",
      "process:",
      "process:12x",
      "process:1 2",
      "address:10.0.0.1",
      "local:process:1",
      `process:${"9".repeat(11)}`,
    ])
      expect(placementCaller(request("127.0.0.1", caller), open, undefined, true), caller).toBe("");
  });

  it("keeps a remote client's address, whatever caller the request carries", () => {
    expect(placementCaller(request("192.0.2.7", "process:1"), open, undefined, true)).toBe(
      "address:192.0.2.7",
    );
  });

  it("places by the OAuth user when OAuth is on, not by the process", () => {
    const oauth = { oauth: true } as unknown as AppConfig;
    const auth = { token: "t", clientId: "c", scopes: [], extra: { props: { userId: "u1" } } };
    expect(placementCaller(request("127.0.0.1", "process:1"), oauth, auth, true)).toBe("oauth:u1");
  });
});

describe("placementCaller where no cluster secret guards the ports", () => {
  it("ignores a caller header a client wrote itself (deployed, or `wrangler dev`)", () => {
    // Before: the header did not exist, and every loopback client was nobody (""); a forged one
    // must not pick a process's share of the runners, or a fresh caller per request.
    for (const address of ["127.0.0.1", "::1", undefined])
      expect(placementCaller(request(address, "process:1234"), open, undefined, false)).toBe("");
    expect(placementCaller(request("127.0.0.1", "process:1234"), open, undefined)).toBe("");
  });
});
