import { env } from "cloudflare:workers";
import { RpcTarget } from "cloudflare:workers";
import { expect, it } from "vitest";

class Host extends RpcTarget {
  async call(x: string) {
    return "host:" + x;
  }
}

it("loads a dynamic worker and calls back", async () => {
  const w = env.LOADER.load({
    compatibilityDate: "2026-08-01",
    mainModule: "main.js",
    modules: {
      "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
        export default class extends WorkerEntrypoint {
          async run(payload, host) {
            let f; try { await fetch("http://127.0.0.1:1"); f = "fetched"; } catch (e) { f = String(e); }
            let ev; try { ev = eval("1+1"); } catch (e) { ev = String(e); }
            return { got: await host.call(payload), f, ev };
          }
        }`,
    },
    globalOutbound: null,
  });
  const ep = w.getEntrypoint() as any;
  const r = await ep.run("hi", new Host());
  console.log(r);
  expect(r.got).toBe("host:hi");
});
