// Preloaded (`node --import`) into each runtime's wrangler processes by the `npm start`
// supervisor. Each runtime runs in its own process group (wrangler, its Node child and the workerd
// processes). If the supervisor dies without stopping it (SIGKILL, a crash), this notices within
// half a second that the parent is gone (the process was re-parented) and SIGKILLs the whole group,
// so no runtime is left holding its port or writing the shared local data.
//
// The group id is the first guarded process (the group leader started by the supervisor); it is
// handed to wrangler's own Node child through the environment, where this runs again.
const GROUP = "CODEMODE_RUNTIME_GROUP";
process.env[GROUP] ??= String(process.pid);
const group = Number(process.env[GROUP]);
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent) return;
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    process.exit(1);
  }
}, 500).unref();
