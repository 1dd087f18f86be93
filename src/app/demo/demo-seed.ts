/**
 * The demo data a fresh store starts with: enough to make filters, pagination and the
 * contract's "blocked tasks of active projects" example return something interesting.
 */

/** A seed task (the project id is filled in when seeding). */
export interface SeedTask {
  title: string;
  status: string;
  priority: string;
  assignee: string | null;
  dueDate?: string;
  comments?: string[];
}

/** Seed projects with their tasks. */
export const SEED_PROJECTS: {
  name: string;
  description: string;
  status: string;
  tasks: SeedTask[];
}[] = [
  {
    name: "Website relaunch",
    description: "New marketing site on Workers",
    status: "active",
    tasks: [
      {
        title: "Pick a typeface",
        status: "done",
        priority: "low",
        assignee: "ana",
        comments: ["Inter it is."],
      },
      {
        title: "Migrate blog posts",
        status: "in_progress",
        priority: "medium",
        assignee: "ben",
        dueDate: "2026-12-20",
      },
      {
        title: "Legal review of the privacy page",
        status: "blocked",
        priority: "high",
        assignee: "chen",
        comments: ["Waiting for the legal team.", "Pinged again on Monday."],
      },
      { title: "Set up redirects", status: "todo", priority: "medium", assignee: null },
    ],
  },
  {
    name: "Mobile app",
    description: "iOS and Android clients",
    status: "active",
    tasks: [
      {
        title: "Push notification certificates",
        status: "blocked",
        priority: "high",
        assignee: "ana",
        comments: ["Apple account access pending."],
      },
      { title: "Offline mode", status: "todo", priority: "medium", assignee: "ben" },
      { title: "Crash reporting", status: "done", priority: "high", assignee: "chen" },
    ],
  },
  {
    name: "Data warehouse",
    description: "Nightly exports to the warehouse",
    status: "paused",
    tasks: [
      { title: "Schema for events", status: "blocked", priority: "medium", assignee: "dev" },
      { title: "Backfill 2025", status: "todo", priority: "low", assignee: null },
    ],
  },
  {
    name: "Old intranet",
    description: "Retired in 2025",
    status: "archived",
    tasks: [{ title: "Export wiki pages", status: "done", priority: "low", assignee: "ana" }],
  },
];
