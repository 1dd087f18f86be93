/**
 * An SDK v1 client that declares elicitation and answers each `elicitation/create` request
 * with `answer`, recording what it was asked.
 */
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { connectV1, viaWorker, type WorkerLike } from "./clients";

/**
 * Connects to an agent Worker and answers its elicitation requests.
 * @param worker - the agent's `serve()` handler
 * @param modes - the declared elicitation capability (e.g. `{ form: {} }`)
 * @param answer - the user's answer to each request
 */
export async function elicitingClient(
  worker: WorkerLike,
  modes: Record<string, unknown>,
  answer: (params: Record<string, unknown>) => ElicitResult,
) {
  const { client } = await connectV1("http://localhost/mcp", viaWorker(worker), {
    elicitation: modes,
  });
  const asked: Record<string, unknown>[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer(request.params);
  });
  return { client, asked };
}
