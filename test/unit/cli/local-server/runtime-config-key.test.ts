/**
 * cli/local-server/runtime.mjs builds each message's workerd configuration once, by a key over
 * the message with long strings by their digest (a 4 MB compiled spec stringified inside JSON is
 * slow). A message whose short binding spells "#" and a long binding's digest is another
 * message: it must not start with the configuration built for the long one (the host started
 * beside the launch check, early-host.mjs, then planned host with the same runtime host). Real
 * builder, Miniflare and workerd.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntimeHost } from "../../../../cli/local-server/runtime.mjs";
import { runnerMessage } from "../../../../cli/local-server/worker-options.mjs";
import { CLUSTER_SECRET_BINDING } from "../../../../cli/local-server/cluster-secret.mjs";
import { healthRequest } from "../../../../cli/local-server/health-request.mjs";
import { sha256 } from "../../../../cli/kept/launch-memo.mjs";
import { writeStandInRunner } from "../../../helpers/cli/stand-in-runner";

const folder = mkdtempSync(join(tmpdir(), "cmm-test-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("createRuntimeHost, two messages one long string apart", () => {
  it("starts each with its own bindings, not the configuration of the other", async () => {
    const host = createRuntimeHost({ PATH: process.env.PATH ?? "" }, folder);
    const scriptPath = join(folder, "echo.js");
    // Answers 299 when its binding is the short "#…" value, 200 when it is the long one.
    writeStandInRunner(
      scriptPath,
      `(_r, env) => new Response(null, { status: env.${CLUSTER_SECRET_BINDING}.length > 4096 ? 200 : 299 })`,
    );
    const long = "s".repeat(5_000);
    // Each on a socket of its own (its address is not part of the configuration built).
    const message = (secret: string, socket: string) =>
      runnerMessage({
        scriptPath,
        compatibilityDate: "2025-06-01",
        rpcHost: `unix:${join(folder, socket)}`,
        secret,
      });
    const status = async (runtime: { socket: string }) =>
      (await healthRequest(runtime.socket, { method: "GET", path: "/", timeoutMs: 20_000 }))
        ?.status;
    try {
      const first = host.start({
        name: "runner 1",
        message: message(long, "runner-1.sock"),
        onCrashLine: () => {},
      });
      expect(await first.ready).toBe(true);
      expect(await status(first)).toBe(200);
      await first.kill("the next one");
      const second = host.start({
        name: "runner 2",
        message: message(`#${sha256(long)}`, "runner-2.sock"),
        onCrashLine: () => {},
      });
      expect(await second.ready).toBe(true);
      expect(await status(second)).toBe(299);
    } finally {
      await host.stop();
    }
  }, 90_000);
});
