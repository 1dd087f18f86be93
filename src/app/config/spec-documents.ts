/**
 * Compiled specs parsed once per isolate. The host's first request used to parse the same
 * multi-megabyte spec text three times: the launch var's check (launch-specs.ts), the
 * configuration check's `servers` and authentication read (app.ts) and the endpoints' spec
 * (endpoints.ts); with Cloudflare's spec ~0.3 s of a desktop launch's first `/health` at load 10
 * (issue #43). They now share one parse, by the text: the launch var's parse gives its spec's
 * object, and the other two read it here.
 */

/** Parsed texts kept: the configured spec, and one more while a configuration changes. */
const KEEP = 2;

const kept: { text: string; doc: unknown }[] = [];

/**
 * Keeps `doc` as the parse of `text` (the newest first; the oldest past {@link KEEP} dropped).
 * The object is shared by every reader: nothing may change it (the compact spec is read-only
 * everywhere, openapi-spec.ts).
 * @param text - a spec's JSON text
 * @param doc - `JSON.parse(text)`, or an equal object
 */
export function keepSpecDocument(text: string, doc: unknown): void {
  const at = kept.findIndex((entry) => entry.text === text);
  if (at !== -1) kept.splice(at, 1);
  kept.unshift({ text, doc });
  kept.length = Math.min(kept.length, KEEP);
}

/**
 * The parse of a spec's JSON text, parsed at most once while kept. Throws as `JSON.parse` does.
 * @param text - a spec's JSON text (compact or raw)
 */
export function specDocument(text: string): unknown {
  // The same string instance in practice (specsWithLaunch's memo): `===` is then a pointer
  // comparison, never a walk over megabytes.
  const found = kept.find((entry) => entry.text === text);
  if (found) return found.doc;
  const doc: unknown = JSON.parse(text);
  keepSpecDocument(text, doc);
  return doc;
}
