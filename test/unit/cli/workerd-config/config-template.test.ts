/**
 * cli/local-server/workerd-config/config-template.mjs: what of a runtime's options differs from launch to launch
 * is taken out (a slot each), so that one kept configuration serves every launch and holds no
 * setting, secret or folder of any launch; options whose values cannot all be taken out are not
 * templated (the caller builds them as they are).
 */
import { describe, expect, it } from "vitest";
import {
  PROXY_SLOT,
  SLOT_MARKER,
  configTemplate,
  pathSlot,
} from "../../../../cli/local-server/workerd-config/config-template.mjs";

const folders = { sockets: "/tmp/cmm-42-abcdef", persist: "/srv/u/data" };
const options = (bindings: Record<string, unknown> = {}) => ({
  host: "127.0.0.1",
  resourcePersistencePath: "/srv/u/data/v3",
  workers: [
    {
      name: "code-mode-mcp",
      scriptPath: "/pkg/dist/worker/worker.js",
      modulesRoot: "/pkg/dist/worker",
      bindings: {
        SPEC: "demo-api",
        API_TOKEN: "tok-1234567890",
        LOCAL_CLUSTER_SECRET: "s1",
        ...bindings,
      },
      serviceBindings: {
        SANDBOX_RUNNER_1: {
          external: { address: "unix:/tmp/cmm-42-abcdef/runner-1.sock", http: {} },
        },
      },
      unsafeDirectSockets: [{ host: "unix:/tmp/cmm-42-abcdef/unbound/placeholder.sock", port: 0 }],
    },
  ],
});

describe("configTemplate", () => {
  it("puts a slot in place of every string binding and of this launch's folders", () => {
    const t = configTemplate(options(), folders)!;
    const text = JSON.stringify(t.options);
    for (const value of ["tok-1234567890", "s1", "demo-api", "/tmp/cmm-42-abcdef", "/srv/u/data"])
      expect(text).not.toContain(value);
    expect(t.options).toMatchObject({
      resourcePersistencePath: `${pathSlot("persist")}/v3`,
      workers: [
        {
          scriptPath: "/pkg/dist/worker/worker.js",
          bindings: { API_TOKEN: `${SLOT_MARKER}:b:0:API_TOKEN;` },
          serviceBindings: {
            SANDBOX_RUNNER_1: {
              external: { address: `unix:${pathSlot("sockets")}/runner-1.sock` },
            },
          },
        },
      ],
    });
    expect(t.bindings).toContainEqual([`${SLOT_MARKER}:b:0:API_TOKEN;`, "tok-1234567890"]);
    expect(t.paths).toEqual([
      [pathSlot("sockets"), "/tmp/cmm-42-abcdef"],
      [pathSlot("persist"), "/srv/u/data"],
    ]);
  });

  it("gives two launches with other values the same template", () => {
    const other = configTemplate(
      JSON.parse(
        JSON.stringify(options({ API_TOKEN: "another-token-value" }))
          .replaceAll("/tmp/cmm-42-abcdef", "/tmp/cmm-7-zzzzzz")
          .replaceAll("/srv/u/data", "/tmp/code-mode-mcp-data-1"),
      ),
      { sockets: "/tmp/cmm-7-zzzzzz", persist: "/tmp/code-mode-mcp-data-1" },
    )!;
    expect(other.options).toEqual(configTemplate(options(), folders)!.options);
  });

  it("keeps non-string bindings in the template (they are part of its key)", () => {
    const t = configTemplate(options({ LIMITS: { n: 1 } }), folders)!;
    expect((t.options.workers as any[])[0].bindings.LIMITS).toEqual({ n: 1 });
  });

  it("makes no template when values cannot all be taken out", () => {
    // Folders inside one another: a slot would hold part of the other.
    expect(
      configTemplate(options(), { sockets: "/tmp/a", persist: "/tmp/a/data" }),
    ).toBeUndefined();
    // The Worker's modules inside a launch folder: the build reads them there.
    const inside = options();
    inside.workers[0]!.scriptPath = "/tmp/cmm-42-abcdef/worker.js";
    expect(configTemplate(inside, folders)).toBeUndefined();
    // A binding name a slot cannot carry.
    expect(configTemplate(options({ "A;B": "x" }), folders)).toBeUndefined();
    // A relative folder, or one holding the marker.
    expect(configTemplate(options(), { sockets: "tmp/x" })).toBeUndefined();
    expect(configTemplate(options(), { sockets: `/tmp/${SLOT_MARKER}` })).toBeUndefined();
  });

  it("has a proxy slot of the length of Miniflare's proxy secret, holding the marker", () => {
    expect(Buffer.byteLength(PROXY_SLOT)).toBe(16);
    expect(PROXY_SLOT.startsWith(SLOT_MARKER)).toBe(true);
  });
});
