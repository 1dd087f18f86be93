// A request waits for its connection's caller before it goes on to the host
// (cli/local-server/front/callers/caller-wait.mjs): the host places runs by the caller, and a
// request sent as `unknown` no caller's share bounds.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createCallerWait } from "../../../../../cli/local-server/front/callers/caller-wait.mjs";

/** A socket stand-in: what the waits read of it (whether destroyed, its close). */
function fakeSocket(): Socket & { close: () => void } {
  const socket = Object.assign(new EventEmitter(), { destroyed: false }) as unknown as Socket & {
    close: () => void;
  };
  socket.close = () => {
    (socket as { destroyed: boolean }).destroyed = true;
    socket.emit("close");
  };
  return socket;
}

describe("createCallerWait", () => {
  it("answers at once with a known caller, and with none named (no /proc)", () => {
    const known = fakeSocket();
    const unnamed = fakeSocket();
    const waits = createCallerWait((s) => (s === known ? "process:12" : ""));
    expect(waits.of(known)).toBe("process:12");
    expect(waits.of(unnamed)).toBe("");
    expect(waits.waiting()).toBe(0);
  });

  it("holds a request of a connection not known yet until the look names it", async () => {
    // Before: the request went on at once as `unknown`, and the host placed it for nobody.
    const socket = fakeSocket();
    let key = "unknown";
    const waits = createCallerWait(() => key);
    const first = waits.of(socket);
    const second = waits.of(socket);
    expect(first).toBeInstanceOf(Promise);
    expect(waits.waiting()).toBe(1);
    key = "process:34";
    waits.known(socket, key);
    expect(await first).toBe("process:34");
    expect(await second).toBe("process:34");
    expect(waits.waiting()).toBe(0);
    expect(socket.listenerCount("close")).toBe(0);
    expect(waits.of(socket)).toBe("process:34");
  });

  it("lets a request go when its connection closes, and the others of that look alone", async () => {
    const gone = fakeSocket();
    const other = fakeSocket();
    const waits = createCallerWait(() => "unknown");
    const leaving = waits.of(gone);
    const staying = waits.of(other);
    gone.close();
    expect(await leaving).toBe("unknown");
    expect(waits.waiting()).toBe(1);
    waits.known(other, "process:5");
    expect(await staying).toBe("process:5");
    // A closed connection is not waited for.
    expect(waits.of(gone)).toBe("unknown");
  });

  it("lets a request go as it is known then once the bound passes (no look told)", async () => {
    const socket = fakeSocket();
    const waits = createCallerWait(() => "unknown", { maxMs: 5 });
    expect(await waits.of(socket)).toBe("unknown");
    expect(waits.waiting()).toBe(0);
    expect(socket.listenerCount("close")).toBe(0);
  });

  it("ignores word of a socket nobody waits for", () => {
    const waits = createCallerWait(() => "unknown");
    waits.known(fakeSocket(), "process:1");
    expect(waits.waiting()).toBe(0);
  });
});
