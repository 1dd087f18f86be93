/**
 * The parts of a request's URL that routing reads, parsed once per URL instead of once per
 * reader. A request on the host passed through four readers that each ran `new URL(request.url)`
 * (the Worker's probe check, the app's router, the MCP handler's route match, the Host guard):
 * ~4 % of a `ping`'s host CPU samples (issue #43), for the same string every time.
 */

/** What {@link urlParts} reads from a URL (as `URL` gives them). Frozen: one copy is shared. */
export interface UrlParts {
  /** The path, percent-encoded as the URL parser leaves it (`URL.pathname`). */
  readonly pathname: string;
  /** The query with its `?`, or "" (`URL.search`). */
  readonly search: string;
  /** The host name without the port (`URL.hostname`). */
  readonly hostname: string;
  /** The host name with the port when one is given (`URL.host`). */
  readonly host: string;
}

// The last URL parsed and its parts. One entry is enough: every reader of one request asks for
// the same URL, one after another, with no other request's work in between (they are
// synchronous). Only strings are kept, and the parts are a pure function of the text: a request
// whose URL is the same text gets the same parts it would have parsed.
let lastUrl: string | undefined;
let lastParts: UrlParts | undefined;

/**
 * The parts of `url`, as `new URL(url)` gives them; parsed only when it differs from the last
 * URL asked for. Throws as `new URL` does on a URL it cannot parse (a request's URL always parses).
 * @param url - an absolute URL, such as a `Request`'s `url`
 */
export function urlParts(url: string): UrlParts {
  if (url === lastUrl && lastParts !== undefined) return lastParts;
  const parsed = new URL(url);
  const parts: UrlParts = Object.freeze({
    pathname: parsed.pathname,
    search: parsed.search,
    hostname: parsed.hostname,
    host: parsed.host,
  });
  lastUrl = url;
  lastParts = parts;
  return parts;
}
