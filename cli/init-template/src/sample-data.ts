// The sample's data: a small task list, shared by the sample API (src/api.ts) and the sample MCP
// server (src/code.ts) so both tools answer about the same tasks. Replace it with your own.

/** One task of the sample. */
export interface Task {
  id: number;
  title: string;
  status: "open" | "blocked" | "done";
  owner: string;
}

/** The sample's tasks (read-only: every request starts from the same list). */
export const TASKS: readonly Task[] = [
  { id: 1, title: "Write the launch post", status: "open", owner: "ana" },
  { id: 2, title: "Fix the login redirect", status: "blocked", owner: "bo" },
  { id: 3, title: "Renew the certificate", status: "done", owner: "ana" },
  { id: 4, title: "Review the pricing page", status: "blocked", owner: "cy" },
];
