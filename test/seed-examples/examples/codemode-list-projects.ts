// Seed example: "Single code tool", the program a model writes against the `codemode` namespace.
// Source: https://developers.cloudflare.com/agents/model-context-protocol/codemode/#single-code-tool
// The program is verbatim; it is sandbox code, so it is kept as the text a client sends.

/** The seed's `code` program: blocked tasks of the active projects. */
export const program = `async () => {
	const projects = await codemode.list_projects({ status: "active" });
	const tasks = [];

	for (const project of projects) {
		tasks.push(...(await codemode.list_tasks({ projectId: project.id })));
	}

	return tasks.filter((task) => task.status === "blocked");
};`;
