/**
 * A runtime whose configuration cannot be built (cli/local-server/runtime.mjs with the real
 * configuration builder, Miniflare and workerd): it is reported not started, with Miniflare's
 * reason in its output, no workerd is left, and a failed build is not kept: once the script is
 * there, the next start builds again and its workerd starts, on its sockets in the folder, and
 * ends with the host's stop.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntimeHost } from "../../../../cli/local-server/runtime.mjs";
import { runnerMessage } from "../../../../cli/local-server/worker-options.mjs";
import { writeStandInRunner } from "../../../helpers/cli/stand-in-runner";

const folder = mkdtempSync(join(tmpdir(), "cmm-test-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("createRuntimeHost, a configuration that cannot be built", () => {
  it("reports the runtime not started, says why, and builds again at the next start", async () => {
    const host = createRuntimeHost({ PATH: process.env.PATH ?? "" }, folder);
    const message = runnerMessage({
      scriptPath: join(folder, "missing-runner.js"),
      compatibilityDate: "2025-06-01",
      rpcHost: `unix:${join(folder, "runner-1.sock")}`,
      secret: "s",
    });
    try {
      const failed = host.start({ name: "runner 1", message, onCrashLine: () => {} });
      expect(await failed.ready).toBe(false);
      expect(failed.endedBecause).toBe("it did not start");
      expect(failed.recentOutput().join("\n")).toContain("missing-runner.js");
      expect(host.pids()).toEqual([]);

      writeStandInRunner(join(folder, "missing-runner.js"), '() => new Response("ok")');
      const started = host.start({ name: "runner 2", message, onCrashLine: () => {} });
      expect(await started.ready).toBe(true);
      expect(started.socket).toBe(join(folder, "r2.entry.sock"));
      expect(existsSync(join(folder, "runner-1.sock:0"))).toBe(true);
      expect(host.pids()).toEqual([started.pid]);
      await host.stop();
      expect(started.isRunning()).toBe(false);
      expect(host.pids()).toEqual([]);
    } finally {
      await host.stop();
    }
  }, 60_000);
});
