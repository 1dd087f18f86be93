/**
 * The supervisor's read of the host's stable code (cli/local-server/runners/host-code-request.mjs)
 * and the host's answer (src/executor/shared-worker/stable-code-answer.ts `stableCodeAnswer`): the shared worker's code
 * under the hash runs ask for it by, none with the per-run isolate; sent with the supervisor's
 * secret, and nothing taken from an answer that is not the host's 200 with a well-formed hash.
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import {
  readHostCode,
  STABLE_CODE_PATH,
  STABLE_HASH_HEADER,
} from "../../../../cli/local-server/runners/host-code-request.mjs";
import { SUPERVISOR_SECRET_HEADER } from "../../../../cli/local-server/runners/host-forget-request.mjs";
import { clusterSecret } from "../../../../cli/local-server/cluster-secret.mjs";
import * as hostSide from "../../../../src/executor/shared-worker/stable-code-answer";
import { codeHash } from "../../../../src/executor/runners/code-hash";
import { decodeCode } from "../../../../src/executor/runners/code-wire";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listenRuntime } = testServers();

describe("the host's stable code for the supervisor", () => {
  it("names the route and header as the host does", () => {
    expect([STABLE_CODE_PATH, STABLE_HASH_HEADER]).toEqual([
      hostSide.STABLE_CODE_PATH,
      hostSide.STABLE_HASH_HEADER,
    ]);
  });

  it("answers the shared worker's code under its own hash, nothing for the per-run isolate", async () => {
    const shared = await hostSide.stableCodeAnswer({ executor: "shared-worker", limits: {} });
    expect(shared.status).toBe(200);
    const code = decodeCode(await shared.text());
    expect(shared.headers.get(STABLE_HASH_HEADER)).toBe(await codeHash(code));
    expect(code.mainModule).toBe("runner.js");
    expect(
      (await hostSide.stableCodeAnswer({ executor: "isolate-per-run", limits: {} })).status,
    ).toBe(404);
    expect((await hostSide.stableCodeAnswer(undefined)).status).toBe(404);
  });

  it("reads it with the supervisor's secret, and takes nothing from a bad answer", async () => {
    const hash = "e".repeat(64);
    let answer: [number, string] = [200, hash];
    const secrets: unknown[] = [];
    const server = createServer((req, res) => {
      secrets.push(req.url === STABLE_CODE_PATH && req.headers[SUPERVISOR_SECRET_HEADER]);
      res.writeHead(answer[0], { [STABLE_HASH_HEADER]: answer[1] }).end("{}");
    });
    const socket = await listenRuntime(server);
    expect(await readHostCode(socket)).toEqual({ hash, code: Buffer.from("{}") });
    answer = [404, hash];
    expect(await readHostCode(socket)).toBeNull();
    answer = [200, "../x"];
    expect(await readHostCode(socket)).toBeNull();
    expect(secrets).toEqual([clusterSecret, clusterSecret, clusterSecret]);
  });

  it("takes nothing from an answer past its byte bound, and stops reading it", async () => {
    const hash = "e".repeat(64);
    let written = 0;
    const server = createServer((req, res) => {
      res.writeHead(200, { [STABLE_HASH_HEADER]: hash });
      // Chunked, no length: the bound must hold while the bytes arrive, not from a header.
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (written < 64 * piece.length) {
          written += piece.length;
          if (!res.write(piece)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    const socket = await listenRuntime(server);
    expect(await readHostCode(socket, { maxBytes: 256 * 1024 })).toBeNull();
    // The read stopped at the bound: the server did not get to write all 4 MiB.
    expect(written).toBeLessThan(64 * 64 * 1024);
  });

  it("gives up on an answer that trickles past its whole-read bound", async () => {
    const hash = "e".repeat(64);
    const timers: NodeJS.Timeout[] = [];
    const server = createServer((req, res) => {
      res.writeHead(200, { [STABLE_HASH_HEADER]: hash });
      // A byte now and then: never idle long enough for the per-byte timeout, never done.
      timers.push(setInterval(() => res.write("x"), 20));
    });
    const socket = await listenRuntime(server);
    try {
      // The guard: before the whole-read bound this never resolved (vitest's timeout below).
      expect(await readHostCode(socket, { totalMs: 200 })).toBeNull();
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  }, 5_000);
});
