// The sample API end to end: `execute` calls it through src/api.ts's callback from one program
// that returns only the answer.
import { describe, expect, it } from "vitest";
import { connect, json } from "./client";

describe("the sample API", () => {
  it("execute calls the API from the sandbox and returns only the answer", async () => {
    const client = await connect("/mcp");
    const result = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => {
          const blocked = await codemode.request({ method: "GET", path: "/tasks", query: { status: "blocked" } });
          return blocked.map((t) => t.title);
        }`,
      },
    });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toEqual(["Fix the login redirect", "Review the pricing page"]);
    await client.close();
  });
});
