/**
 * The configuration builder's bound (cli/local-server/workerd-config/config-builder-client.mjs), with the
 * builder process injected and a clock the test moves: a build that never answers fails after
 * BUILD_TIMEOUT_MS with a message that says so, the stuck builder is SIGKILLed, and the next
 * build goes to a fresh builder; an answered build resolves with its bytes; the builder is let
 * go BUILDER_IDLE_MS after its last build.
 */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  BUILD_TIMEOUT_MS,
  BUILDER_IDLE_MS,
  configBuilder,
} from "../../../../cli/local-server/workerd-config/config-builder-client.mjs";
import { fakeClock, settle } from "../supervisor/fake-clock";

/** A builder process that records what it is sent and answers only when the test says. */
class FakeBuilder extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  connected = true;
  stdout = new PassThrough();
  stderr = new PassThrough();
  sent: { build: string; options: unknown; v8Flags: string }[] = [];
  kills: string[] = [];
  disconnects = 0;
  send(message: { build: string; options: unknown; v8Flags: string }): boolean {
    this.sent.push(message);
    return true;
  }
  kill(signal: NodeJS.Signals): boolean {
    this.kills.push(signal);
    // Exits a moment later, as a real process does.
    setImmediate(() => {
      this.signalCode = signal;
      this.connected = false;
      this.emit("exit", null, signal);
    });
    return true;
  }
  disconnect(): void {
    this.disconnects++;
    this.connected = false;
  }
  answer(id: string): void {
    this.emit("message", {
      id,
      command: "/bin/workerd",
      args: ["serve", "-"],
      config: new Uint8Array([1, 2, 3]),
    });
  }
}

/** The builder under test, its spawned processes, and the clock. */
function setUp() {
  const clock = fakeClock();
  const spawned: FakeBuilder[] = [];
  const builder = configBuilder(
    { TMPDIR: "/nonexistent" },
    {
      spawnBuilder: () => {
        const fake = new FakeBuilder();
        spawned.push(fake);
        return fake as never;
      },
      // Timers on the test's clock, cancellable as the real ones are.
      after: (ms: number, fn: () => void) => {
        let cancelled = false;
        void clock.sleep(ms).then(() => {
          if (!cancelled) fn();
        });
        return () => {
          cancelled = true;
        };
      },
    },
  );
  return { clock, spawned, builder };
}

describe("configBuilder", () => {
  it("fails a build that never answers after BUILD_TIMEOUT_MS and starts a fresh builder", async () => {
    const { clock, spawned, builder } = setUp();
    const outcome = builder.build({ workers: [] }, "--flag").then(
      () => "resolved",
      (error: Error) => error.message,
    );
    spawned[0]?.stderr.write("miniflare: something odd\n");
    expect(spawned).toHaveLength(1);
    expect(spawned[0]?.sent).toEqual([
      { build: "b1", options: { workers: [] }, v8Flags: "--flag" },
    ]);

    await clock.advance(BUILD_TIMEOUT_MS - 1);
    let settled = false;
    void outcome.then(() => (settled = true));
    await settle();
    expect(settled).toBe(false);
    expect(spawned[0]?.kills).toEqual([]);

    await clock.advance(1);
    expect(await outcome).toBe(
      "The configuration builder did not answer within 60 s (a Miniflare version this server does not know?). Its last output:\nminiflare: something odd",
    );
    expect(spawned[0]?.kills).toEqual(["SIGKILL"]);

    // The next build is not sent to the stuck builder, even before it has exited.
    const next = builder.build({ workers: [] }, "");
    expect(spawned).toHaveLength(2);
    expect(spawned[0]?.sent).toHaveLength(1);
    spawned[1]?.answer("b2");
    expect((await next).config).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("resolves an answered build and lets the builder go BUILDER_IDLE_MS later", async () => {
    const { clock, spawned, builder } = setUp();
    const first = builder.build({}, "");
    spawned[0]?.answer("b1");
    expect(await first).toEqual({
      command: "/bin/workerd",
      args: ["serve", "-"],
      config: new Uint8Array([1, 2, 3]),
    });
    // The bound of an answered build fires nothing.
    await clock.advance(BUILDER_IDLE_MS - 1);
    expect(spawned[0]?.disconnects).toBe(0);
    // A build within the idle time goes to the same builder and starts the idle time anew.
    const second = builder.build({}, "");
    expect(spawned).toHaveLength(1);
    spawned[0]?.answer("b2");
    await second;
    await clock.advance(BUILDER_IDLE_MS - 1);
    expect(spawned[0]?.disconnects).toBe(0);
    await clock.advance(1);
    expect(spawned[0]?.disconnects).toBe(1);
    await clock.advance(BUILD_TIMEOUT_MS);
    expect(spawned[0]?.kills).toEqual([]);
  });

  it("rejects a build whose builder exits, with the builder's last output", async () => {
    const { spawned, builder } = setUp();
    const outcome = builder.build({}, "").then(
      () => "resolved",
      (error: Error) => error.message,
    );
    spawned[0]?.stdout.write("Error: cannot load miniflare\n");
    await settle();
    spawned[0]?.emit("exit", 1, null);
    expect(await outcome).toBe(
      "The configuration builder exited (code 1) before it answered. Its last output:\nError: cannot load miniflare",
    );
  });
});
