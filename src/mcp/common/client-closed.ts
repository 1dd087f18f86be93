/**
 * The status of a request whose client went away before it was served (nginx's convention,
 * which agents and the MCP SDK's handler answer too). Nobody reads it; it keeps logs honest.
 */
export const CLIENT_CLOSED_REQUEST = 499;
