// Seed example: "Search and execute", the `execute` program.
// Source: https://developers.cloudflare.com/agents/model-context-protocol/codemode/#search-and-execute
// The program is verbatim; it is sandbox code, so it is kept as the text a client sends. It
// names `zoneId`, a value the model fills in: the test binds it in a scope around the program
// (see codemode-execute.test.ts), the program text itself is unchanged.

/** The seed's `execute` program: a zone's rulesets, trimmed to id, name and phase. */
export const program = `async () => {
	const response = await codemode.request({
		method: "GET",
		path: \`/zones/\${zoneId}/rulesets\`,
	});

	return response.result.map(({ id, name, phase }) => ({ id, name, phase }));
};`;
