/** GitHub's REST API spec (api.github.com, OpenAPI 3.0.3, 1,223 operations) as JSON text. */
declare const text: string;
export default text;
