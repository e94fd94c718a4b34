/**
 * The committed package-lock.json says what package.json says: `npm install` rewrites the lock's root
 * entry from package.json, so a lock that drifted makes the README's first command modify a fresh clone
 * (and `npm run release` then refuses a dirty tree).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/** The fields npm copies from package.json into the lock's root entry (packages[""]). */
const COPIED = ['name', 'version', 'license', 'engines', 'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'bin'];

test('the lock names the package and version of package.json', () => {
	expect([lock.name, lock.version]).toEqual([pkg.name, pkg.version]);
});

test.each(COPIED)("the lock's root entry has package.json's %s", (field) => {
	expect(lock.packages[''][field]).toEqual(pkg[field]);
});

test('every devDependency is pinned to one version and locked at it', () => {
	const loose = Object.entries(pkg.devDependencies as Record<string, string>).filter(([, v]) => !/^\d+\.\d+\.\d+$/.test(v));
	expect(loose).toEqual([]);
	const drift = Object.entries(pkg.devDependencies as Record<string, string>).filter(([name, v]) => lock.packages[`node_modules/${name}`]?.version !== v);
	expect(drift).toEqual([]);
});
