/**
 * The oldest supported n8n is stated once, in package.json (`engines.n8n`), and everywhere a user or
 * the compatibility suite reads it says the same: the README, docs/compatibility.md, and the versions
 * `npm run test:compat` runs by default. CI runs the suite on those and on npm's `latest` n8n.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const engines = (JSON.parse(read('package.json')) as { engines: Record<string, string> }).engines;

test('engines.n8n is ">=" an exact n8n version', () => {
	expect(engines.n8n).toMatch(/^>=\d+\.\d+\.\d+$/);
});

const minimum = engines.n8n.replace(/^>=/, '');

test.each(['README.md', 'docs/compatibility.md'])('%s states that minimum and lists it as tested', (file) => {
	const text = read(file);
	expect(text).toContain(`n8n ${minimum} or newer`);
	expect(text).toMatch(new RegExp(`^\\| ${minimum.replace(/\./g, '\\.')} \\(the oldest supported\\) \\|`, 'm'));
});

test('`npm run test:compat` runs the minimum by default, read from package.json', () => {
	const script = read('scripts/test-compat.sh');
	expect(script).toContain('require("./package.json").engines.n8n');
	expect(script).toMatch(/versions="\$\{CLEARINGHOUSE_COMPAT_N8N:-\$minimum /);
});

test("CI runs the compatibility suite on the default versions and on npm's latest n8n", () => {
	const job = (parse(read('.github/workflows/ci.yml')) as { jobs: Record<string, any> }).jobs.compat;
	expect(job.strategy.matrix.n8n).toEqual(['tested', 'latest']);
	const run = job.steps.find((step: { run?: string }) => step.run === 'npm run test:compat');
	expect(run.env.CLEARINGHOUSE_COMPAT_N8N).toContain("matrix.n8n == 'latest'");
	const resolve = job.steps.find((step: { id?: string }) => step.id === 'n8n');
	expect(resolve.run).toContain('npm view n8n@latest version');
});
