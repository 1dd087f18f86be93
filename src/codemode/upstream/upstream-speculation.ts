/**
 * A remote upstream's first tool listing, sent alongside its first handshake instead of after
 * it. A cold isolate must learn the upstream's era (`server/discover`) and its tools
 * (`tools/list`); in 2026-07-28 the listing needs nothing from the discover answer but the
 * protocol version, so it is sent at once under that era's version, concurrently with the
 * probe, and kept only if the probe confirms that version. A cold run then pays one round trip
 * before its calls, not two. Against a 2025-era upstream the guess is refused (no session) and
 * costs one request sent in parallel, not a round trip; the listing then follows the handshake.
 */
import type { Client, DiscoverResult, Tool } from "@modelcontextprotocol/client";
import { captureRawToolList, withRawProtoKeys } from "./raw-tool-list";
import { openUpstream, type CodeUpstream, type Negotiated } from "./upstream-connection";

/** The tool list a guess produced, and the version it was listed under. */
export interface GuessedList {
  version: string;
  tools: Tool[];
}

/**
 * What the guess assumes: the first version of the per-request era (which the SDK client speaks
 * but does not export) and a `tools` capability (without it the client lists nothing). Both are
 * checked against the real probe's answer before the list is used.
 */
const ASSUMED: DiscoverResult = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } };

/**
 * Lists the upstream's tools assuming it speaks the latest protocol version. Never throws:
 * any failure (a 2025-era upstream, an error) gives `undefined`, and the caller lists normally.
 * @param upstream - a remote upstream (`{ url, … }`)
 * @param headers - the caller's resolved headers
 */
export async function guessToolList(
  upstream: CodeUpstream,
  headers: Record<string, string> | undefined,
): Promise<GuessedList | undefined> {
  const assumed: Negotiated = { kind: "modern", discover: ASSUMED };
  try {
    const session = await openUpstream(upstream, () => {}, {
      reuse: assumed,
      ...(headers ? { headers } : {}),
    });
    try {
      const tools = await listEveryTool(session.client);
      return { version: session.client.getNegotiatedProtocolVersion() ?? "", tools };
    } finally {
      await session.close().catch(() => {});
    }
  } catch {
    return undefined;
  }
}

/**
 * Whether a guessed list stands: the real handshake chose the 2026-07-28 era, supports the
 * version the guess was listed under, and offers tools.
 * @param guess - what {@link guessToolList} returned
 * @param negotiated - what the real handshake negotiated
 */
export function guessHolds(
  guess: GuessedList | undefined,
  negotiated: Negotiated | undefined,
): guess is GuessedList {
  return (
    guess !== undefined &&
    negotiated?.kind === "modern" &&
    negotiated.discover.supportedVersions.includes(guess.version) &&
    negotiated.discover.capabilities.tools !== undefined
  );
}

/**
 * Every tool the connected upstream lists, following `nextCursor` through all pages, with the
 * schema properties named `__proto__` that the client's parse drops put back (raw-tool-list.ts).
 * @param client - a connected client
 */
export async function listEveryTool(client: Client): Promise<Tool[]> {
  const raw = captureRawToolList(client);
  try {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools.map((tool) => withRawProtoKeys(tool, raw.get(tool.name)));
  } finally {
    raw.stop();
  }
}
