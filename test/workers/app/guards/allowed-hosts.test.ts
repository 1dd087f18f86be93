/**
 * The product's Host allowlist (ALLOWED_HOSTNAMES): a request naming a host that is not on the
 * configured list is refused on every route, whatever its URL says (issue #13: a
 * `Host: evil.example` request to /mcp used to be answered, because the allowlist was derived
 * from the request's own URL).
 */
import { describe, expect, it } from "vitest";
import { configured, entry, TOOLS_LIST } from "../helpers";

function withHost(host: string, init: RequestInit = {}): RequestInit {
  return { ...init, headers: { ...(init.headers as Record<string, string>), host } };
}

describe("Host allowlist", () => {
  it("refuses a rebinding host on every route, by default", async () => {
    for (const path of ["/mcp", "/mcp/code", "/demo-api/projects", "/", "/health"]) {
      const init = path.startsWith("/mcp") ? TOOLS_LIST : {};
      // The URL says evil.example too, as it does in local workerd (its host comes from Host).
      const response = await entry(`http://evil.example${path}`, withHost("evil.example", init));
      expect(response.status, path).toBe(403);
      const { error } = (await response.json()) as { error: { code: string; fix: string } };
      expect(error.code).toBe("forbidden_host");
      expect(error.fix).toContain("ALLOWED_HOSTNAMES");
    }
  });

  it("answers localhost names (with ports) and workers.dev names by default", async () => {
    for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787", "my-app.me.workers.dev"])
      expect((await entry("http://localhost/health", withHost(host))).status, host).toBe(200);
    expect(
      (await entry("http://localhost/health", withHost("workers.dev.evil.example"))).status,
    ).toBe(403);
  });

  it("answers exactly the configured names when ALLOWED_HOSTNAMES is set", async () => {
    // ALLOW_ANONYMOUS: names other than localhost are deployments, which need a caller check
    // (anonymous-guard.test.ts); this test is about the host names alone.
    const worker = configured({
      ALLOWED_HOSTNAMES: "mcp.example.com, *.example.org",
      ALLOW_ANONYMOUS: "on",
    });
    // As deployed: the URL's host is the Host header's.
    const status = async (host: string) =>
      (await worker(`http://${host}/mcp`, withHost(host, TOOLS_LIST))).status;
    expect(await status("mcp.example.com")).toBe(200);
    expect(await status("MCP.Example.com:443")).toBe(200);
    expect(await status("a.example.org")).toBe(200);
    expect(await status("example.org")).toBe(403);
    expect(await status("localhost")).toBe(403);
    expect(await status("mcp.example.com.evil.example")).toBe(403);
  });

  it("reports an invalid setting by name, and still refuses unknown hosts", async () => {
    const worker = configured({ ALLOWED_HOSTNAMES: "https://mcp.example.com/" });
    const health = await worker("http://localhost/health");
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).toContain("ALLOWED_HOSTNAMES");
    expect((await worker("http://evil.example/health", withHost("evil.example"))).status).toBe(403);
  });
});
