import { env } from "cloudflare:workers";
import { it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker-executor";
const progs: Record<string, string> = {
  catchRecurse: "let n = 0; function f() { n++; try { f() } catch (e) { f() } } f(); return n",
  catchRecurse2:
    "let n = 0; function f(d) { n++; try { f(d + 1) } catch (e) { if (n < 1e9) f(d + 1) } } f(0); return n",
  fillSmall: "const a = []; while (true) a.push({ i: a.length })",
  fillStrings: "const a = []; let i = 0; while (true) a.push('x' + (i++))",
  fillBig: "const a = []; while (true) a.push('x'.repeat(1e5) + a.length)",
};
for (const [p, code] of Object.entries(progs))
  it(
    p,
    async () => {
      const ex = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
      const s = Date.now();
      const o = await ex.execute({ code });
      console.log(
        p,
        Date.now() - s,
        "ms",
        o.status,
        o.error?.name,
        o.error?.message?.slice(0, 100),
        o.operations,
      );
    },
    600000,
  );
