/**
 * The GitHub Actions workflows and the release scripts. They cannot run here, so this checks what
 * they would do: both files parse as YAML; publish.yml runs only on a version tag, holds the OIDC
 * permission npm provenance needs, and publishes only through `npm run release` (n8n-node release,
 * which adds provenance in CI) and `npm run publish:sandbox`; ci.yml runs the README's test command;
 * every `npm run` they call exists; `repository.url` is the public GitHub repository provenance
 * names; a plain `npm publish` from a machine is refused; the local release never writes CHANGELOG.md.
 * @slow: runs npm and n8n-node's release CLI; test:fast leaves it out (scripts/test-fast.sh).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parseDocument } from 'yaml';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	version: string;
	scripts: Record<string, string>;
	devDependencies: Record<string, string>;
	repository: { type: string; url: string };
	homepage: string;
	bugs: { url: string };
	publishConfig?: Record<string, unknown>;
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

	test('installs, checks the tag is the package version, tests, then publishes only through npm run release and npm run publish:sandbox', () => {
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		expect(setupNode?.with).toMatchObject({ 'registry-url': 'https://registry.npmjs.org/' });
		const runs = commands(job);
		const at = (pattern: RegExp) => runs.findIndex((command) => pattern.test(command));
		expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
		expect(at(/^npm ci\b/)).toBeGreaterThanOrEqual(0);
		expect(at(/GITHUB_REF_NAME.*require\('\.\/package\.json'\)\.version/)).toBeGreaterThan(at(/^npm ci\b/));
		expect(at(/^npm run test:unit$/)).toBeGreaterThan(at(/GITHUB_REF_NAME/));
		// The nodes package first; the sandbox package (same version) only once that succeeded.
		expect(at(/(^|\n)npm run release$/)).toBe(runs.length - 2);
		expect(at(/(^|\n)npm run publish:sandbox$/)).toBe(runs.length - 1);
		expect(runs.join('\n')).not.toMatch(/npm publish/);
	});

	test('the npm token comes only from the repository secret, never from the file', () => {
		for (const step of job.steps.slice(-2)) expect(step.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
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

	test('a quick gate runs first on every pull request: install, lint, build and verify, the fast tests', () => {
		const quick = commands(wf.jobs.quick);
		expect(Object.keys(wf.jobs)[0]).toBe('quick');
		expect(quick).toEqual(['npm ci --ignore-scripts', 'npm run lint', 'npm run verify', 'npm run test:fast']);
		expect(pkg.scripts.verify).toMatch(/^npm run build && /);
		expect((wf.jobs.quick as any)['timeout-minutes']).toBeLessThanOrEqual(20);
	});

	test('runs the sandbox package test on Linux, macOS and Windows with Node 20', () => {
		const job = wf.jobs['sandbox-package'] as any;
		expect(job.strategy.matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
		expect(job.steps.find((step: Step) => step.uses?.startsWith('actions/setup-node@')).with['node-version']).toBe('20');
		expect(commands(job)).toContain('npx jest test/sandbox/package.test.ts --selectProjects sandbox --ci');
	});
});

describe('dependabot.yml', () => {
	const doc = parseDocument(read('.github/dependabot.yml'), { uniqueKeys: true, prettyErrors: true });
	const config = doc.toJS() as {
		version: number;
		updates: { 'package-ecosystem': string; directory: string; groups?: Record<string, { patterns: string[] }> }[];
	};
	const npm = config.updates.find((u) => u['package-ecosystem'] === 'npm')!;
	/** The group a package name falls in (Dependabot's patterns: `*` is any run of characters). */
	const groupOf = (name: string) =>
		Object.entries(npm.groups ?? {}).filter(([, g]) =>
			g.patterns.some((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '.*')}$`).test(name)),
		);

	test('updates the npm pins at the root and the GitHub Actions', () => {
		expect(doc.errors.map(String)).toEqual([]);
		expect(config.version).toBe(2);
		expect(config.updates.map((u) => [u['package-ecosystem'], u.directory])).toEqual([
			['npm', '/'],
			['github-actions', '/'],
		]);
	});

	test('moves the n8n packages together, and every devDependency falls in at most one group', () => {
		const n8n = Object.keys(pkg.devDependencies).filter((name) => /^(n8n-|@n8n\/)/.test(name));
		expect(n8n.length).toBeGreaterThanOrEqual(4);
		for (const name of n8n) expect([name, groupOf(name).map(([g]) => g)]).toEqual([name, ['n8n']]);
		for (const name of Object.keys(pkg.devDependencies)) expect([name, groupOf(name).length <= 1]).toEqual([name, true]);
	});
});

describe('npm scripts the workflows rely on', () => {
	test('every `npm run <script>` of both workflows exists', () => {
		const runs = [...allCommands(workflow('.github/workflows/ci.yml')), ...allCommands(workflow('.github/workflows/publish.yml'))];
		const scripts = runs.flatMap((command) => [...command.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]));
		expect(scripts.length).toBeGreaterThan(0);
		for (const script of scripts) expect(Object.keys(pkg.scripts)).toContain(script);
	});

	test('in GitHub Actions the release is n8n-node release, from a node-cli that publishes with provenance', () => {
		expect(pkg.scripts.release).toBe('bash scripts/release.sh');
		expect(read('scripts/release.sh')).toMatch(/if \[ -n "\$\{GITHUB_ACTIONS:-\}" \]; then\n\s+source scripts\/deps\.sh\n\s+exec n8n-node release\n\s*fi\n/);
		const [major, minor] = pkg.devDependencies['@n8n/node-cli'].split('.').map(Number);
		expect(major > 0 || minor >= 23).toBe(true); // provenance in CI since 0.23.0
		// What `n8n-node release` does when GITHUB_ACTIONS is set: lint, build, npm publish with provenance.
		const release = read('node_modules/@n8n/node-cli/dist/commands/release.js');
		expect(release).toMatch(/isCI = Boolean\(process\.env\.GITHUB_ACTIONS\)/);
		expect(release).toMatch(/runCommand\)\('npm', \['publish'\][\s\S]{0,200}NPM_CONFIG_PROVENANCE: 'true'/);
		// Outside CI it would run `auto-changelog -p`, which replaces the hand-written CHANGELOG: never called there.
		expect(release).toMatch(/auto-changelog -p/);
	});

	test('the local release checks the CHANGELOG first and never writes it, publishes or discards edits', () => {
		// Its commands, without the comments: the rehearsal (releaseRehearsal.test.ts) runs them.
		const script = read('scripts/release.sh')
			.split('\n')
			.filter((line) => !/^\s*#/.test(line))
			.join('\n');
		expect(script.indexOf('bash scripts/release-changelog.sh "$version"')).toBeGreaterThan(0);
		expect(script.indexOf('bash scripts/release-changelog.sh')).toBeLessThan(script.indexOf('bash -c "$checks"'));
		expect(script).not.toMatch(/npm publish|auto-changelog|>\s*CHANGELOG|git (checkout|reset --hard|stash|clean)/);
		// The check: a dated section for the version lets the release go on; none stops it.
		const dir = mkdtempSync(join(tmpdir(), 'release-changelog-'));
		try {
			const hook = (changelog: string) => {
				writeFileSync(join(dir, 'CHANGELOG.md'), changelog);
				return spawnSync('bash', [join(root, 'scripts', 'release-changelog.sh'), '0.2.0'], { cwd: dir, encoding: 'utf8' });
			};
			expect(hook('# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n\n- a change\n').status).toBe(0);
			const refused = hook('# Changelog\n\n## [Unreleased]\n\n- a change\n\n## [0.1.0] - 2026-11-01\n');
			expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining("no section '## [0.2.0] - YYYY-MM-DD'")]);
			expect(hook('## [0.2.0] - not yet published\n').status).toBe(1);
			expect(hook('## [0.2.01] - 2026-12-01\n').status).toBe(1);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('prettier and @eslint/js, which the scripts and configs use, are pinned devDependencies', () => {
		for (const name of ['prettier', '@eslint/js']) expect([name, pkg.devDependencies[name]]).toEqual([name, expect.stringMatching(/^\d+\.\d+\.\d+$/)]);
		expect(read('eslint.dev.config.mjs')).toMatch(/from '@eslint\/js'/);
	});

	test('repository.url is the public GitHub repository that publish.yml runs in (npm refuses provenance otherwise)', () => {
		// The one value to set before the first publish (CONTRIBUTING.md "Releasing"): npm checks that the
		// provenance's repository is package.json's repository.url and refuses the publish (E422) when not.
		const match = /^git\+https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)\.git$/.exec(pkg.repository.url);
		expect(match).not.toBeNull();
		const [, owner, repo] = match!;
		expect(pkg.repository.type).toBe('git');
		expect(pkg.homepage).toBe(`https://github.com/${owner}/${repo}#readme`);
		expect(pkg.bugs.url).toBe(`https://github.com/${owner}/${repo}/issues`);
		const sandbox = JSON.parse(read('sandbox/package.json'));
		expect(sandbox.repository).toEqual({ ...pkg.repository, directory: 'sandbox' });
		// Every link the package and the docs make into the repository uses the same owner and name.
		expect(read('test/repo/docLinks.test.ts')).toContain(`const REPO_URL = 'https://github.com/${owner}/${repo}';`);
		expect(read('CONTRIBUTING.md')).toContain(pkg.repository.url.replace(/^git\+/, ''));
	});

	test('a plain npm publish from a machine is refused before anything is uploaded (publishConfig.provenance)', () => {
		// .npmrc's ignore-scripts=true also skips prepublishOnly, so the guard is npm's own: a provenance
		// publish outside a CI that can sign it stops with EUSAGE. Unreachable registry, fake token: nothing can leave.
		expect(pkg.publishConfig).toEqual({ provenance: true });
		expect(JSON.parse(read('sandbox/package.json')).publishConfig).toMatchObject({ provenance: true });
		const dir = mkdtempSync(join(tmpdir(), 'plain-publish-'));
		try {
			cpSync(join(root, 'package.json'), join(dir, 'package.json'));
			cpSync(join(root, '.npmrc'), join(dir, '.npmrc'));
			const env = { ...process.env };
			for (const name of Object.keys(env)) if (/^(GITHUB_|GITLAB|CI$|npm_)/.test(name)) delete env[name];
			const plain = spawnSync('npm', ['publish', '--registry', 'http://127.0.0.1:9/', '--//127.0.0.1:9/:_authToken=not-a-token', '--fetch-retries=0'], {
				cwd: dir,
				env,
				encoding: 'utf8',
				timeout: 60_000,
			});
			expect(plain.status).not.toBe(0);
			expect(plain.stderr).toMatch(/EUSAGE[\s\S]*Automatic provenance generation not supported/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);

	test('npm install in a fresh clone runs no install scripts (.npmrc), as scripts/deps.sh installs', () => {
		expect(read('.npmrc')).toMatch(/^ignore-scripts=true$/m);
		expect(read('scripts/deps.sh')).toMatch(/npm ci --ignore-scripts/);
	});

	test('every npm script that needs the devDependencies installs them first', () => {
		const viaDeps = (script: string) => /^bash scripts\/with-deps\.sh /.test(script) || /^npm run build\b/.test(script);
		for (const name of ['build', 'sandbox', 'format', 'format:check', 'verify']) expect([name, viaDeps(pkg.scripts[name])]).toEqual([name, true]);
		for (const name of ['lint', 'test', 'test:unit', 'test:e2e', 'test:queue', 'test:compat', 'start', 'build:sandbox', 'release']) {
			const file = /^bash ((?:scripts|bench|sandbox)\/[\w.-]+\.sh)$/.exec(pkg.scripts[name])?.[1];
			expect([name, file && /^\s*source scripts\/deps\.sh$/m.test(read(file))]).toEqual([name, true]);
		}
		expect(read('bench/run.sh')).toMatch(/^source scripts\/deps\.sh$/m);
	});

	test('a plain npm publish with install scripts on is refused too: prepublishOnly lets only the release publish', () => {
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
