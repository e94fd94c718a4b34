/**
 * Every documentation link the package ships (credential `documentationUrl`, codex files, links in
 * node descriptions and notices) that points into this repository's README must name a heading
 * that exists there, with GitHub's anchor rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const REPO_URL = 'https://github.com/clearinghouse-nodes/n8n-nodes-clearinghouse';

/** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), spaces → hyphens. */
function githubAnchor(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[`*]/g, '')
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

function readmeAnchors(): Set<string> {
	const anchors = new Set<string>(['readme']);
	const seen = new Map<string, number>();
	let fenced = false;
	for (const line of readFileSync(join(root, 'README.md'), 'utf8').split('\n')) {
		if (line.startsWith('```')) fenced = !fenced;
		const match = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
		if (!match) continue;
		const base = githubAnchor(match[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n === 0 ? base : `${base}-${n}`);
	}
	return anchors;
}

function shippedSources(dir: string): string[] {
	return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && /\.(ts|json)$/.test(entry.name))
		.map((entry) => join(entry.parentPath, entry.name));
}

const links = [...shippedSources('nodes'), ...shippedSources('credentials'), join(root, 'package.json')].flatMap((file) =>
	[...readFileSync(file, 'utf8').matchAll(/https:\/\/github\.com\/clearinghouse-nodes\/n8n-nodes-clearinghouse[^\s'"`)<>]*/g)].map((m) => ({
		file: file.slice(root.length + 1),
		url: m[0],
	})),
);

test('the anchor rule matches GitHub for the headings we use', () => {
	expect(githubAnchor('Installing in n8n and the credential')).toBe('installing-in-n8n-and-the-credential');
	expect(githubAnchor('The sandbox: try everything without moving money')).toBe('the-sandbox-try-everything-without-moving-money');
	expect(githubAnchor('Payment Order → Create')).toBe('payment-order--create');
});

test('the package ships documentation links: credential and both codex files', () => {
	const files = new Set(links.map((l) => l.file));
	for (const file of ['credentials/ClearinghouseApi.credentials.ts', 'nodes/Clearinghouse/Clearinghouse.node.json', 'nodes/ClearinghouseTrigger/ClearinghouseTrigger.node.json']) {
		expect([...files]).toContain(file);
	}
});

test('every shipped link into the README names a heading that exists', () => {
	const anchors = readmeAnchors();
	const broken = links.filter(({ url }) => {
		const rest = url.slice(REPO_URL.length);
		// The repository itself and its issue tracker (package.json `bugs`) are not README links.
		if (rest === '' || rest === '.git' || rest === '/issues') return false;
		const hash = /^#(.+)$/.exec(rest);
		return !hash || !anchors.has(hash[1]);
	});
	expect(broken).toEqual([]);
});
