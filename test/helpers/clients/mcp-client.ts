/**
 * Real SDK v2 clients talking HTTP to a handler or a Worker in-process (no socket): the one way
 * the workers and seeds suites connect a modern client.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** The fetch MCP clients accept (the SDKs' `FetchLike`). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch into a Worker or handler that also takes a Request (wider than {@link FetchLike}). */
export type WorkerFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Anything with a `fetch(request)` method: a stateless handler, an entry object. */
export interface FetchTarget {
  fetch(request: Request): Promise<Response> | Response;
}

/** A fetch that hands every request straight to `handler` (real HTTP handling, no network). */
export function direct(handler: FetchTarget): WorkerFetch {
  return async (input, init) => handler.fetch(new Request(input, init));
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Extra request headers on every request (an API key, a bearer token). */
  headers?: Record<string, string>;
  /** The client's name in `clientInfo`. */
  name?: string;
}

/**
 * Connects an SDK v2 client (protocol era negotiated) to an MCP endpoint.
 * @param target - a handler (`{ fetch(request) }`) or a fetch function into a Worker
 * @param url - a full URL or a path on `http://localhost` (`/mcp`, `/mcp/code`)
 * @param options - extra headers and the client's name
 */
export async function connect(
  target: FetchTarget | FetchLike,
  url = "/mcp",
  options: ConnectOptions = {},
): Promise<Client> {
  // A stateless handler is callable as (request, env, ctx) too: its `fetch` method wins.
  const fetch = "fetch" in target ? direct(target) : target;
  const client = new Client(
    { name: options.name ?? "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url, "http://localhost"), {
      fetch,
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    }),
  );
  return client;
}

/** How {@link approver} answers every question. */
export type ApproverAnswer = "accept" | "decline" | "cancel";

/**
 * Connects a client that declares form elicitation and answers every question it is asked with
 * `answer` (an accept carries `{ approve }`); `asked` collects the questions' messages.
 * @param target - a handler or a fetch function into a Worker
 * @param answer - accept, decline or cancel
 * @param options - the endpoint (default `/mcp`) and the accepted form's `approve`
 */
export async function approver(
  target: FetchTarget | FetchLike,
  answer: ApproverAnswer,
  { url = "/mcp", approve = true }: { url?: string; approve?: boolean } = {},
): Promise<{ client: Client; asked: string[] }> {
  const fetch = "fetch" in target ? direct(target) : target;
  const client = new Client(
    { name: "approver", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(String(request.params.message));
    return answer === "accept" ? { action: "accept", content: { approve } } : { action: answer };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url, "http://localhost"), { fetch }),
  );
  return { client, asked };
}

/**
 * Wraps a fetch so a GET without `Last-Event-ID` (the client's optional standalone stream)
 * answers `405`: no request stays open after a test (and a Durable Object can be evicted);
 * resumption GETs still pass.
 */
export function withoutStandaloneStream(inner: FetchLike): FetchLike {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    if ((init?.method ?? "GET") === "GET" && !headers.has("last-event-id")) {
      return Promise.resolve(new Response(null, { status: 405 }));
    }
    return inner(url, init);
  };
}
