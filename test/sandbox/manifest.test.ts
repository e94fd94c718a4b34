/**
 * The sandbox package's manifest (sandbox/package.json) against the tree, in the fast loop: its runtime
 * dependencies are exactly what sandbox/*.ts imports, pinned to the versions of the development install
 * every sandbox test runs against (root package.json). test/sandbox/package.test.ts checks the built,
 * packed and installed package (slow).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandboxImports } from './support';

const read = (file: string) => JSON.parse(fs.readFileSync(path.resolve(__dirname, '../..', file), 'utf8'));
const manifest = read('sandbox/package.json');
const root = read('package.json');

test('the sandbox package depends on exactly the modules sandbox/*.ts imports', () => {
	expect(Object.keys(manifest.dependencies).sort()).toEqual(sandboxImports());
	expect(manifest.devDependencies).toBeUndefined();
});

test('each of its dependencies is pinned to the version the root package installs for the sandbox tests', () => {
	for (const [dep, version] of Object.entries(manifest.dependencies)) {
		expect(version).toMatch(/^\d+\.\d+\.\d+$/);
		expect([dep, version]).toEqual([dep, root.devDependencies[dep]]);
	}
});

test('the installed copy of each dependency is the pinned one (package-lock.json)', () => {
	const lock = read('package-lock.json');
	for (const [dep, version] of Object.entries(manifest.dependencies)) expect([dep, lock.packages[`node_modules/${dep}`]?.version]).toEqual([dep, version]);
});
