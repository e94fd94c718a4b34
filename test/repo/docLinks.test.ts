/**
 * Every documentation link resolves: the links the package ships (credential `documentationUrl`, codex
 * files, links in node descriptions and notices) into this repository, and every link in the README,
 * docs/, CONTRIBUTING.md, CHANGELOG.md and bench/README.md. A link names a file that exists and, when it
 * has a `#fragment` into a Markdown file, a heading of that file, with GitHub's anchor rules.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(__dirname, '..', '..');
const REPO_URL = 'https://github.com/clearinghouse-nodes/n8n-nodes-clearinghouse';

/** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), spaces → hyphens. */
function githubAnchor(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/[`*]/g, '')
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** Markdown lines outside fenced code blocks. */
function proseLines(text: string): string[] {
	let fenced = false;
	return text.split('\n').filter((line) => {
		if (line.trimStart().startsWith('```')) {
			fenced = !fenced;
			return false;
		}
		return !fenced;
	});
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
	let anchors = anchorCache.get(file);
	if (anchors) return anchors;
	anchors = new Set<string>(file === join(root, 'README.md') ? ['readme'] : []);
	const seen = new Map<string, number>();
	for (const line of proseLines(readFileSync(file, 'utf8'))) {
		const match = /^#{1,6}\s+(.*)$/.exec(line);
		if (!match) continue;
		const base = githubAnchor(match[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n === 0 ? base : `${base}-${n}`);
	}
	anchorCache.set(file, anchors);
	return anchors;
}

/** Why a link to `target` (a path from the repository root, maybe with `#fragment`) does not resolve, or null. */
function brokenReason(target: string): string | null {
	const [path, fragment] = target.split('#', 2) as [string, string | undefined];
	const file = join(root, decodeURIComponent(path));
	if (!file.startsWith(root)) return 'points outside the repository';
	if (!existsSync(file)) return 'no such file';
	if (fragment === undefined) return null;
	if (statSync(file).isDirectory() || !file.endsWith('.md')) return 'a fragment into a file that is not Markdown';
	return anchorsOf(file).has(fragment) ? null : `no heading #${fragment} in ${path}`;
}

/** A link into the repository on GitHub, as a path from the root (README for the bare URL), or null when it is not a file link. */
function repoPath(url: string): string | null {
	const rest = url.slice(REPO_URL.length);
	// The repository itself and its issue tracker (package.json `repository`, `bugs`) are not file links.
	if (rest === '' || rest === '.git' || rest === '/issues') return null;
	if (rest.startsWith('#')) return `README.md${rest}`;
	const blob = /^\/(?:blob|tree)\/main\/(.+)$/.exec(rest);
	return blob ? blob[1] : `(not a file link: ${rest})`;
}

function files(dir: string, pattern: RegExp): string[] {
	return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && pattern.test(entry.name))
		.map((entry) => join(entry.parentPath, entry.name));
}

const shipped = [...files('nodes', /\.(ts|json)$/), ...files('credentials', /\.(ts|json)$/), join(root, 'package.json')].flatMap((file) =>
	[...readFileSync(file, 'utf8').matchAll(/https:\/\/github\.com\/clearinghouse-nodes\/n8n-nodes-clearinghouse[^\s'"`)<>]*/g)].map((m) => ({
		file: relative(root, file),
		url: m[0],
	})),
);

/** Generated and installed folders: at the top of the repository, and node_modules anywhere. */
const GENERATED = new Set(['.e2e', '.lint-stage', '.sandbox-package', 'dist', 'coverage', '.git']);

/** The Markdown files below `dir` (a path from the root), never descending into generated or installed folders. */
function markdownFiles(dir: string): string[] {
	return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
		const path = dir ? `${dir}/${entry.name}` : entry.name;
		if (entry.isDirectory()) return entry.name === 'node_modules' || (dir === '' && GENERATED.has(entry.name)) ? [] : markdownFiles(path);
		return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
	});
}

/** Every Markdown file of the repository (generated and installed folders aside). */
const documents = markdownFiles('').sort();

/** Every inline Markdown link of a document (inline code removed first), with its target as written. */
function linksOf(document: string): string[] {
	const text = proseLines(readFileSync(join(root, document), 'utf8'))
		.join('\n')
		.replace(/`[^`\n]*`/g, '');
	return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

test('the anchor rule matches GitHub for the headings we use', () => {
	expect(githubAnchor('Installation')).toBe('installation');
	expect(githubAnchor('The sandbox: try everything without moving money')).toBe('the-sandbox-try-everything-without-moving-money');
	expect(githubAnchor('Payment Order → Create')).toBe('payment-order--create');
	expect(githubAnchor("What the trigger's state depends on")).toBe('what-the-triggers-state-depends-on');
	expect(githubAnchor('Operator API (`{mainUrl}/sandbox`, loopback only, no key)')).toBe('operator-api-mainurlsandbox-loopback-only-no-key');
});

test('the package ships documentation links: credential and both codex files', () => {
	const withLinks = new Set(shipped.map((l) => l.file));
	for (const file of [
		'credentials/ClearinghouseApi.credentials.ts',
		'nodes/Clearinghouse/Clearinghouse.node.json',
		'nodes/ClearinghouseTrigger/ClearinghouseTrigger.node.json',
	]) {
		expect([...withLinks]).toContain(file);
	}
});

test('every shipped link into the repository names a file and heading that exist', () => {
	const broken = shipped.flatMap(({ file, url }) => {
		const path = repoPath(url);
		const reason = path === null ? null : path.startsWith('(') ? path : brokenReason(path);
		return reason ? [`${file}: ${url}: ${reason}`] : [];
	});
	expect(broken).toEqual([]);
});

test('the documents are every Markdown file of the repository, the sandbox package README included', () => {
	expect(documents).toEqual(
		expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md', 'sandbox/README.md', 'harness/README.md', 'docs/sandbox.md']),
	);
});

test('no link or path in a document leaves the repository', () => {
	const leaving = documents.flatMap((document) => {
		const prose = proseLines(readFileSync(join(root, document), 'utf8')).join('\n');
		// Relative link targets, and relative paths written in inline code (`../x/y.md`).
		const targets = [...linksOf(document), ...[...prose.matchAll(/`(\.{1,2}\/[^`\s]*)`/g)].map((m) => m[1])].filter(
			(target) => !/^(mailto:|https?:\/\/|#)/.test(target),
		);
		const outside = targets.filter((target) => !resolve(root, dirname(document), target.split('#')[0]).startsWith(root + '/'));
		// Absolute paths of one machine (a home, a work folder) have no place in shipped documents either
		// (n8n's Docker image's home, /home/node, is every user's path, not one machine's).
		const machine = [...prose.matchAll(/(?<![\w.~])\/(?:work|root|home(?!\/node\/)|Users|tmp)\/[\w.-]+/g)].map((m) => m[0]);
		return [...outside, ...machine].map((target) => `${document}: ${target}`);
	});
	expect(leaving).toEqual([]);
});

test('every link in every Markdown file of the repository resolves', () => {
	let checked = 0;
	const broken = documents.flatMap((document) =>
		linksOf(document).flatMap((target) => {
			if (/^(mailto:|https?:\/\/)/.test(target) && !target.startsWith(REPO_URL)) return []; // outside the repository
			checked++;
			let reason: string | null;
			if (target.startsWith(REPO_URL)) {
				const path = repoPath(target);
				reason = path === null ? null : path.startsWith('(') ? path : brokenReason(path);
			} else {
				const [path, fragment] = target.split('#', 2);
				const fromRoot = path === '' ? document : relative(root, resolve(root, dirname(document), path));
				reason = brokenReason(fragment === undefined ? fromRoot : `${fromRoot}#${fragment}`);
			}
			return reason ? [`${document}: ${target}: ${reason}`] : [];
		}),
	);
	expect(broken).toEqual([]);
	expect(checked).toBeGreaterThan(40);
});

test("the README follows n8n's community-node README template and stays short", () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const sections = proseLines(readme)
		.filter((line) => line.startsWith('## '))
		.map((line) => line.slice(3));
	expect(sections).toEqual(['Installation', 'Operations', 'Credentials', 'Compatibility', 'Usage', 'Resources', 'Version history', 'License']);
	expect(Buffer.byteLength(readme)).toBeLessThan(16 * 1024);
	// The production warning appears once (besides the heading of the sandbox section and links to it).
	const prose = proseLines(readme)
		.filter((line) => !line.startsWith('#'))
		.join('\n')
		.replace(/\[[^\]]*\]\(#try-it-without-real-money\)/g, '');
	expect(prose.match(/real money/gi)?.length).toBe(1);
});
