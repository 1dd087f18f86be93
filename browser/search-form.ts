/**
 * The status page's `search` form, in the browser: runs the typed program through
 * `POST /api/search` and shows the result (pretty-printed when it is JSON). The HTML it works on
 * is status-page.ts; `npm run build:sandbox` bundles this module into the text the page inlines
 * (src/app/generated/browser-scripts.ts).
 *
 * Security defaults: the result goes in with `textContent`, never as HTML; the key typed into the
 * page's key box is sent with the request only.
 */
import { errorText, type ErrorBody } from "./error-text";
import { keyHeaders } from "./page-key";

/** What `/api/search` answers: the tool result's text, or an error body. */
type SearchAnswer = { text?: string; isError?: boolean } & ErrorBody;

/** The page element `id`, which must be a `type` (the form's HTML is status-page.ts's). */
function $<T extends Element>(id: string, type: abstract new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type))
    throw new Error(`search form: #${id} is missing or not a ${type.name}`);
  return node;
}

$("search-form", HTMLFormElement).addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = $("search-result", HTMLElement);
  const status = $("search-status", HTMLElement);
  status.textContent = "running…";
  out.dataset.state = "running";
  try {
    const response = await fetch("/api/search", {
      method: "POST",
      headers: { "content-type": "application/json", ...keyHeaders() },
      body: JSON.stringify({ code: $("search-code", HTMLTextAreaElement).value }),
    });
    const data = (await response.json()) as SearchAnswer;
    // The tool result's text; an API error's message and fix; anything else as JSON.
    const shown =
      data.text ??
      (data.error?.message || data.message
        ? errorText(data, response.status)
        : JSON.stringify(data));
    try {
      out.textContent = JSON.stringify(JSON.parse(shown), null, 2);
    } catch {
      out.textContent = shown;
    }
    out.dataset.state = response.ok && !data.isError ? "ok" : "error";
    status.textContent = response.ok
      ? data.isError
        ? "error"
        : "done"
      : "HTTP " + response.status;
  } catch (error) {
    out.textContent = String(error);
    out.dataset.state = "error";
    status.textContent = "failed";
  }
});
