/**
 * The release, rehearsed as CONTRIBUTING.md ("Releasing") tells a maintainer to make it: a repository
 * holding this package's package.json, package-lock.json, CHANGELOG.md, .npmrc and release scripts, its
 * main pushed to a local bare remote, then `bash scripts/release.sh` for the first version (the one
 * package.json already has) and for a later one. RELEASE_CHECKS stands in for lint, build and the unit
 * layer, which `npm test` runs anyway: here it only records that the checks ran.
 * @slow: about 20 s of git, bash and npm processes on 2 busy cores; test:fast leaves it out (scripts/test-fast.sh).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const FIRST = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
const LATER = FIRST.replace(/^(\d+)\.(\d+)\..*$/, (_, major, minor) => `${major}.${Number(minor) + 1}.0`);

let dir: string;
let work: string;
let remote: string;
let checksRan: string;

/** The environment of a maintainer's shell: no CI, no npm script around it, a git identity. */
function env(): NodeJS.ProcessEnv {
	const e: NodeJS.ProcessEnv = { ...process.env };
	for (const name of Object.keys(e)) if (/^(GITHUB_|GIT_|CI$|npm_)/.test(name)) delete e[name];
	return {
		...e,
		GIT_AUTHOR_NAME: 'Maintainer',
		GIT_AUTHOR_EMAIL: 'maintainer@example.com',
		GIT_COMMITTER_NAME: 'Maintainer',
		GIT_COMMITTER_EMAIL: 'maintainer@example.com',
		GIT_CONFIG_NOSYSTEM: '1',
		HOME: dir,
		RELEASE_CHECKS: `touch ${JSON.stringify(checksRan)}`,
	};
}

function git(...args: string[]): string {
	const r = spawnSync('git', args, { cwd: work, env: env(), encoding: 'utf8' });
	if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
	return r.stdout.trim();
}

/** `npm run release -- <args>` as the maintainer runs it (the script itself, without npm around it). */
function release(...args: string[]): { status: number | null; stderr: string; checksRan: boolean } {
	rmSync(checksRan, { force: true });
	const r = spawnSync('bash', ['scripts/release.sh', ...args], { cwd: work, env: env(), encoding: 'utf8', timeout: 60_000 });
	return { status: r.status, stderr: r.stderr, checksRan: existsSync(checksRan) };
}

const file = (path: string) => readFileSync(join(work, path), 'utf8');
const remoteRefs = () => spawnSync('git', ['ls-remote', remote], { encoding: 'utf8' }).stdout;
const atRemote = (ref: string, path: string) => spawnSync('git', ['--git-dir', remote, 'show', `${ref}:${path}`], { encoding: 'utf8' }).stdout;

/** The maintainer's step 1: the Unreleased lines under a dated heading for `version`, committed. */
function writeSection(heading: RegExp | null, version: string): string {
	const before = file('CHANGELOG.md');
	const dated = `## [${version}] - 2026-12-01`;
	const after = heading ? before.replace(heading, dated) : before.replace('## [Unreleased]\n', `## [Unreleased]\n\n${dated}\n`);
	expect(after).not.toBe(before);
	writeFileSync(join(work, 'CHANGELOG.md'), after);
	git('commit', '-qam', `CHANGELOG: ${version}`);
	return after;
}

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'release-rehearsal-'));
	work = join(dir, 'work');
	remote = join(dir, 'remote.git');
	checksRan = join(dir, 'checks-ran');
	mkdirSync(join(work, 'scripts'), { recursive: true });
	for (const path of ['package.json', 'package-lock.json', 'CHANGELOG.md', '.npmrc', 'scripts/release.sh', 'scripts/release-changelog.sh', 'scripts/deps.sh'])
		cpSync(join(root, path), join(work, path));
	// The CHANGELOG as it stands before the first release: the first version's section not dated yet.
	const first = new RegExp(`^## \\[${FIRST.replace(/\./g, '\\.')}\\] - .*$`, 'm');
	writeFileSync(join(work, 'CHANGELOG.md'), file('CHANGELOG.md').replace(first, `## [${FIRST}] - not yet published`));
	spawnSync('git', ['init', '-q', '--bare', remote]);
	git('init', '-q', '-b', 'main');
	git('add', '.');
	git('commit', '-qm', 'The package');
	git('remote', 'add', 'origin', remote);
	git('push', '-q', '-u', 'origin', 'main');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test(`the first release (${FIRST}, as package.json says) fails in seconds without its dated section, before the checks`, () => {
	expect(file('CHANGELOG.md')).not.toMatch(new RegExp(`^## \\[${FIRST.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
	const started = Date.now();
	const r = release(FIRST);
	expect([r.status, r.checksRan]).toEqual([1, false]);
	expect(r.stderr).toContain(`no section '## [${FIRST}] - YYYY-MM-DD'`);
	expect(Date.now() - started).toBeLessThan(15_000); // no lint, build or tests ran: git and bash only
	expect(git('tag')).toBe('');
});

test('it refuses a tree with uncommitted edits and leaves them as they were', () => {
	writeSection(new RegExp(`^## \\[${FIRST.replace(/\./g, '\\.')}\\] - not yet published$`, 'm'), FIRST);
	const edited = file('package.json').replace('"description"', '"description" ');
	writeFileSync(join(work, 'package.json'), edited);
	const r = release(FIRST);
	expect([r.status, r.checksRan]).toEqual([1, false]);
	expect(r.stderr).toContain('uncommitted changes');
	expect(r.stderr).toContain('package.json');
	expect(file('package.json')).toBe(edited);
	git('checkout', '--', 'package.json'); // the maintainer's own undo
});

test('the dry run runs the checks, says what it skips, and writes, tags and pushes nothing', () => {
	const refs = remoteRefs();
	const head = git('rev-parse', 'HEAD');
	const r = release(FIRST, '--dry-run');
	expect([r.status, r.checksRan]).toEqual([0, true]);
	expect(r.stderr).toMatch(/dry run: .*Skipped/);
	expect(r.stderr).toContain(`tag ${FIRST}`);
	expect(r.stderr).toContain('nothing was written, tagged or pushed');
	expect([git('rev-parse', 'HEAD'), git('status', '--porcelain'), git('tag'), remoteRefs()]).toEqual([head, '', '', refs]);
});

test(`the first release tags the commit as it is and pushes main and the tag; CHANGELOG.md as the maintainer wrote it`, () => {
	const changelog = file('CHANGELOG.md');
	const head = git('rev-parse', 'HEAD');
	const r = release(FIRST);
	expect([r.status, r.checksRan, r.stderr]).toEqual([0, true, expect.stringContaining(`released ${FIRST}`)]);
	expect(git('rev-parse', 'HEAD')).toBe(head); // no bump commit: package.json already says FIRST
	expect(git('rev-parse', `${FIRST}^{commit}`)).toBe(head);
	expect(git('cat-file', '-t', FIRST)).toBe('tag'); // annotated
	expect(remoteRefs()).toContain(`${head}\trefs/heads/main`);
	expect(remoteRefs()).toContain(`refs/tags/${FIRST}`);
	expect(atRemote(FIRST, 'CHANGELOG.md')).toBe(changelog);
	expect(JSON.parse(atRemote(FIRST, 'package.json')).version).toBe(FIRST);
	expect(git('status', '--porcelain')).toBe('');
});

test(`a later release (${LATER}): fails fast without its section, then bumps, commits, tags and pushes, CHANGELOG.md untouched`, () => {
	const missing = release(LATER);
	expect([missing.status, missing.checksRan]).toEqual([1, false]);
	const changelog = writeSection(null, LATER);
	const before = git('rev-parse', 'HEAD');
	const r = release(LATER);
	expect([r.status, r.checksRan]).toEqual([0, true]);
	expect(git('log', '-1', '--format=%s')).toBe(`Release ${LATER}`);
	expect(git('rev-parse', 'HEAD~1')).toBe(before);
	// The release commit changes the version in package.json and package-lock.json, nothing else.
	expect(git('diff', '--name-only', 'HEAD~1', 'HEAD').split('\n')).toEqual(['package-lock.json', 'package.json']);
	const changed = git('diff', '-U0', 'HEAD~1', 'HEAD')
		.split('\n')
		.filter((line) => /^[-+] /.test(line));
	expect(changed.every((line) => /"version": "/.test(line))).toBe(true);
	expect(changed).toHaveLength(6); // package.json, the lock's top level and its root entry: old and new
	expect(JSON.parse(file('package.json')).version).toBe(LATER);
	expect(git('rev-parse', `${LATER}^{commit}`)).toBe(git('rev-parse', 'HEAD'));
	expect(remoteRefs()).toContain(`${git('rev-parse', 'HEAD')}\trefs/heads/main`);
	expect(atRemote(LATER, 'CHANGELOG.md')).toBe(changelog);
	expect(file('CHANGELOG.md')).toBe(changelog);
});

test('a version released already, or below package.json, is refused before the checks', () => {
	for (const [version, says] of [
		[LATER, `the tag ${LATER} exists already`],
		[FIRST, `the tag ${FIRST} exists already`],
	]) {
		const r = release(version);
		expect([version, r.status, r.checksRan]).toEqual([version, 1, false]);
		expect(r.stderr).toContain(says);
	}
	writeSection(null, '0.0.9');
	const below = release('0.0.9');
	expect([below.status, below.checksRan]).toEqual([1, false]);
	expect(below.stderr).toContain(`0.0.9 is below package.json's ${LATER}`);
});
