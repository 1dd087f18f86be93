// What the product skills tests do to the Worker: run a program that saves a skill, call a
// tool, ask /api/skills.
import type { WorkerFetch } from "../helpers";
import { connect } from "../../../helpers/clients/mcp-client";

/** A tool result as the tests read it. */
export type Result = { isError?: boolean; content: { text: string }[] };

/** The first content block's text. */
export const text0 = (result: Result) => result.content[0]!.text;

/** A fresh skill name (a key part), so no two cases share stored skills. */
export const unique = () => `s${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;

/** A program that runs a function and saves it as `name` (version marks the answer). */
export const saving = (name: string, version = 1) => `async () => {
  const add = async ({ a, b }) => {
    const listed = await codemode.list_projects({});
    return { sum: a + b + ${version - 1}, projects: JSON.stringify(listed).length > 2 };
  };
  const answer = await add({ a: 1, b: 2 });
  await skills.save({
    name: "${name}",
    description: "Adds a and b (version ${version}).",
    input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    run: add,
  });
  return answer;
}`;

/** Calls `/mcp/code`'s `code` (or `/mcp`'s `execute`) with `code`; gives its result. */
export async function call(fetch: WorkerFetch, code: string, path = "/mcp/code", headers = {}) {
  const client = await connect(fetch, path, { headers });
  try {
    const tool = path === "/mcp" ? "execute" : "code";
    return (await client.callTool({ name: tool, arguments: { code } })) as Result;
  } finally {
    await client.close();
  }
}

/** Asks `/api/skills<path>`; gives the status and the JSON body. */
export async function api(fetch: WorkerFetch, path: string, init: RequestInit = {}, headers = {}) {
  const response = await fetch(`http://localhost/api/skills${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...headers },
  });
  return { status: response.status, body: (await response.json()) as any };
}
