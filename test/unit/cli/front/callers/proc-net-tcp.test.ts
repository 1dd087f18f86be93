/**
 * Finding the client's socket of a connection in the kernel's TCP tables (cli/local-server/
 * front/callers/proc-net-tcp.mjs) and the address forms it rests on (peer-address.mjs): text in,
 * owner out, no /proc.
 */
import { describe, expect, it } from "vitest";
import {
  ipBytes,
  isLoopback,
  normalAddress,
} from "../../../../../cli/local-server/front/callers/peer-address.mjs";
import {
  clientLineKeys,
  findClientSockets,
  tableAddress,
} from "../../../../../cli/local-server/front/callers/proc-net-tcp.mjs";
import { HEADER, line, v4 } from "./fake-proc";

/** The client's socket of a connection from 127.0.0.1:54321 to the front at 127.0.0.1:8080. */
const CONNECTION = {
  client: { address: "127.0.0.1", port: 54321 },
  server: { address: "127.0.0.1", port: 8080 },
};
const CLIENT = v4("127.0.0.1", 54321);
const SERVER = v4("127.0.0.1", 8080);

/** Finds the connection's client socket in `text` (tcp or tcp6 by the connection's family). */
function find(text: string, connection = CONNECTION, table: "tcp" | "tcp6" = "tcp") {
  const key = clientLineKeys(connection, true)[table];
  if (key === undefined) throw new Error(`no ${table} key`);
  return findClientSockets(text, new Set([key])).get(key);
}

describe("the kernel's TCP tables", () => {
  it("writes addresses as the kernel does: 4-byte words in host order, ports as they are", () => {
    expect(CLIENT).toBe("0100007F:D431");
    expect(clientLineKeys(CONNECTION, true).tcp).toBe("0100007F:D431 0100007F:1F90");
    expect(tableAddress(Uint8Array.from([127, 0, 0, 1]), false)).toBe("7F000001");
    expect(tableAddress(ipBytes("::1")!, true)).toBe("00000000000000000000000001000000");
    expect(tableAddress(ipBytes("::ffff:127.0.0.1")!, true)).toBe(
      "0000000000000000FFFF00000100007F",
    );
  });

  it("finds the client's socket (v4) and never the front's own line, which has it swapped", () => {
    const server = line(0, SERVER, CLIENT, 1000, "111");
    const client = line(1, CLIENT, SERVER, 1001, "222");
    expect(find([HEADER, server, client].join("\n"))).toEqual({ uid: 1001, inode: "222" });
    // Only the front's own side in the table (the client's closed meanwhile): nothing.
    expect(find([HEADER, server, ""].join("\n"))).toBeUndefined();
  });

  it("finds an IPv6 client (::1) in tcp6", () => {
    const connection = {
      client: { address: "::1", port: 40000 },
      server: { address: "::1", port: 8080 },
    };
    const one = "00000000000000000000000001000000";
    expect(clientLineKeys(connection, true).tcp).toBeUndefined();
    const text = [
      HEADER,
      line(0, `${one}:1F90`, `${one}:9C40`, 1000, "301"),
      line(1, `${one}:9C40`, `${one}:1F90`, 1000, "302"),
    ].join("\n");
    expect(find(text, connection, "tcp6")).toEqual({ uid: 1000, inode: "302" });
  });

  it("finds an IPv4 client behind an IPv6 socket (mapped addresses) in tcp6", () => {
    // The front listening on `::` sees `::ffff:127.0.0.1`; normalised first, as peer-owners does.
    const connection = {
      client: { address: normalAddress("::ffff:127.0.0.1"), port: 54321 },
      server: { address: normalAddress("::ffff:127.0.0.1"), port: 8080 },
    };
    expect(connection.client.address).toBe("127.0.0.1");
    const mapped = "0000000000000000FFFF00000100007F";
    const text = [
      HEADER,
      line(0, `${mapped}:1F90`, `${mapped}:D431`, 1000, "401"),
      line(1, `${mapped}:D431`, `${mapped}:1F90`, 1002, "402"),
    ].join("\n");
    expect(find(text, connection, "tcp6")).toEqual({ uid: 1002, inode: "402" });
  });

  it("reports inode 0 (TIME_WAIT: no process holds it), but a held socket of the pair wins", () => {
    const waiting = line(0, CLIENT, SERVER, 0, "0", "06");
    expect(find([HEADER, waiting].join("\n"))).toEqual({ uid: 0, inode: "0" });
    const held = line(1, CLIENT, SERVER, 1000, "555");
    expect(find([HEADER, waiting, held].join("\n"))).toEqual({ uid: 1000, inode: "555" });
    expect(find([HEADER, held, waiting].join("\n"))).toEqual({ uid: 1000, inode: "555" });
    // Still so while the search goes on for another connection (it cannot stop at the first).
    const key = clientLineKeys(CONNECTION, true).tcp!;
    const other = `${v4("127.0.0.1", 1)} ${SERVER}`;
    const both = findClientSockets([HEADER, held, waiting].join("\n"), new Set([key, other]));
    expect(both.get(key)).toEqual({ uid: 1000, inode: "555" });
  });

  it("skips garbage: broken lines, a pair at the wrong place, lines cut short", () => {
    const text = [
      "garbage",
      "",
      ": ",
      `   0: ${CLIENT} ${SERVER}`, // cut short: no uid, no inode
      `   1: ${CLIENT} ${SERVER} 01 00000000:00000000 00:00000000 00000000 x 0 y`, // not numbers
      `   2: 7F${CLIENT} ${SERVER} 01 00000000:00000000 00:00000000 00000000 1000 0 666`, // shifted
      `   3: ${CLIENT} ${SERVER}0 01 00000000:00000000 00:00000000 00000000 1000 0 777`, // longer
      `x ${CLIENT} ${SERVER} 01 00000000:00000000 00:00000000 00000000 1000 0 888`, // no "sl:"
    ].join("\n");
    expect(find(text)).toBeUndefined();
    // The same table with one good line: found (the search is not blind).
    expect(find(`${text}\n${line(9, CLIENT, SERVER, 1000, "999")}`)).toEqual({
      uid: 1000,
      inode: "999",
    });
  });

  it("reads at most maxLines lines", () => {
    const text = [HEADER, line(0, SERVER, CLIENT, 0, "1"), line(1, CLIENT, SERVER, 0, "2")].join(
      "\n",
    );
    const key = clientLineKeys(CONNECTION, true).tcp!;
    expect(findClientSockets(text, new Set([key]), 2).get(key)).toBeUndefined();
    expect(findClientSockets(text, new Set([key]), 3).get(key)).toEqual({ uid: 0, inode: "2" });
  });

  it("finds many connections in one reading of the table", () => {
    const lines = [HEADER];
    const keys = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const port = 40000 + i;
      lines.push(line(2 * i, v4("127.0.0.1", port), SERVER, 0, "0", "06"));
      if (i % 3 === 0) {
        lines.push(line(2 * i + 1, v4("127.0.0.1", port), SERVER, 1000, String(7000 + i)));
        keys.add(`${v4("127.0.0.1", port)} ${SERVER}`);
      }
    }
    const found = findClientSockets(lines.join("\n"), keys);
    expect(found.size).toBe(100);
    expect(found.get(`${v4("127.0.0.1", 40003)} ${SERVER}`)).toEqual({ uid: 1000, inode: "7003" });
  });
});

describe("peer addresses", () => {
  it("normalises an IPv4-mapped address to its IPv4 form, and nothing else", () => {
    expect(normalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalAddress("::FFFF:10.1.2.3")).toBe("10.1.2.3");
    expect(normalAddress("::1")).toBe("::1");
    expect(normalAddress("::fffe:127.0.0.1")).toBe("::fffe:127.0.0.1");
    expect(normalAddress("10.0.0.1")).toBe("10.0.0.1");
  });

  it("tells loopback peers from others", () => {
    for (const address of ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"])
      expect(isLoopback(address), address).toBe(true);
    for (const address of ["10.0.0.1", "::2", "::", "fe80::1", "::ffff:10.0.0.1", "x"])
      expect(isLoopback(address), address).toBe(false);
  });

  it("reads IPv6 forms: '::' anywhere, a zone, an IPv4 tail", () => {
    expect([...ipBytes("::")!]).toEqual(Array(16).fill(0));
    expect([...ipBytes("1::")!]).toEqual([0, 1, ...Array(14).fill(0)]);
    expect([...ipBytes("fe80::1%eth0")!]).toEqual([0xfe, 0x80, ...Array(13).fill(0), 1]);
    expect([...ipBytes("1:2:3:4:5:6:7:8")!]).toEqual([
      0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8,
    ]);
    expect([...ipBytes("::ffff:1.2.3.4")!].slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(ipBytes("not an address")).toBeUndefined();
  });
});
