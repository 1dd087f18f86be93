/**
 * How the page's scripts show a refused API request: the product's one HTTP error
 * (`{ error: { code, message, fix } }`) as its message and fix, else the older `{ message }`,
 * else the HTTP status.
 */

/** An error body of the product's API routes. */
export type ErrorBody = {
  error?: { code?: string; message?: string; fix?: string };
  message?: string;
};

/**
 * The text to show for a refused request.
 * @param body - the response's JSON
 * @param status - its HTTP status
 */
export function errorText(body: ErrorBody, status: number): string {
  if (body.error?.message)
    return body.error.message + (body.error.fix ? " Fix: " + body.error.fix : "");
  return body.message || "HTTP " + status;
}
