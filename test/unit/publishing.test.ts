/**
 * The GitHub Actions workflows and the release scripts. They cannot run here, so this checks what
 * they would do: both files parse as YAML; publish.yml runs only on a version tag, holds the OIDC
 * permission npm provenance needs, and publishes only through `npm run release` (n8n-node release,
 * which adds provenance in CI); ci.yml runs the README's test command; every `npm run` they call
 * exists; a plain `npm publish` outside the release is refused.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parseDocument } from 'yaml';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	version: string;
	scripts: Record<string, string>;
	devDependencies: Record<string, string>;
};

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Job {
	permissions?: Record<string, string>;
	steps: Step[];
}
interface Workflow {
	on: Record<string, any>;
	permissions?: Record<string, string>;
	jobs: Record<string, Job>;
}

function workflow(path: string): Workflow {
	const doc = parseDocument(read(path), { uniqueKeys: true, prettyErrors: true });
	expect(doc.errors.map(String)).toEqual([]);
	expect(doc.warnings.map(String)).toEqual([]);
	return doc.toJS() as Workflow;
}

/** GitHub's filter glob: `*` is any run of characters except `/`, `**` any run at all. */
function globMatches(pattern: string, ref: string): boolean {
	const source = pattern
		.split(/(\*\*|\*)/)
		.map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
		.join('');
	return new RegExp(`^${source}$`).test(ref);
}

const commands = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
const allCommands = (wf: Workflow) => Object.values(wf.jobs).flatMap(commands);

describe('publish.yml', () => {
	const wf = workflow('.github/workflows/publish.yml');
	const [jobName, ...otherJobs] = Object.keys(wf.jobs);
	const job = wf.jobs[jobName];

	test('runs on a version tag push only', () => {
		expect(Object.keys(wf.on)).toEqual(['push']);
		expect(Object.keys(wf.on.push)).toEqual(['tags']);
		const tags: string[] = wf.on.push.tags;
		const matches = (ref: string) => tags.some((pattern) => globMatches(pattern, ref));
		for (const tag of [pkg.version, '0.2.0', '1.2.3', '2.0.0-rc.1']) expect(matches(tag)).toBe(true);
		for (const tag of ['main', 'latest', 'v1', 'release-1']) expect(matches(tag)).toBe(false);
	});

	test('one job, with the OIDC token npm provenance needs and read-only contents', () => {
		expect(otherJobs).toEqual([]);
		expect(wf.permissions).toBeUndefined();
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	test('installs, checks the tag is the package version, tests, then publishes only through npm run release', () => {
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		expect(setupNode?.with).toMatchObject({ 'registry-url': 'https://registry.npmjs.org/' });
		const runs = commands(job);
		const at = (pattern: RegExp) => runs.findIndex((command) => pattern.test(command));
		expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
		expect(at(/^npm ci\b/)).toBeGreaterThanOrEqual(0);
		expect(at(/GITHUB_REF_NAME.*require\('\.\/package\.json'\)\.version/)).toBeGreaterThan(at(/^npm ci\b/));
		expect(at(/^npm run test:unit$/)).toBeGreaterThan(at(/GITHUB_REF_NAME/));
		expect(at(/(^|\n)npm run release$/)).toBe(runs.length - 1);
		expect(runs.join('\n')).not.toMatch(/npm publish/);
	});

	test('the npm token comes only from the repository secret, never from the file', () => {
		const release = job.steps[job.steps.length - 1];
		expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(read('.github/workflows/publish.yml')).not.toMatch(/npm_[A-Za-z0-9]{20,}/);
	});
});

describe('ci.yml', () => {
	const wf = workflow('.github/workflows/ci.yml');
	const runs = allCommands(wf);

	test('runs on pull requests and on pushes to main, with read-only permissions', () => {
		expect(wf.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
		expect(wf.permissions).toEqual({ contents: 'read' });
		for (const job of Object.values(wf.jobs)) expect(job.permissions).toBeUndefined();
	});

	test("runs the README's test command, the unit layer on Node 20 and 24, and the compatibility suite", () => {
		// The whole-pipeline command as the README shows it (or CONTRIBUTING.md, once development moves there).
		expect(['README.md', 'CONTRIBUTING.md'].some((file) => /^npm test\b/m.test(read(file)))).toBe(true);
		expect(runs).toContain('npm test');
		expect(runs).toContain('npm run test:unit');
		expect(runs).toContain('npm run test:compat');
		expect((wf.jobs.unit as any).strategy.matrix.node).toEqual(['20', '24']);
	});
});

describe('npm scripts the workflows rely on', () => {
	test('every `npm run <script>` of both workflows exists', () => {
		const runs = [...allCommands(workflow('.github/workflows/ci.yml')), ...allCommands(workflow('.github/workflows/publish.yml'))];
		const scripts = runs.flatMap((command) => [...command.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]));
		expect(scripts.length).toBeGreaterThan(0);
		for (const script of scripts) expect(Object.keys(pkg.scripts)).toContain(script);
	});

	test('release is n8n-node release, from a node-cli that publishes with provenance in CI', () => {
		expect(pkg.scripts.release).toBe('n8n-node release');
		const [major, minor] = pkg.devDependencies['@n8n/node-cli'].split('.').map(Number);
		expect(major > 0 || minor >= 23).toBe(true); // provenance in CI since 0.23.0
		// What `n8n-node release` does when GITHUB_ACTIONS is set: lint, build, npm publish with provenance.
		const release = read('node_modules/@n8n/node-cli/dist/commands/release.js');
		expect(release).toMatch(/isCI = Boolean\(process\.env\.GITHUB_ACTIONS\)/);
		expect(release).toMatch(/runCommand\)\('npm', \['publish'\][\s\S]{0,200}NPM_CONFIG_PROVENANCE: 'true'/);
	});

	test('a plain npm publish is refused: prepublishOnly lets only the release publish', () => {
		expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
		const cli = join(root, 'node_modules', '@n8n', 'node-cli', 'bin', 'n8n-node.mjs');
		const env = { ...process.env };
		delete env.RELEASE_MODE;
		const plain = spawnSync(process.execPath, [cli, 'prerelease'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
		expect(plain.status).toBe(1);
		expect(plain.stdout).toMatch(/npm run release/);
		const release = spawnSync(process.execPath, [cli, 'prerelease'], { cwd: root, env: { ...env, RELEASE_MODE: 'true' }, encoding: 'utf8', timeout: 60_000 });
		expect(release.status).toBe(0);
	}, 120_000);

	test('CHANGELOG.md has an entry for the package version', () => {
		expect(read('CHANGELOG.md')).toMatch(new RegExp(`^## \\[?${pkg.version.replace(/\./g, '\\.')}\\]?`, 'm'));
	});
});
