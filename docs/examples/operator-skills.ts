// docs/skills.md and docs/library.md example "operator skills in a library Worker". Kept in sync
// with both pages by test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import {
  createMcpHandler,
  openApiMcpServer,
  WorkerLoaderExecutor,
  type ApiRequest,
} from "code-mode-mcp";
import spec from "./openapi.json";
// `npx code-mode-mcp skills pack ./skills src/skills.json` wrote it from Agent Skills folders.
import operatorSkills from "./skills.json";

const request = ({ method, path, body }: ApiRequest) =>
  fetch(`https://api.example.com${path}`, {
    method,
    headers: { authorization: `Bearer ${env.API_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

export const apiHandler = createMcpHandler(
  openApiMcpServer({
    spec,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    request,
    secrets: [env.API_TOKEN],
    // No store: these are the only skills; programs call them, skills.save() is refused.
    // With `store` and `owner` (docs/skills.md), they are listed beside each owner's own.
    skills: { readOnly: operatorSkills },
  }),
);
