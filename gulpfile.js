// The build's asset step: tsc compiles the TypeScript, this copies what tsc does not (icons and
// the codex .node.json files) next to the compiled nodes and credential in dist/.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png,node.json}', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
exports.default = copyAssets;
