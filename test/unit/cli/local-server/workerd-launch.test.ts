/**
 * Starting workerd from the supervisor (cli/local-server/workerd-launch.mjs,
 * workerd-config/config-parts.mjs): its command line with the runtime's Unix sockets (never a TCP
 * port Miniflare chose), its log lines and readiness, which parts of a message make its
 * configuration (one configuration for every runner and every host replacement), and the
 * lifeline, run for real: a process started behind it ends when the supervisor's pipe closes, and
 * stays when the supervisor ended it with a line.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configParts } from "../../../../cli/local-server/workerd-config/config-parts.mjs";
import { runnerMessage } from "../../../../cli/local-server/worker-options.mjs";
import {
  controlLine,
  logText,
  spawnWorkerd,
  workerdArguments,
} from "../../../../cli/local-server/workerd-launch.mjs";

// As Miniflare passes them (getRuntimeArgs).
const MINIFLARE = [
  "serve",
  "--binary",
  "--experimental",
  "--socket-addr=entry=127.0.0.1:0",
  "--external-addr=loopback=127.0.0.1:0",
  "--control-fd=3",
  "-",
];
const SOCKETS = {
  entry: "/tmp/cmm-abc/r7.entry.sock",
  loopback: "/tmp/cmm-abc/r7.loopback.sock",
  named: { "direct:0:default": "unix:/tmp/cmm-abc/r7.direct.sock:0" },
};

describe("workerdArguments", () => {
  it("puts the entry socket and loopback service on the runtime's files, adds its sockets", () => {
    expect(workerdArguments(MINIFLARE, SOCKETS)).toEqual([
      "serve",
      "--binary",
      "--experimental",
      "--socket-addr=entry=unix:/tmp/cmm-abc/r7.entry.sock",
      "--external-addr=loopback=unix:/tmp/cmm-abc/r7.loopback.sock",
      "--control-fd=3",
      "--socket-addr=direct:0:default=unix:/tmp/cmm-abc/r7.direct.sock:0",
      "-",
    ]);
  });

  it("opens the inspector only when asked, on 127.0.0.1", () => {
    expect(workerdArguments(MINIFLARE, SOCKETS, 9230)).toContain("--inspector-addr=127.0.0.1:9230");
    expect(workerdArguments(MINIFLARE, SOCKETS).join(" ")).not.toContain("inspector");
  });

  it("refuses a command line without either flag: no runtime on a TCP port unnoticed", () => {
    for (const missing of ["--socket-addr=entry=", "--external-addr=loopback="])
      expect(() =>
        workerdArguments(
          MINIFLARE.filter((a) => !a.startsWith(missing)),
          SOCKETS,
        ),
      ).toThrow(new RegExp(`no ${missing}.*will not open it on a TCP port`));
  });

  it("refuses a socket that is not a Unix socket", () => {
    expect(() =>
      workerdArguments(MINIFLARE, { ...SOCKETS, named: { "direct:0:x": "127.0.0.1:0" } }),
    ).toThrow(/direct:0:x: 127.0.0.1:0 is not a Unix socket/);
  });
});

describe("logText", () => {
  it("gives a structured line's message, any other line as it is", () => {
    expect(
      logText('{"timestamp":"1796542712653","level":"info","message":"hello from a Worker"}'),
    ).toBe("hello from a Worker");
    expect(logText("plain words")).toBe("plain words");
    expect(logText("{not json")).toBe("{not json");
  });

  it("drops workerd's own noise and empty lines", () => {
    expect(logText("")).toBeNull();
    expect(
      logText(
        '{"timestamp":"1","level":"warn","message":"Not symbolizing stack traces because $LLVM_SYMBOLIZER is not set."}',
      ),
    ).toBeNull();
    expect(logText("stack: 399c4d3 395b0d0 395a655")).toBeNull();
  });
});

describe("controlLine", () => {
  it("is ready once every socket has been reported listening, whatever else comes", () => {
    const waiting = new Set(["entry", "direct:0:default"]);
    expect(controlLine(waiting, '{"event":"listen","socket":"entry","port":0}')).toBe(false);
    expect(controlLine(waiting, "garbage")).toBe(false);
    expect(controlLine(waiting, '{"event":"listen-inspector","port":9230}')).toBe(false);
    expect(controlLine(waiting, '{"event":"listen","socket":"direct:0:default","port":0}')).toBe(
      true,
    );
  });
});

describe("configParts", () => {
  const PLACEHOLDER = "unix:/tmp/cmm-abc/unbound/placeholder.sock";
  const runner = (index: number) =>
    runnerMessage({
      scriptPath: "/x/runner.js",
      compatibilityDate: "2025-06-01",
      rpcHost: `unix:/tmp/cmm-abc/runner-${index}.sock`,
      secret: "s",
    });

  it("gives every runner the same configuration, its RPC socket on the command line", () => {
    const one = configParts(runner(1), PLACEHOLDER);
    const two = configParts(runner(2), PLACEHOLDER);
    expect(JSON.stringify(one.options)).toBe(JSON.stringify(two.options));
    expect(JSON.stringify(one.options)).not.toContain("runner-1");
    expect(one.named).toEqual({
      "direct:0:SandboxRunner": "unix:/tmp/cmm-abc/runner-1.sock:0",
    });
    expect(two.named).toEqual({
      "direct:0:SandboxRunner": "unix:/tmp/cmm-abc/runner-2.sock:0",
    });
    expect(one.direct).toBeUndefined();
  });

  it("gives the direct Worker (the host) a socket each runtime names", () => {
    const parts = configParts(
      {
        direct: { worker: "product" },
        options: { workers: [{ name: "product", bindings: { A: "1" } }] },
      },
      PLACEHOLDER,
    );
    expect(parts.direct).toBe("direct:0:default");
    expect(parts.named).toEqual({});
    expect((parts.options.workers as any[])[0].unsafeDirectSockets).toEqual([
      { host: PLACEHOLDER, port: 0 },
    ]);
  });

  it("refuses a direct Worker that is not configured", () => {
    expect(() =>
      configParts({ direct: { worker: "other" }, options: { workers: [] } }, PLACEHOLDER),
    ).toThrow(/the Worker other given a direct socket is not configured/);
  });
});

/** The pids of a process's children (Linux). */
const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);

describe.skipIf(!existsSync("/proc/self/task"))("the lifeline (real processes)", () => {
  const start = () =>
    spawnWorkerd({
      command: "/bin/sleep",
      args: ["600"],
      config: new Uint8Array([1, 2, 3]),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
  const watcherStarted = async (pid: number) => {
    while (children(pid).length === 0) await new Promise((r) => setTimeout(r, 20));
  };

  it("ends the process when the supervisor's pipe closes (the supervisor died)", async () => {
    const child = start();
    const exited = new Promise((r) => child.once("exit", (_code, signal) => r(signal)));
    await watcherStarted(child.pid!);
    (child.stdio[4] as NodeJS.WritableStream & { destroy(): void }).destroy();
    expect(await exited).toBe("SIGKILL");
  });

  it("leaves the process when the supervisor writes its line first (it ended the runtime)", async () => {
    const child = start();
    const pid = child.pid!;
    const exited = new Promise((r) => child.once("exit", (_code, signal) => r(signal)));
    await watcherStarted(pid);
    (child.stdio[4] as NodeJS.WritableStream).end("x\n");
    // The watcher has left without killing (a zombie: sleep reaps no children), and the process
    // runs on.
    const [watcher] = children(pid);
    while (!/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${watcher}/stat`, "utf8")))
      await new Promise((r) => setTimeout(r, 20));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    child.kill("SIGTERM");
    expect(await exited).toBe("SIGTERM");
  });
});
