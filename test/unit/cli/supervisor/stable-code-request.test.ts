/**
 * The supervisor's read of a runner's stable code (cli/local-server/runners/stable-code-request.mjs
 * `readStableCode`): the shared worker's code is ~1 MB, and an answer past
 * `MAX_CODE_BYTES` is given up as it arrives, so one that never ends cannot grow the
 * supervisor's memory.
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import {
  MAX_CODE_BYTES,
  readStableCode,
} from "../../../../cli/local-server/runners/stable-code-request.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listenRuntime } = testServers();

describe("a runner's stable code read by the supervisor", () => {
  it("takes an answer up to the bound, nothing past it, and stops reading it", async () => {
    let size = 0;
    let written = 0;
    const server = createServer((req, res) => {
      res.writeHead(200);
      // Chunked, no length: the bound must hold while the bytes arrive.
      const piece = Buffer.alloc(1024 * 1024, 0x20);
      written = 0;
      const more = () => {
        while (written < size) {
          const part = piece.subarray(0, Math.min(piece.length, size - written));
          written += part.length;
          if (!res.write(part)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    const socket = await listenRuntime(server);
    size = MAX_CODE_BYTES;
    expect((await readStableCode(socket, "a".repeat(64)))?.length).toBe(MAX_CODE_BYTES);
    size = 2 * MAX_CODE_BYTES;
    expect(await readStableCode(socket, "a".repeat(64))).toBeNull();
    // The read stopped near the bound: the server did not get to write all of it.
    expect(written).toBeLessThan(2 * MAX_CODE_BYTES);
  });
});
