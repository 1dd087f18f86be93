/**
 * glibc's malloc settings (cli/local-server/malloc-env.mjs): added to the runtimes' environment
 * where the user set none, never replacing a value the user gave; and the supervisor's decision
 * to start itself again in place with them (issue #40: the front's memory), with the process
 * injected.
 */
import { describe, expect, it, vi } from "vitest";
import {
  MALLOC_SETTINGS,
  mallocRestart,
  restartWithMallocSettings,
  withMallocSettings,
} from "../../../../cli/local-server/malloc-env.mjs";

describe("the runtime host's malloc settings", () => {
  it("are added to an environment that has none, the rest kept", () => {
    expect(withMallocSettings({ PATH: "/bin" })).toEqual({ PATH: "/bin", ...MALLOC_SETTINGS });
    expect(MALLOC_SETTINGS.MALLOC_ARENA_MAX).toBe("2");
  });

  it("keep each value the user set, even an empty one", () => {
    const env: Record<string, string | undefined> = withMallocSettings({
      MALLOC_ARENA_MAX: "8",
      MALLOC_TRIM_THRESHOLD_: "",
    });
    expect(env.MALLOC_ARENA_MAX).toBe("8");
    expect(env.MALLOC_TRIM_THRESHOLD_).toBe("");
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe(MALLOC_SETTINGS.MALLOC_MMAP_THRESHOLD_);
  });
});

describe("the supervisor's restart with the malloc settings", () => {
  const linux = { platform: "linux" as const, canExec: true, ipc: false };

  it("restarts on Linux when a setting is missing, with the settings added and the user's kept", () => {
    expect(mallocRestart({ ...linux, env: { PATH: "/bin", MALLOC_ARENA_MAX: "8" } })).toEqual({
      restart: {
        PATH: "/bin",
        MALLOC_ARENA_MAX: "8",
        MALLOC_MMAP_THRESHOLD_: MALLOC_SETTINGS.MALLOC_MMAP_THRESHOLD_,
        MALLOC_TRIM_THRESHOLD_: MALLOC_SETTINGS.MALLOC_TRIM_THRESHOLD_,
      },
    });
  });

  it("stays once every setting is set (so it restarts once), elsewhere than Linux, without execve or with an IPC channel", () => {
    const set = withMallocSettings({ PATH: "/bin" });
    expect(mallocRestart({ ...linux, env: set })).toEqual({ stay: expect.stringMatching(/set/) });
    expect(mallocRestart({ ...linux, env: {}, platform: "darwin" })).toEqual({
      stay: expect.stringMatching(/Linux only/),
    });
    expect(mallocRestart({ ...linux, env: {}, canExec: false })).toEqual({
      stay: expect.stringMatching(/execve/),
    });
    expect(mallocRestart({ ...linux, env: {}, ipc: true })).toEqual({
      stay: expect.stringMatching(/IPC channel/),
    });
  });

  it("replaces the process with the same Node, flags, script and arguments", () => {
    const execve = vi.fn();
    const proc = {
      env: { PATH: "/bin" },
      platform: "linux" as const,
      execPath: "/opt/node",
      execArgv: ["--no-warnings"],
      argv: ["/opt/node", "/app/scripts/start.mjs", "--stdio"],
      channel: undefined,
      execve,
    };
    restartWithMallocSettings(proc as never);
    expect(execve).toHaveBeenCalledExactlyOnceWith(
      "/opt/node",
      ["/opt/node", "--no-warnings", "/app/scripts/start.mjs", "--stdio"],
      { PATH: "/bin", ...MALLOC_SETTINGS },
    );
    // In the new process every setting is set: it does not restart again.
    const again = vi.fn();
    const restarted = { ...proc, env: execve.mock.calls[0]?.[2], execve: again };
    expect(restartWithMallocSettings(restarted as never)).toMatch(/are set/);
    expect(again).not.toHaveBeenCalled();
  });

  it("starts npm start's process again in place: the same pid, with the settings", async () => {
    // The real thing: a Node process that calls it prints its pid and settings after the restart.
    const { spawnSync } = await import("node:child_process");
    const { fileURLToPath } = await import("node:url");
    const module = fileURLToPath(
      new URL("../../../../cli/local-server/malloc-env.mjs", import.meta.url),
    );
    const script = `import { restartWithMallocSettings } from ${JSON.stringify(module)};
      const before = process.env.BEFORE_PID ?? String(process.pid);
      process.env.BEFORE_PID = before;
      const why = restartWithMallocSettings();
      console.log(JSON.stringify({ before, pid: process.pid, why, arena: process.env.MALLOC_ARENA_MAX }));`;
    const env = { ...process.env };
    for (const name of Object.keys(MALLOC_SETTINGS)) delete env[name];
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env,
      encoding: "utf8",
    });
    if (
      process.platform !== "linux" ||
      typeof (process as { execve?: unknown }).execve !== "function"
    )
      return;
    const printed = JSON.parse(run.stdout.trim());
    expect(printed).toEqual({
      before: String(printed.pid),
      pid: printed.pid,
      why: "the malloc settings are set",
      arena: MALLOC_SETTINGS.MALLOC_ARENA_MAX,
    });
  });
});
