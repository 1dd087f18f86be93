/**
 * The optional callbacks and fields of an `McpAgent` subclass.
 */

/**
 * Optional members a subclass may define. They are not declared on `McpAgent` itself, so
 * subclasses written as in the published examples compile under `noImplicitOverride`.
 */
export interface McpAgentHooks<State> {
  /** State at the first start of an instance, before any `setState`. */
  initialState?: State;
  /** Called after each `setState`. */
  onStateChanged?(state: State, source: "server"): void;
  /** The older name of `onStateChanged`; both are called. */
  onStateUpdate?(state: State, source: "server"): void;
}
