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
    expect(placementCaller(from("198.51.100.9"), KEYED, undefined)).toBe("address:198.51.100.9");
  });

  it("names nobody for a loopback address or none: every client of a local server has it", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
      expect(placementCaller(from(address), OPEN, undefined), address).toBe("");
    expect(placementCaller(from(), OPEN, undefined)).toBe("");
    expect(placementCaller(from("::ffff:203.0.113.7"), OPEN, undefined)).toBe(
      "address:203.0.113.7",
    );
  });

  it("names an IPv6 client by its /64, as the attempt limiter counts it: one host holds a whole /64", () => {
    // Named by its full address, one host sending each run from another address of its /64 was
    // a new caller per run: past the cap, it took every runner from the others.
    const names = ["2001:db8:40:1::1", "2001:DB8:40:1::ffff", "2001:0db8:0040:0001:a:b:c:d"].map(
      (address) => placementCaller(from(address), OPEN, undefined),
    );
    expect(names).toEqual(Array(3).fill("address:2001:db8:40:1::/64"));
    expect(placementCaller(from("2001:db8:40:2::1"), KEYED, undefined)).toBe(
      "address:2001:db8:40:2::/64",
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
