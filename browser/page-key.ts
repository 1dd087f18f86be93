/**
 * The status page's one key box (`#page-key`, status-page.ts), present when the API routes need a
 * bearer token: the search form and the run console send what is typed there. Kept in the page
 * only, never stored.
 */

/** The key box, or null when the page has none (the routes need no token). */
export function keyBox(): HTMLInputElement | null {
  const node = document.getElementById("page-key");
  return node instanceof HTMLInputElement ? node : null;
}

/** The `authorization` header carrying the typed key, or no header. */
export function keyHeaders(): Record<string, string> {
  const key = keyBox();
  return key && key.value ? { authorization: "Bearer " + key.value } : {};
}
