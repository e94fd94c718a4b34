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
	// test/ may read bench/ (test/repo/benchReadme.test.ts checks the figures it writes).
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

/**
 * Inside nodes/ (the map in CONTRIBUTING.md): the action node reads from the top down, node file, then
 * the router and methods/, a resource's index.ts, its operation files, that resource's helpers, the
 * helpers of actions/ every resource shares, and nodes/shared/ at the bottom. A file imports from its
 * own layer or a lower one, never up; no operation file imports another operation file; nodes/shared/
 * imports nothing of either node, and neither node of the other; and no import goes round a circle.
 */
const NODE_FILES = sourceFiles(path.join(ROOT, 'nodes')).map((file) => path.relative(ROOT, file).split(path.sep).join('/'));

function nodeImports(): Array<[string, string]> {
	return NODE_FILES.flatMap((from) =>
		relativeImports(path.join(ROOT, from), readFileSync(path.join(ROOT, from), 'utf8')).map((to): [string, string] => {
			const file = NODE_FILES.find((candidate) => candidate === `${to}.ts` || candidate === `${to}/index.ts`);
			if (!file) throw new Error(`${from} imports ${to}, which is no source file of nodes/`);
			return [from, file];
		}),
	);
}

/** The action node's layers, top (0) down. */
function layer(file: string): number {
	const inside = file.replace(/^nodes\/Clearinghouse\//, '');
	if (inside === file) return file.startsWith('nodes/shared/') ? 7 : -1;
	if (!inside.includes('/')) return 0;
	if (inside === 'actions/router.ts' || inside.startsWith('methods/')) return 1;
	if (/^actions\/[^/]+\/index\.ts$/.test(inside)) return 2;
	if (/^actions\/.+\.operation\.ts$/.test(inside)) return 3;
	if (/^actions\/[^/]+\/.+\.ts$/.test(inside)) return 4;
	return 5;
}

test('inside nodes/: imports run down, never from operation to operation; shared/ and the two nodes stay apart', () => {
	const wrong: string[] = [];
	for (const [from, to] of nodeImports()) {
		const pair = `${from} -> ${to}`;
		const [a, b] = [layer(from), layer(to)];
		if (from.startsWith('nodes/shared/') && !to.startsWith('nodes/shared/')) wrong.push(`${pair} (nodes/shared/ imports nothing of a node)`);
		else if (from.split('/')[1] !== to.split('/')[1] && !to.startsWith('nodes/shared/')) wrong.push(`${pair} (one node imports the other)`);
		else if (a >= 0 && b >= 0 && b < a) wrong.push(`${pair} (up: layer ${a} imports layer ${b})`);
		else if (a === 3 && b === 3) wrong.push(`${pair} (an operation file imports another)`);
	}
	expect(wrong).toEqual([]);
});

test('no import circle in nodes/', () => {
	const next = new Map<string, string[]>();
	for (const [from, to] of nodeImports()) next.set(from, [...(next.get(from) ?? []), to]);
	const circles: string[] = [];
	const state = new Map<string, 'open' | 'done'>();
	const visit = (file: string, trail: string[]) => {
		if (state.get(file) === 'done') return;
		if (state.get(file) === 'open') return void circles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
		state.set(file, 'open');
		for (const to of next.get(file) ?? []) visit(to, [...trail, file]);
		state.set(file, 'done');
	};
	for (const file of NODE_FILES) visit(file, []);
	expect(circles).toEqual([]);
});
