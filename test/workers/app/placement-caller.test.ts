// Who a run is placed for on the local sandbox runners (src/app/placement-caller.ts): the cap of
// runner-loader.ts counts runs per this name, so a name that lumps callers together caps them
// together, and one that tells one caller apart from itself lets it past the cap.
import { describe, expect, it } from "vitest";
import type { AppConfig } from "../../../src/app/config/config";
import { currentCaller, placementCaller, runAsCaller } from "../../../src/app/placement-caller";

const OPEN = { oauth: false, apiKey: undefined } as unknown as AppConfig;
const KEYED = { oauth: false, apiKey: "k".repeat(32) } as unknown as AppConfig;
const OAUTH = { oauth: true } as unknown as AppConfig;

const from = (address?: string) =>
  new Request("https://x.test/mcp", {
    headers: address === undefined ? {} : { "cf-connecting-ip": address },
  });

describe("placementCaller", () => {
  it("names a client by its address, with or without an API key (every key holder shares the key)", () => {
    expect(placementCaller(from("203.0.113.7"), OPEN, undefined)).toBe("address:203.0.113.7");
    expect(placementCaller(from("2001:DB8::1"), KEYED, undefined)).toBe("address:2001:db8::1");
  });

  it("names nobody for a loopback address or none: every client of a local server has it", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
      expect(placementCaller(from(address), OPEN, undefined), address).toBe("");
    expect(placementCaller(from(), OPEN, undefined)).toBe("");
    expect(placementCaller(from("::ffff:203.0.113.7"), OPEN, undefined)).toBe(
      "address:::ffff:203.0.113.7",
    );
  });

  it("names the OAuth user when OAuth is on, whatever the address", () => {
    const authInfo = { token: "t", clientId: "c", scopes: [], extra: { props: { userId: "u1" } } };
    expect(placementCaller(from("127.0.0.1"), OAUTH, authInfo)).toBe("oauth:u1");
    expect(placementCaller(from("203.0.113.7"), OAUTH, authInfo)).toBe("oauth:u1");
  });

  it("keeps the caller for everything the request starts, across awaits, and only there", async () => {
    expect(currentCaller()).toBe("");
    const seen = await runAsCaller("address:203.0.113.7", async () => {
      await new Promise((r) => setTimeout(r, 5));
      return currentCaller();
    });
    expect(seen).toBe("address:203.0.113.7");
    expect(currentCaller()).toBe("");
  });
});
