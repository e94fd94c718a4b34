/**
 * The maintainer's map (CONTRIBUTING.md) stays true where a test can hold it: every path it names
 * exists, and every operation file opens with the request it sends and whether repeating it is safe.
 * The map's import rules are checked in importDirection.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

test('every path CONTRIBUTING.md names exists', () => {
	const named = [...contributing.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\/?)`/g)].map((m) => m[1]);
	expect(named.length).toBeGreaterThan(30);
	expect(named.filter((path) => !existsSync(join(root, path)))).toEqual([]);
});

test('CONTRIBUTING.md stays under 20 KB', () => {
	expect(Buffer.byteLength(contributing)).toBeLessThan(20_000);
});

const actions = join(root, 'nodes', 'Clearinghouse', 'actions');
const operationFiles = readdirSync(actions, { recursive: true, encoding: 'utf8' })
	.filter((file) => file.endsWith('.operation.ts'))
	.map((file) => file.split('\\').join('/'));

test.each(operationFiles)('actions/%s opens with the request it sends and whether repeating it is safe', (file) => {
	const opening = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(join(actions, file), 'utf8'))?.[1] ?? '';
	expect(opening).toMatch(/\b(GET|POST|PUT|PATCH|DELETE) \//);
	expect(opening).toMatch(/repeat/i);
});

test("helpers take the n8n context first: `this` only at n8n's entry points (the node files' methods, methods/)", () => {
	const nodes = join(root, 'nodes');
	const helpers = readdirSync(nodes, { recursive: true, encoding: 'utf8' }).filter(
		(file) => file.endsWith('.ts') && !file.endsWith('.node.ts') && !file.includes('methods/'),
	);
	expect(helpers.filter((file) => /\bfunction\*?\s+\w+\s*(<[^>(]*>)?\(\s*this:/.test(readFileSync(join(nodes, file), 'utf8')))).toEqual([]);
});
