// OAuth dynamic client registration (`POST /register`) is bounded (registration-limiter.ts): per
// address per hour and in total per day, with settings, a 429 naming the limit and the setting,
// and `Retry-After`. Before, a script registered clients without end, each a stored row.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { configured } from "../helpers";

/** Empties the day's total (one counter for the whole provider storage, shared by the files). */
const resetTotal = () =>
  env.OAUTH_STORE.get(env.OAUTH_STORE.idFromName("oauth")).kvDelete("register:all");

const PASSWORD = "registration-limit-passphrase-0123";

/** The Worker with OAuth on and `limits` (the registration settings) over the defaults. */
const withLimits = (limits: AppSettings = {}) =>
  configured({ OAUTH: "on", OAUTH_PASSWORD: PASSWORD, ...limits });

/** One registration as an MCP client sends it. */
const register = (
  worker: ReturnType<typeof configured>,
  base: string,
  ip: string | undefined,
  name = "Flood client",
) =>
  worker(`${base}/register`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(ip === undefined ? {} : { "cf-connecting-ip": ip }),
    },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: ["https://client.example/callback"],
      token_endpoint_auth_method: "none",
    }),
  });

describe("OAuth client registration is bounded", () => {
  it("per address per hour: the default, then 429 with the setting named; another address is served", async () => {
    const worker = withLimits();
    const base = "https://registrations-a.example.workers.dev";
    // A burst sent at once is counted as it comes.
    const statuses = (
      await Promise.all(Array.from({ length: 14 }, () => register(worker, base, "203.0.113.41")))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    const refused = await register(worker, base, "203.0.113.41");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3000);
    const body = (await refused.json()) as {
      error: { code: string; message: string; fix: string };
    };
    expect(body.error.code).toBe("too_many_registrations");
    expect(body.error.message).toContain("at most 10 an hour");
    expect(body.error.fix).toContain("OAUTH_REGISTRATIONS_PER_HOUR");
    // One host's /64 is one address; another address is served.
    expect((await register(worker, base, "2001:db8:77:1::1")).status).toBe(201);
    expect((await register(worker, base, "198.51.100.41")).status).toBe(201);
  });

  it("counts an IPv6 host by its /64: a new address per registration is still one address", async () => {
    const worker = withLimits({ OAUTH_REGISTRATIONS_PER_HOUR: "3" });
    const base = "https://registrations-b.example.workers.dev";
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++)
      statuses.push((await register(worker, base, `2001:db8:78:1::${i.toString(16)}`)).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });

  it("in total per day, whatever the addresses: then 429 naming OAUTH_REGISTRATIONS_PER_DAY", async () => {
    const worker = withLimits({ OAUTH_REGISTRATIONS_PER_DAY: "5" });
    const base = "https://registrations-c.example.workers.dev";
    await resetTotal();
    const statuses: number[] = [];
    for (let i = 1; i <= 7; i++)
      statuses.push((await register(worker, base, `192.0.2.${i}`)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
    const refused = await register(worker, base, "192.0.2.200");
    const body = (await refused.json()) as { error: { message: string; fix: string } };
    expect(body.error.message).toContain("at most 5 a day in total");
    expect(body.error.fix).toContain("OAUTH_REGISTRATIONS_PER_DAY");
    // A request with no address at all counts in the total too.
    expect((await register(worker, base, undefined)).status).toBe(429);
  });

  it("the day's total is one for the storage: a new Host per registration is not a new total", async () => {
    // Before, the total was kept per origin, and the origin is the request's Host: the local
    // server passes any port of localhost and any *.workers.dev name, a wildcard route any
    // subdomain. New names from new addresses registered without end into the one storage.
    const worker = withLimits({ OAUTH_REGISTRATIONS_PER_DAY: "3" });
    await resetTotal();
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++)
      statuses.push(
        (await register(worker, `https://spoof-${i}.example.workers.dev`, `192.0.2.${100 + i}`))
          .status,
      );
    for (let i = 1; i <= 2; i++)
      statuses.push(
        (await register(worker, `http://localhost:${9200 + i}`, `198.51.100.${100 + i}`)).status,
      );
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429]);
    await resetTotal();
  });

  it("refuses a registration from another site's page before it counts", async () => {
    // Found by attack10: a page the owner visited registered 10 clients (text/plain, no
    // preflight) and every client from that address (on a local server, every client) got 429
    // for an hour. Such a client could not use the MCP routes anyway (a foreign Origin).
    const worker = withLimits();
    const base = "http://localhost";
    const ip = "203.0.113.88";
    for (const origin of ["https://evil.example", "null"]) {
      for (let i = 0; i < 6; i++) {
        const answer = await worker(`${base}/register`, {
          method: "POST",
          headers: { "content-type": "text/plain", "cf-connecting-ip": ip, origin },
          body: JSON.stringify({
            client_name: "Drive-by",
            redirect_uris: ["https://evil.example/callback"],
            token_endpoint_auth_method: "none",
          }),
        });
        expect(answer.status).toBe(403);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
          "cross_site_request",
        );
      }
    }
    // None was counted; a page of the server itself, or a local tool, registers as before.
    expect((await register(worker, base, ip)).status).toBe(201);
    const local = await worker(`${base}/register`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-connecting-ip": ip,
        origin: "http://localhost:6274",
      },
      body: JSON.stringify({
        client_name: "Inspector",
        redirect_uris: ["http://localhost:6274/oauth/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(local.status).toBe(201);
  });

  it("refuses a limit that is not a whole number, naming the setting", async () => {
    const worker = withLimits({ OAUTH_REGISTRATIONS_PER_HOUR: "lots" });
    const health = await worker("http://localhost/health");
    expect(await health.text()).toContain("OAUTH_REGISTRATIONS_PER_HOUR must be a whole number");
  });
});
