/**
 * How large a body the demo API takes. Apart from the API (demo-api.ts) so that the Worker's
 * router, which checks it before handing a body over, imports no more of the demo than this.
 */

/**
 * The most bytes a demo API body may hold: its largest real body (a task, a comment of 4,000
 * characters) is a few KiB, escapes included. Checked where the body is read: by the Worker
 * (before it holds a client's body) and by the API itself (which parses it).
 */
export const DEMO_MAX_BODY_BYTES = 65_536;

/** What to do about a body past {@link DEMO_MAX_BODY_BYTES}. */
export const DEMO_FIX =
  "Send one project, task or comment per request, within the field limits of specs/demo-api.yaml.";
