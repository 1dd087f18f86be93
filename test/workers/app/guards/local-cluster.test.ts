/**
 * The host Worker on the local server (src/app/create-worker.ts, `localOnly`): its ports are on
 * 127.0.0.1, where every process on the machine reaches them, so with the launcher's cluster
 * secret set (`LOCAL_CLUSTER_SECRET`) a request without the secret is refused before any routing,
 * and one with it reaches the app without it. Deployed (no secret), nothing changes.
 */
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { fromSupervisor, localOnly } from "../../../../src/app/create-worker";
import {
  CLUSTER_SECRET_HEADER,
  LOCAL_CALLER_HEADER,
} from "../../../../src/executor/runners/cluster-secret";
import {
  FORGET_RUNNER_PATH,
  SUPERVISOR_SECRET_HEADER,
} from "../../../../src/executor/runners/stale-slot";
import { configured } from "../helpers";
import {
  STABLE_CODE_PATH,
  STABLE_HASH_HEADER,
} from "../../../../src/executor/shared-worker/stable-code-answer";

const SECRET = "local-cluster-test-secret";
const base = "http://localhost";
const local = configured({ LOCAL_CLUSTER_SECRET: SECRET } as AppSettings);
const deployed = configured({});

describe("the host Worker with a cluster secret (the local server)", () => {
  it("refuses a request without the secret, or with a wrong one, on every route, with a clear 403", async () => {
    for (const path of ["/health", "/mcp", "/", "/authorize", "/no-such-route"])
      for (const headers of <Record<string, string>[]>[
        {},
        { [CLUSTER_SECRET_HEADER]: "guess" },
        { [CLUSTER_SECRET_HEADER]: `${SECRET}x` },
        // A client's own address is what the OAuth attempt limit counts by: never trusted here.
        { "cf-connecting-ip": "203.0.113.7" },
        // Nor a caller (the process the host places runs for: src/app/placement-caller.ts).
        { [LOCAL_CALLER_HEADER]: "process:1" },
      ]) {
        const answer = await local(`${base}${path}`, { headers });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        const text = await answer.text();
        expect(text).toMatch(/internal port of the local server/);
        expect(text).toMatch(/Fix: send requests to the server's public port/);
        expect(text).not.toContain(SECRET);
      }
  });

  it("serves a request carrying the secret as before", async () => {
    const answer = await local(`${base}/health`, { headers: { [CLUSTER_SECRET_HEADER]: SECRET } });
    expect(answer.status).toBe(200);
  });

  it("removes the secret before the app sees the request, and keeps everything else", async () => {
    const request = new Request(`${base}/mcp?x=1`, {
      method: "POST",
      headers: {
        [CLUSTER_SECRET_HEADER]: SECRET,
        "cf-connecting-ip": "192.0.2.1",
        "x-other": "kept",
      },
      body: "{}",
    });
    const seen = localOnly(request, { LOCAL_CLUSTER_SECRET: SECRET })!;
    expect(seen.headers.has(CLUSTER_SECRET_HEADER)).toBe(false);
    expect(seen.headers.get("cf-connecting-ip")).toBe("192.0.2.1");
    expect(seen.headers.get("x-other")).toBe("kept");
    expect([seen.method, seen.url, await seen.text()]).toEqual(["POST", `${base}/mcp?x=1`, "{}"]);
    expect(localOnly(new Request(base), { LOCAL_CLUSTER_SECRET: SECRET })).toBeNull();
  });
});

describe("the supervisor's forget route (a kept runner the host stopped using)", () => {
  const forget = `${base}${FORGET_RUNNER_PATH}?slot=1&quietMs=30000`;
  /** The forget route's own answer here: no runner loader in this Worker (no runner bindings). */
  const routeAnswer = /No such runner slot here/;

  it("answers only with the secret in the supervisor's own header too", async () => {
    const supervisor = await local(forget, {
      method: "POST",
      headers: { [CLUSTER_SECRET_HEADER]: SECRET, [SUPERVISOR_SECRET_HEADER]: SECRET },
    });
    expect([supervisor.status, await supervisor.text()]).toEqual([
      404,
      expect.stringMatching(routeAnswer),
    ]);
    // As the front passes a client's request on: the cluster secret, and the client's guess.
    for (const guess of [undefined, "guess", `${SECRET}x`]) {
      const client = await local(forget, {
        method: "POST",
        headers: {
          [CLUSTER_SECRET_HEADER]: SECRET,
          ...(guess === undefined ? {} : { [SUPERVISOR_SECRET_HEADER]: guess }),
        },
      });
      expect(await client.text()).not.toMatch(routeAnswer);
    }
  });

  it("is no route at all deployed", async () => {
    const answer = await deployed(forget, {
      method: "POST",
      headers: { [SUPERVISOR_SECRET_HEADER]: "" },
    });
    expect(await answer.text()).not.toMatch(routeAnswer);
    const request = new Request(forget, { headers: { [SUPERVISOR_SECRET_HEADER]: "x" } });
    expect(fromSupervisor(request, {})).toBe(false);
    expect(fromSupervisor(request, { LOCAL_CLUSTER_SECRET: "x" })).toBe(true);
  });
});

describe("the supervisor's stable-code route (the engine for the runners it starts)", () => {
  const url = `${base}${STABLE_CODE_PATH}`;
  const shared = configured({
    LOCAL_CLUSTER_SECRET: SECRET,
    EXECUTOR: "shared-worker",
  } as AppSettings);

  it("answers the engine's code only to the supervisor, only with the shared worker", async () => {
    const supervisor = await shared(url, {
      headers: { [CLUSTER_SECRET_HEADER]: SECRET, [SUPERVISOR_SECRET_HEADER]: SECRET },
    });
    expect(supervisor.status).toBe(200);
    expect(supervisor.headers.get(STABLE_HASH_HEADER)).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(await supervisor.text()).mainModule).toBe("runner.js");
    // A client's request through the front: the cluster secret, and a guess or none.
    for (const guess of [undefined, `${SECRET}x`]) {
      const client = await shared(url, {
        headers: {
          [CLUSTER_SECRET_HEADER]: SECRET,
          ...(guess === undefined ? {} : { [SUPERVISOR_SECRET_HEADER]: guess }),
        },
      });
      expect(client.headers.get(STABLE_HASH_HEADER)).toBeNull();
      await client.text();
    }
    const perRun = await local(url, {
      headers: { [CLUSTER_SECRET_HEADER]: SECRET, [SUPERVISOR_SECRET_HEADER]: SECRET },
    });
    expect([perRun.status, perRun.headers.get(STABLE_HASH_HEADER)]).toEqual([404, null]);
    await perRun.text();
  });
});

describe("the host Worker without a cluster secret (deployed)", () => {
  it("serves requests without the header exactly as before", async () => {
    expect((await deployed(`${base}/health`)).status).toBe(200);
    const request = new Request(base, { headers: { [CLUSTER_SECRET_HEADER]: "x" } });
    expect(localOnly(request, {})).toBe(request);
  });
});
