/**
 * Every request the supervisor's process sends a runtime carries this launch's cluster secret
 * (cli/local-server/cluster-secret.mjs), which the runtimes ask for before anything else: the
 * supervisor's probes and retire requests (health-request.mjs), its copies of a runner's stable
 * code (runners/stable-code-request.mjs), and what the front passes on,
 * plain or upgraded (exchange.mjs, front.mjs). A client's own header of that name never reaches
 * a runtime: only the front's. The "runtime" is a plain Node HTTP server.
 */
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import {
  CLUSTER_SECRET_HEADER,
  clusterSecret,
} from "../../../../cli/local-server/cluster-secret.mjs";
import { createFront } from "../../../../cli/local-server/front/front.mjs";
import { healthRequest } from "../../../../cli/local-server/health-request.mjs";
import {
  readStableCode,
  warmWith,
} from "../../../../cli/local-server/runners/stable-code-request.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listen, listenRuntime } = testServers();

/** A runtime stand-in that records the raw headers of what it received. */
async function runtime() {
  const seen: { raw: string[]; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ raw: req.rawHeaders, headers: req.headers });
    res.writeHead(200, { "content-length": "2" }).end("ok");
  });
  server.on("upgrade", (req, socket) => {
    seen.push({ raw: req.rawHeaders, headers: req.headers });
    socket.end("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n");
  });
  return { seen, socket: await listenRuntime(server) };
}

const FORGED = "forged-by-a-client";
/** Values of the secret header in a raw header list. */
const secretsIn = (raw: string[]) =>
  raw.flatMap((name, i) =>
    i % 2 === 0 && name.toLowerCase() === CLUSTER_SECRET_HEADER ? [raw[i + 1]] : [],
  );

describe("the cluster secret on the supervisor's requests", () => {
  it("goes with every probe and retire request", async () => {
    const { seen, socket } = await runtime();
    await healthRequest(socket, { method: "HEAD", path: "/health", timeoutMs: 2_000 });
    await healthRequest(socket, { method: "POST", path: "/retire", timeoutMs: 2_000 });
    expect(seen.map((s) => secretsIn(s.raw))).toEqual([[clusterSecret], [clusterSecret]]);
  });

  it("goes with every read and send of a runner's stable code", async () => {
    const { seen, socket } = await runtime();
    expect((await readStableCode(socket, "abc"))?.toString()).toBe("ok");
    expect(await warmWith(socket, Buffer.from("{}"))).toBe(true);
    expect(seen.map((s) => secretsIn(s.raw))).toEqual([[clusterSecret], [clusterSecret]]);
    expect(seen[1]!.headers["content-type"]).toBe("application/json");
  });

  it("goes with every request the front passes on, once, replacing a client's own", async () => {
    const { seen, socket } = await runtime();
    const front = createFront({
      target: async () => ({ name: "runtime 1", socket }) as never,
    });
    const port = await listen(front.server);
    const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { [CLUSTER_SECRET_HEADER]: FORGED },
      body: "{}",
    });
    expect(answer.status).toBe(200);
    expect(secretsIn(seen[0]!.raw)).toEqual([clusterSecret]);
  });

  it("goes with an upgraded request too, replacing a client's own", async () => {
    const { seen, socket } = await runtime();
    const front = createFront({
      target: async () => ({ name: "runtime 1", socket }) as never,
    });
    const port = await listen(front.server);
    await new Promise<void>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/socket",
        headers: { connection: "Upgrade", upgrade: "test", [CLUSTER_SECRET_HEADER]: FORGED },
      });
      req.on("upgrade", (_res, upgraded) => (upgraded.destroy(), resolve()));
      req.on("error", reject);
      req.end();
    });
    expect(secretsIn(seen[0]!.raw)).toEqual([clusterSecret]);
  });
});
