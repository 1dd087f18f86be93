/**
 * Kept workerd configurations with the real builder, Miniflare and workerd
 * (cli/local-server/runtime.mjs with the configuration cache): a server's first start builds the
 * configuration and keeps it; the next server (another socket folder, data folder and secret)
 * reads it back, starts no builder, and its workerd serves with that server's own values; the
 * entry on disk holds none of either server's values.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  configCacheFolder,
  openConfigCache,
} from "../../../../cli/local-server/workerd-config/config-cache.mjs";
import { createRuntimeHost } from "../../../../cli/local-server/runtime.mjs";
import { runnerMessage } from "../../../../cli/local-server/worker-options.mjs";
import { getOverSocket, writeStandInRunner } from "../../../helpers/cli/stand-in-runner";

const dir = mkdtempSync(join(tmpdir(), "cmm-kept-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modules = join(dir, "modules");
mkdirSync(modules);
const script = writeStandInRunner(
  join(modules, "runner.js"),
  "(request, env) => new Response(env.LOCAL_CLUSTER_SECRET)",
);
const env = { XDG_CACHE_HOME: join(dir, "cache"), XDG_CONFIG_HOME: join(dir, "config") };
const cache = openConfigCache(configCacheFolder(env), join(dir, "config", "spec-cache.key"));

/** One server's start of one runner; resolves to what its Worker answers and what was noted. */
async function serverRuns(secret: string) {
  const folder = mkdtempSync(join(tmpdir(), "cmm-t-"));
  const persist = mkdtempSync(join(dir, "data-"));
  const notes: string[] = [];
  const host = createRuntimeHost({ PATH: process.env.PATH ?? "" }, folder, {
    persist,
    cache,
    note: (line) => notes.push(line),
  });
  try {
    const runner = host.start({
      name: "runner 1",
      message: runnerMessage({
        scriptPath: script,
        compatibilityDate: "2025-06-01",
        rpcHost: `unix:${join(folder, "runner-1.sock")}`,
        secret,
      }),
      onCrashLine: () => {},
    });
    expect(await runner.ready, runner.recentOutput().join("\n")).toBe(true);
    return { answer: await getOverSocket(runner.socket), notes, folder };
  } finally {
    await host.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("kept workerd configurations", () => {
  it("are built once, read back by the next server, and filled with its own values", async () => {
    const first = await serverRuns("first-server-secret-0123456789");
    expect(first.answer).toBe("first-server-secret-0123456789");
    expect(first.notes).toEqual([expect.stringMatching(/ built$/)]);

    const second = await serverRuns("second-server-secret-0123456789");
    expect(second.answer).toBe("second-server-secret-0123456789");
    expect(second.notes).toEqual([expect.stringMatching(/ kept$/)]);

    const entries = readdirSync(cache.folder);
    expect(entries).toHaveLength(1);
    const bytes = readFileSync(join(cache.folder, entries[0]!), "latin1");
    for (const value of ["server-secret", first.folder, second.folder, "/tmp/cmm-t-"])
      expect(bytes).not.toContain(value);
  }, 120_000);
});
