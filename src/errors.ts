/**
 * The one local error type of the library. Wire errors use the MCP SDK's `ProtocolError`;
 * sandbox outcomes are returned as data, never thrown.
 */
export class CodeModeError extends Error {
  /** A stable, machine-readable code such as `"invalid_limits"` or `"spec_invalid"`. */
  readonly code: string;

  /**
   * @param code - stable machine-readable code
   * @param message - what went wrong and what to do about it
   * @param options - standard error options (`cause`)
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CodeModeError";
    this.code = code;
  }
}
