/**
 * Where the local server's private socket folder is made (cli/local-server/socket-folder.mjs):
 * a safe, short parent or the next candidate or a refusal naming TMPDIR; no uid check where
 * there is none; a clear refusal on Windows; its lock held from its making; a prepared runner's
 * socket moved onto its slot's without a moment where the slot's name points at nothing. Real
 * folders and sockets in a scratch folder; owners and the platform are given. (Which folders are
 * stale and their lock: stale-folders.test.ts.)
 */
import { createConnection, createServer, type Server } from "node:net";
import {
  existsSync,
  renameSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  chooseBase,
  createSocketFolder,
  MAX_SOCKET_PATH_BYTES,
  moveSocketOnto,
  unsafeParent,
} from "../../../../cli/local-server/socket-folder.mjs";
import { LOCK_NAME, probeSocket } from "../../../../cli/local-server/stale-folders.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders";

const { root: scratch, folder, unusedPath } = scratchFolders("cmm-test-folder-");

const uid = process.getuid?.();
/** What the real parent looks like, with its owner replaced. */
const ownedBy = (owner: number) => (path: string) => ({
  ...statSync(path),
  uid: owner,
  isDirectory: () => statSync(path).isDirectory(),
});

describe("unsafeParent", () => {
  it("takes a folder of this user's or root's that others cannot write, or a sticky one", () => {
    expect(unsafeParent(folder(0o700), statSync, uid)).toBeUndefined();
    expect(unsafeParent(folder(0o755), statSync, uid)).toBeUndefined();
    expect(unsafeParent(folder(0o1777), statSync, uid)).toBeUndefined();
    expect(unsafeParent(folder(0o1777), ownedBy(0), 1234)).toBeUndefined();
  });

  it("refuses a world- or group-writable folder without the sticky bit (a swap is possible)", () => {
    expect(unsafeParent(folder(0o777), statSync, uid)).toBe(
      "is writable by other users without the sticky bit",
    );
    expect(unsafeParent(folder(0o775), statSync, uid)).toMatch(/without the sticky bit/);
  });

  it("refuses another user's folder, a missing one and a file; skips the owner check without uids", () => {
    expect(unsafeParent(folder(0o755), ownedBy(4321), 1234)).toBe(
      "belongs to another user (uid 4321)",
    );
    expect(unsafeParent(folder(0o755), ownedBy(4321), undefined)).toBeUndefined();
    expect(unsafeParent(join(scratch, "none"), statSync, uid)).toBe("does not exist");
    const file = join(scratch, "a-file");
    writeFileSync(file, "");
    expect(unsafeParent(file, statSync, uid)).toBe("is not a folder");
  });
});

describe("chooseBase", () => {
  const deps = (env: Record<string, string>) => ({
    env,
    platform: "linux" as const,
    uid,
    pid: 1,
    alive: () => true,
    stat: statSync,
    realpath: realpathSync,
  });

  it("uses TMPDIR when it is safe and short", () => {
    const tmp = folder(0o1777);
    expect(chooseBase(deps({ TMPDIR: tmp }))).toEqual({ base: tmp });
  });

  it("falls back from an unsafe TMPDIR to XDG_RUNTIME_DIR, then to a private folder of ours", () => {
    const unsafe = folder(0o777);
    const runtime = folder(0o700);
    expect(chooseBase(deps({ TMPDIR: unsafe, XDG_RUNTIME_DIR: runtime }))).toEqual({
      base: runtime,
    });
    const cache = folder(0o755);
    const chosen = chooseBase(deps({ TMPDIR: unsafe, XDG_CACHE_HOME: cache }));
    expect(chosen).toEqual({ base: join(cache, "code-mode-mcp", "run") });
    expect(lstatSync(join(cache, "code-mode-mcp", "run")).mode & 0o777).toBe(0o700);
  });

  it("takes a linked TMPDIR's real path: the link's owner cannot repoint it after the check", () => {
    // TMPDIR=/tmp/$USER with /tmp/$USER a link another user planted to /tmp: the check saw /tmp
    // (root's, sticky), and every later use of a socket's path went through the link again.
    const sticky = folder(0o1777);
    const link = unusedPath("link");
    symlinkSync(sticky, link);
    expect(chooseBase(deps({ TMPDIR: link }))).toEqual({ base: realpathSync(sticky) });
  });

  it("refuses a safe TMPDIR inside a folder others may change, and says which", () => {
    // Others may rename the inner folder away and put theirs in its place.
    const open = folder(0o777);
    const inner = join(open, "mine");
    mkdirSync(inner, { mode: 0o700 });
    const runtime = folder(0o700);
    expect(chooseBase(deps({ TMPDIR: inner, XDG_RUNTIME_DIR: runtime }))).toEqual({
      base: runtime,
    });
    const refused = chooseBase(deps({ TMPDIR: inner, XDG_CACHE_HOME: inner }));
    expect(refused).toMatchObject({
      refused: expect.stringContaining(
        `${inner} is inside ${open}, which is writable by other users without the sticky bit`,
      ),
    });
  });

  it("falls back from a TMPDIR too long for a socket path, and refuses naming TMPDIR when nothing fits", () => {
    const long = join(folder(0o700), "x".repeat(70));
    mkdirSync(long);
    const runtime = folder(0o700);
    expect(chooseBase(deps({ TMPDIR: long, XDG_RUNTIME_DIR: runtime }))).toEqual({
      base: runtime,
    });
    const refused = chooseBase(deps({ TMPDIR: long, XDG_CACHE_HOME: long }));
    expect(refused).toMatchObject({
      refused: expect.stringMatching(/too long for a socket path.*\n {2}Fix: .*TMPDIR=\/tmp$/s),
    });
  });
});

describe("createSocketFolder", () => {
  it("makes a private folder named with its owner's pid, its sockets within the path limit", async () => {
    const made = createSocketFolder({ env: { TMPDIR: folder(0o1777) }, pid: 4242 });
    try {
      expect(made.path).toMatch(/\/cmm-4242-[A-Za-z0-9]{6}$/);
      expect(lstatSync(made.path).mode & 0o777).toBe(0o700);
      expect(Buffer.byteLength(made.runner(16).file)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
      // Its lock is held from the moment it is made.
      expect(lstatSync(join(made.path, LOCK_NAME)).isSocket()).toBe(true);
      expect(await probeSocket(join(made.path, LOCK_NAME))).toBe("answers");
    } finally {
      made.remove();
    }
  });

  it("does not throw where there are no user ids; refuses Windows with what to do", () => {
    const made = createSocketFolder({ env: { TMPDIR: folder(0o1777) }, uid: undefined });
    made.remove();
    expect(() => createSocketFolder({ platform: "win32" })).toThrow(
      /Unix sockets, which Node does not offer on Windows.*\n {2}Fix: run it in WSL/s,
    );
  });
});

describe("moveSocketOnto (a prepared replacement takes its slot's socket)", () => {
  /** Listens on `file`; each connection is answered with `name`. */
  const listen = (file: string, name: string) =>
    new Promise<Server>((resolve) => {
      const server = createServer((socket) => socket.end(name));
      server.listen(file, () => resolve(server));
    });
  /** What the listener on `file` answers. */
  const reach = (file: string) =>
    new Promise<string>((resolve, reject) => {
      let text = "";
      createConnection(file)
        .on("data", (d) => (text += d))
        .on("end", () => resolve(text))
        .on("error", reject);
    });

  it("the slot's name reaches the new runner, and never names nothing on the way", async () => {
    const moves = mkdtempSync(join(scratch, "move-"));
    const slot = join(moves, "runner-1.sock:0");
    const aside = join(moves, "runner-101.sock:0");
    // The ended runner's file is still there (a killed workerd leaves it); the new one listens.
    const old = await listen(slot, "old");
    old.close();
    writeFileSync(slot, "");
    const fresh = await listen(aside, "fresh");
    // Between any two steps, a host connecting to the slot's name must find a file there: a
    // name pointing at nothing is "No such file or directory" for the runs sent at that moment.
    const absent: string[] = [];
    const watched = {
      rmSync: (path: string, options: { force: boolean }) => {
        rmSync(path, options);
        if (!existsSync(slot)) absent.push(`after removing ${path}`);
      },
      renameSync: (from: string, to: string) => {
        renameSync(from, to);
        if (!existsSync(slot)) absent.push(`after renaming ${from}`);
      },
    };
    moveSocketOnto(aside, slot, watched);
    expect(absent).toEqual([]);
    expect(await reach(slot)).toBe("fresh");
    expect(existsSync(aside)).toBe(false);
    fresh.close();
  });
});
