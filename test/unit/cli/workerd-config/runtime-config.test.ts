/**
 * cli/local-server/workerd-config/runtime-config.mjs: a runtime's configuration for this launch, kept between
 * launches without any launch's values. With a builder that stands in for Miniflare (it lays the
 * options' strings out as a Cap'n Proto message and makes the folders they name, as Miniflare
 * does) and the real cache on disk: the first launch builds and keeps, the next one with other
 * secrets and folders builds nothing and gets its own values; the builder never sees a value of a
 * launch; a configuration that cannot be templated is used once and not kept; an entry that names
 * a folder outside the launch's own is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openConfigCache } from "../../../../cli/local-server/workerd-config/config-cache.mjs";
import {
  PROXY_SLOT,
  configTemplate,
} from "../../../../cli/local-server/workerd-config/config-template.mjs";
import {
  fillTemplate,
  runtimeConfig,
} from "../../../../cli/local-server/workerd-config/runtime-config.mjs";
import { decode, encode, text, texts } from "../../../helpers/cli/capnp-tree";

const dir = mkdtempSync(join(tmpdir(), "runtime-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modules = join(dir, "modules");
mkdirSync(modules);
writeFileSync(join(modules, "worker.js"), "export default {}");
const workerd = join(dir, "workerd");
writeFileSync(workerd, "#!/bin/sh\n");

/** A launch's folders and options (a host's shape: bindings, runner addresses, data). */
function launch(secret: string, bindings: Record<string, string> = {}) {
  const root = mkdtempSync(join(dir, "launch-"));
  const sockets = join(root, "sockets");
  const persist = join(root, "data");
  mkdirSync(sockets);
  mkdirSync(persist);
  return {
    sockets,
    persist,
    options: {
      host: "127.0.0.1",
      resourcePersistencePath: join(persist, "v3"),
      workers: [
        {
          name: "host",
          scriptPath: join(modules, "worker.js"),
          modulesRoot: modules,
          bindings: { API_TOKEN: secret, SPEC: "demo-api", ...bindings },
          serviceBindings: { R1: { external: { address: `unix:${sockets}/runner-1.sock` } } },
        },
      ],
    },
  };
}

/** Stands in for Miniflare: every string of the options in a message, the folders made. */
function fakeBuilder(withProxySlot = true) {
  const calls: string[] = [];
  return {
    calls,
    build: async (options: Record<string, unknown>, _flags: string, tmp?: string) => {
      calls.push(JSON.stringify(options));
      const strings: string[] = [];
      const walk = (v: unknown) => {
        if (typeof v === "string") strings.push(v);
        else if (v && typeof v === "object") Object.values(v).forEach(walk);
      };
      walk(options);
      const data = join(String(options.resourcePersistencePath), "do");
      const cache = join(String(tmp), "miniflare-0123abcd", "cache");
      mkdirSync(data, { recursive: true });
      mkdirSync(cache, { recursive: true });
      strings.push(data, cache);
      const config = encode({
        struct: [],
        pointers: [
          { list: strings.map((s) => text(s)) },
          { bytes: withProxySlot ? Buffer.from(PROXY_SLOT) : Buffer.alloc(16, 7) },
        ],
      });
      return { command: workerd, args: ["serve", "--binary", "-"], config };
    },
  };
}

const random = (size: number) => Buffer.alloc(size, 0xab);

describe("runtimeConfig", () => {
  it("builds once without any launch's values, then fills each launch's own from the cache", async () => {
    const cacheFolder = join(dir, "cache-1");
    const cache = openConfigCache(cacheFolder, join(dir, "key-1", "spec-cache.key"));
    const builder = fakeBuilder();
    const env = { PATH: "/bin" };

    const first = launch("first-secret-value");
    const a = await runtimeConfig(
      { options: first.options, v8Flags: "", folders: first },
      { builder, cache, env, random },
    );
    expect(builder.calls).toHaveLength(1);
    // No value of the launch; its folders only as the build's own folder (inside the private
    // socket folder), which the kept configuration does not hold.
    const seen = builder.calls[0]!.replace(new RegExp(`${first.sockets}/build-[^/"]+`, "g"), "");
    for (const value of ["first-secret-value", "demo-api", first.sockets, first.persist])
      expect(seen).not.toContain(value);
    expect(readdirSync(cacheFolder)).toHaveLength(1);
    expect(texts(decode(a.config))).toEqual(
      expect.arrayContaining([
        "first-secret-value",
        "demo-api",
        `unix:${first.sockets}/runner-1.sock`,
        join(first.persist, "v3", "do"),
        join(first.sockets, "tmp", "miniflare-0123abcd", "cache"),
      ]),
    );
    // Miniflare's proxy secret: this launch's random bytes.
    expect([...(decode(a.config).pointers[1] as { bytes: Uint8Array }).bytes]).toEqual(
      Array(16).fill(0xab),
    );
    // The build's own folder is gone; the folders the configuration names are made.
    expect(readdirSync(first.sockets).filter((n) => n.startsWith("build-"))).toEqual([]);
    expect(existsSync(join(first.persist, "v3", "do"))).toBe(true);

    const second = launch("second-secret-value");
    const b = await runtimeConfig(
      { options: second.options, v8Flags: "", folders: second },
      { builder, cache, env, random: (size) => Buffer.alloc(size, 0xcd) },
    );
    expect(builder.calls).toHaveLength(1);
    const strings = texts(decode(b.config));
    expect(strings).toContain("second-secret-value");
    expect(strings).toContain(`unix:${second.sockets}/runner-1.sock`);
    expect(strings.join("\n")).not.toContain("first-secret-value");
    expect(strings.join("\n")).not.toContain(first.sockets);
    expect(existsSync(join(second.persist, "v3", "do"))).toBe(true);
    expect(existsSync(join(second.sockets, "tmp", "miniflare-0123abcd", "cache"))).toBe(true);
    expect([...(decode(b.config).pointers[1] as { bytes: Uint8Array }).bytes]).toEqual(
      Array(16).fill(0xcd),
    );

    // Another binding name is another configuration.
    const third = launch("x", { APPROVALS: "on" });
    await runtimeConfig(
      { options: third.options, v8Flags: "", folders: third },
      { builder, cache, env, random },
    );
    expect(builder.calls).toHaveLength(2);
  });

  it("uses a configuration without the proxy slot once and keeps nothing", async () => {
    const cacheFolder = join(dir, "cache-2");
    const cache = openConfigCache(cacheFolder, join(dir, "key-2", "spec-cache.key"));
    const builder = fakeBuilder(false);
    const one = launch("secret-one-value");
    const built = await runtimeConfig(
      { options: one.options, v8Flags: "", folders: one },
      { builder, cache, env: {}, random },
    );
    expect(texts(decode(built.config))).toContain("secret-one-value");
    expect(existsSync(cacheFolder) ? readdirSync(cacheFolder) : []).toEqual([]);
  });

  it("refuses a kept configuration that names a folder outside this launch's", () => {
    const one = launch("s-1234567890");
    const template = configTemplate(one.options, { sockets: one.sockets, persist: one.persist })!;
    const kept = {
      command: workerd,
      args: [],
      config: encode({ struct: [], pointers: [] }),
      folders: [`${template.paths[1]![0]}/../../../home/u/.ssh`],
    };
    expect(() => fillTemplate(kept, template, random)).toThrow(/outside this server's/);
    expect(() => fillTemplate({ ...kept, folders: ["/etc/cron.d"] }, template, random)).toThrow(
      /outside this server's/,
    );
  });
});
