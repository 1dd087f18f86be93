// Which requests read the caller's skills for tool descriptions (caller-skills.ts mayListTools):
// a listing, or a request that does not say its method; never a call or a discovery.
import { describe, expect, it } from "vitest";
import { mayListTools } from "../../../../src/codemode/skills/caller-skills";

const request = (method?: string) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    ...(method ? { headers: { "mcp-method": method } } : {}),
  });

describe("mayListTools", () => {
  it("reads skills for tools/list and for requests that name no method", () => {
    expect(mayListTools(request("tools/list"))).toBe(true);
    expect(mayListTools(request())).toBe(true);
    expect(mayListTools(undefined)).toBe(true);
  });
  it("skips the read for calls and other methods", () => {
    for (const method of ["tools/call", "server/discover", "initialize", "resources/list"])
      expect(mayListTools(request(method))).toBe(false);
  });
});
