// The build's asset step: tsc compiles the TypeScript, this copies what tsc does not (icons, the
// codex .node.json files and the output schemas in __schema__) next to the compiled nodes and
// credential in dist/.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png,node.json}', 'nodes/**/__schema__/**/*.json', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
exports.default = copyAssets;
