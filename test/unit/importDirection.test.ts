/**
 * Dependencies run one way: nodes/ and credentials/ (what ships) and sandbox/ (the fake service) are
 * independent of each other; harness/ may use them; test/, bench/ and scripts/ sit on top, and
 * neither bench/ nor scripts/ imports test/ or the other (what they share lives in harness/). Every
 * relative import, export-from, require() and import() of a source file is checked against that.
 * A unit test rather than an eslint rule: nodes/ and credentials/ are linted only by n8n's unchanged
 * template config (scripts/lint.sh), and a test also sees require()/import(); lint.sh runs this file.
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const FOLDERS = ['nodes', 'credentials', 'sandbox', 'harness', 'test', 'bench', 'scripts'] as const;
type Folder = (typeof FOLDERS)[number];

/** What each folder may not import from. */
const FORBIDDEN: Record<Folder, Folder[]> = {
	nodes: ['sandbox', 'harness', 'test', 'bench', 'scripts'],
	credentials: ['sandbox', 'harness', 'test', 'bench', 'scripts'],
	sandbox: ['nodes', 'credentials', 'harness', 'test', 'bench', 'scripts'],
	harness: ['test', 'bench', 'scripts'],
	// test/ may read bench/ (test/unit/benchReadme.test.ts checks the figures it writes).
	test: [],
	bench: ['test', 'scripts'],
	scripts: ['test', 'bench'],
};

const SPECIFIER = /(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
		return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
	});
}

/** `from -> to` for every relative import of a file, both relative to the repository root (no extension). */
function relativeImports(file: string, text: string): string[] {
	return [...text.matchAll(SPECIFIER)].map((m) =>
		path
			.relative(ROOT, path.resolve(path.dirname(file), m[1]))
			.split(path.sep)
			.join('/'),
	);
}

function topFolder(relative: string): string {
	return relative.split('/')[0];
}

test('the import scanner sees import, export-from, require() and import()', () => {
	const file = path.join(ROOT, 'bench/x.ts');
	const text = [
		"import { a } from '../test/a';",
		"import type { B } from '../harness/b';",
		"export { c } from '../sandbox/c';",
		"import '../scripts/d';",
		"const e = require('../nodes/e');",
		"const f = await import('../credentials/f');",
		"import { g } from 'n8n-workflow';",
	].join('\n');
	expect(relativeImports(file, text)).toEqual(['test/a', 'harness/b', 'sandbox/c', 'scripts/d', 'nodes/e', 'credentials/f']);
});

test('dependencies run one way: nodes, credentials, sandbox <- harness <- test, bench, scripts', () => {
	const wrong: string[] = [];
	for (const folder of FOLDERS) {
		for (const file of sourceFiles(path.join(ROOT, folder))) {
			const from = path.relative(ROOT, file).split(path.sep).join('/');
			for (const to of relativeImports(file, readFileSync(file, 'utf8'))) {
				const pair = `${from} -> ${to}`;
				if (FORBIDDEN[folder].includes(topFolder(to) as Folder)) {
					wrong.push(`${pair} (${folder}/ may not import from ${topFolder(to)}/)`);
				}
			}
		}
	}
	expect(wrong).toEqual([]);
});
