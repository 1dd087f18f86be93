// Seed example: "Search and execute", the `search` program.
// Source: https://developers.cloudflare.com/agents/model-context-protocol/codemode/#search-and-execute
// The program is verbatim; it is sandbox code, so it is kept as the text a client sends.

/** The seed's `search` program: every ruleset path and its methods. */
export const program = `async () => {
	const spec = await codemode.spec();
	return Object.entries(spec.paths)
		.filter(([path]) => path.includes("/rulesets"))
		.map(([path, operations]) => ({
			path,
			methods: Object.keys(operations),
		}));
};`;
