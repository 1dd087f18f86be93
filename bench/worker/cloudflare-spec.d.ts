/** The Cloudflare API spec (OpenAPI 3.0.3, 1,533 operations) as JSON text. */
declare const text: string;
export default text;
