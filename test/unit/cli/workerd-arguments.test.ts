/**
 * workerd's arguments as Miniflare builds them, with its entry socket and loopback service moved
 * to the runtime's Unix sockets (cli/local-server/workerd-arguments.mjs): the runtimes open no
 * loopback TCP port, and a Miniflare that names them otherwise stops the runtime's start.
 */
import { describe, expect, it } from "vitest";
import { runtimeSockets } from "../../../cli/local-server/socket-folder.mjs";
import { unixArguments } from "../../../cli/local-server/workerd-arguments.mjs";

const sockets = runtimeSockets("/tmp/cmm-abc", "r7");
// As Miniflare 4 passes them (getRuntimeArgs).
const MINIFLARE = [
  "serve",
  "--binary",
  "--experimental",
  "--socket-addr=entry=127.0.0.1:0",
  "--external-addr=loopback=127.0.0.1:40123",
  "--control-fd=3",
  "-",
];

describe("unixArguments", () => {
  it("moves the entry socket and the loopback service to the runtime's files", () => {
    expect(unixArguments(MINIFLARE, sockets)).toEqual([
      "serve",
      "--binary",
      "--experimental",
      "--socket-addr=entry=unix:/tmp/cmm-abc/r7.entry.sock",
      "--external-addr=loopback=unix:/tmp/cmm-abc/r7.loopback.sock",
      "--control-fd=3",
      "-",
    ]);
  });

  it("refuses arguments without either: no runtime starts on a TCP port unnoticed", () => {
    for (const missing of ["--socket-addr=entry=", "--external-addr=loopback="])
      expect(() =>
        unixArguments(
          MINIFLARE.filter((a) => !a.startsWith(missing)),
          sockets,
        ),
      ).toThrow(`workerd was started without ${missing}`);
  });

  it("names every socket of a runtime in the folder, the direct one as workerd binds it", () => {
    expect(sockets).toMatchObject({
      entry: "/tmp/cmm-abc/r7.entry.sock",
      loopback: "/tmp/cmm-abc/r7.loopback.sock",
      direct: { host: "unix:/tmp/cmm-abc/r7.direct.sock", file: "/tmp/cmm-abc/r7.direct.sock:0" },
    });
  });
});
