/**
 * The `EXECUTOR` setting: the product runs its tools on the configured executor (the shared
 * worker is recognisable from inside a run: its engine has no `Intl`), and a bad value is a
 * configuration problem naming the accepted values.
 */
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../../src/app/config/config";
import { parseExecutorSetting } from "../../../../src/app/config/executor-setting";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { configured } from "../helpers";

const PROBE =
  "async () => ({ intl: typeof Intl, tasks: typeof (await codemode.request({ method: 'GET', path: '/tasks' })) === 'object' })";

describe("EXECUTOR", () => {
  it("runs search, execute and code on the shared worker when set to shared-worker", async () => {
    const worker = configured({ EXECUTOR: "shared-worker" });
    const client = await connect(worker);
    const search = await client.callTool({
      name: "search",
      arguments: {
        code: "async () => ({ intl: typeof Intl, n: Object.keys((await codemode.spec()).paths).length })",
      },
    });
    expect(search.isError, text(search)).toBeFalsy();
    expect(JSON.parse(text(search))).toMatchObject({ intl: "undefined" });
    const execute = await client.callTool({ name: "execute", arguments: { code: PROBE } });
    expect(execute.isError, text(execute)).toBeFalsy();
    expect(JSON.parse(text(execute))).toEqual({ intl: "undefined", tasks: true });
    await client.close();
    const code = await connect(worker, "/mcp/code");
    const tools = await code.listTools();
    const ran = await code.callTool({
      name: tools.tools[0]!.name,
      arguments: { code: "async () => typeof Intl" },
    });
    expect(ran.isError, text(ran)).toBeFalsy();
    expect(text(ran)).toContain("undefined");
    await code.close();
  });

  it("keeps the isolate per run by default", async () => {
    const client = await connect(configured({}));
    const execute = await client.callTool({ name: "execute", arguments: { code: PROBE } });
    expect(JSON.parse(text(execute))).toEqual({ intl: "object", tasks: true });
    await client.close();
  });

  it("refuses an unknown value, naming the accepted ones", () => {
    expect(parseExecutorSetting(" Shared-Worker ")).toEqual({ ok: true, kind: "shared-worker" });
    const checked = readConfig({ EXECUTOR: "quickjs" }, ["demo-api"]);
    expect(checked).toMatchObject({
      ok: false,
      problems: [
        {
          setting: "EXECUTOR",
          message: 'EXECUTOR must be isolate-per-run or shared-worker; got "quickjs".',
          fix: expect.stringContaining("EXECUTOR=shared-worker"),
        },
      ],
    });
  });
});
