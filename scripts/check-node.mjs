// Fails fast when npm scripts run under the system Node instead of the npm-supplied Node 22.
// wrangler and miniflare need Node >= 22; the `node` devDependency puts one in node_modules/.bin.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(
    [
      `This project needs Node >= 22 but npm scripts are running under Node ${process.versions.node}.`,
      "The `node` devDependency installs Node 22 into node_modules/.bin during `npm ci`.",
      "Fix: run `npm ci` (without --ignore-scripts), or `npm rebuild node` if install scripts were skipped,",
      "then use `npm test` / `npm start` (not ./node_modules/.bin/wrangler from a plain shell).",
    ].join("\n"),
  );
  process.exit(1);
}
