/**
 * Where n8n's CPU goes in the batch section: reads the .cpuprofile files a profiled bench run wrote
 * (BENCH_CPU_PROFILE=<dir>, bench/main.ts) and attributes every sample to one part, per order.
 *
 *   node -r ts-node/register/transpile-only bench/profile.ts <dir> [<dir2>]
 *
 * A sample belongs to the part of the innermost frame of its stack that names one (walking from
 * the sampled function towards the root): a credential read inside our transport counts as the
 * credential read, n8n's request helper called by our transport as the request helper, and only
 * what runs in our own files as ours. Samples with no such frame fall to V8's own entries (garbage
 * collection, idle = waiting on the network or the sandbox) or "n8n, other". With a second
 * directory, the parts of both are printed side by side (before/after a change).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CpuProfile, CpuProfileNode } from './lib/cpuProfile';

/** Parts in the order they are printed; the first matching rule of a frame decides its part. */
const PARTS: Array<{ part: string; match: (fn: string, url: string) => boolean }> = [
	{
		part: 'credential read + decryption',
		match: (fn, url) =>
			/credentials-helper|credentials-overwrites|\/credentials\.js|credentials\.service|credentials\.repository|shared-credentials/.test(url) ||
			/^(getCredentials|getDecrypted|decrypt|getCredentialsProperties|applyDefaultsAndOverwrites|authenticate|getParentTypes)$/.test(fn) ||
			(/cipher/i.test(url) && !/tls/.test(url)) ||
			// n8n decrypts credentials with a key it derives (HKDF) for each read; nothing else in
			// these runs uses node:crypto (keys come from the items, no TLS to the sandbox).
			/^node:internal\/crypto/.test(url) ||
			/^(HKDFJob|CipherJob|getKeyObjectSlots)$/.test(fn),
	},
	{ part: 'ours (n8n-nodes-clearinghouse)', match: (_fn, url) => /n8n-nodes-clearinghouse/.test(url) },
	{
		part: 'request helper (n8n + axios + node http)',
		match: (_fn, url) =>
			/request-helper-functions|node_modules\/axios|follow-redirects|form-data|proxy-from-env|https?-proxy-agent|agent-base/.test(url) ||
			/^node:(_http|http|https|net|_stream|stream|internal\/(http|streams|net|stream_base|url|dns))/.test(url),
	},
	{ part: 'expression engine', match: (_fn, url) => /expression|tournament|isolated-vm|expression-sandboxing|@n8n\/expression/.test(url) },
	{ part: 'database (typeorm, sqlite)', match: (_fn, url) => /typeorm|sqlite|better-sqlite|\/db\/|@n8n\/db/.test(url) },
	{ part: 'PostgreSQL driver (pg)', match: (_fn, url) => /node_modules\/(pg|pg-protocol|pg-pool|pg-promise)\//.test(url) },
	{ part: 'queue (bull, ioredis)', match: (_fn, url) => /node_modules\/(bull|ioredis|@ioredis|redis-parser)\/|\/scaling\//.test(url) },
	{ part: 'webhook + HTTP server (express)', match: (_fn, url) => /express|body-parser|webhook|raw-body|on-finished|router/.test(url) },
	{
		part: 'item handling (n8n execution engine)',
		match: (_fn, url) => /n8n-workflow|n8n-core|workflow-execute|execution-engine|node-execution-context|active-executions|execution-lifecycle/.test(url),
	},
];

const V8_ENTRIES: Record<string, string> = {
	'(idle)': 'idle (waiting: sandbox, network, other processes)',
	'(garbage collector)': 'garbage collection',
	'(program)': 'V8 / native (program)',
	'(root)': 'V8 / native (program)',
};

interface Summary {
	file: string;
	contender: string;
	orders: number;
	totalMs: number;
	partsMs: Map<string, number>;
	topOurs: Map<string, number>;
	topOther: Map<string, number>;
}

function summarise(file: string): Summary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const [contender, orders] = file.split('/').at(-1)!.split('.');
	return { file, contender, orders: Number(orders), ...summariseProfile(profile) };
}

/** Every sample of a profile attributed to one part (PARTS, V8's entries), with the top self times. */
export function summariseProfile(profile: CpuProfile): Pick<Summary, 'totalMs' | 'partsMs' | 'topOurs' | 'topOther'> {
	const byId = new Map<number, CpuProfileNode>(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const partOf = new Map<number, string>();
	const classify = (id: number): string => {
		const known = partOf.get(id);
		if (known) return known;
		const node = byId.get(id)!;
		const { functionName, url } = node.callFrame;
		let part = Object.hasOwn(V8_ENTRIES, functionName) ? V8_ENTRIES[functionName] : undefined;
		if (!part) part = PARTS.find((p) => p.match(functionName, url))?.part ?? '';
		if (!part) {
			const up = parent.get(id);
			part = up === undefined ? 'n8n, other' : classify(up);
			if (part === V8_ENTRIES['(root)']) part = 'n8n, other';
		}
		partOf.set(id, part);
		return part;
	};
	// A credential read counts whole, its database query and decryption included (frames below it
	// would otherwise go to the database or n8n); continuations after an await lose that stack, so
	// the database rows of the table still hold part of the reads (compare with the n8n-only run).
	const CREDENTIAL = PARTS[0];
	const underCredential = new Map<number, boolean>();
	const inCredential = (id: number): boolean => {
		const known = underCredential.get(id);
		if (known !== undefined) return known;
		const { functionName, url } = byId.get(id)!.callFrame;
		const up = parent.get(id);
		const result = CREDENTIAL.match(functionName, url) || (up !== undefined && inCredential(up));
		underCredential.set(id, result);
		return result;
	};
	const partsMs = new Map<string, number>();
	const topOurs = new Map<string, number>();
	const topOther = new Map<string, number>();
	let totalMs = 0;
	profile.samples.forEach((id, i) => {
		const ms = (profile.timeDeltas[i] ?? 0) / 1000;
		totalMs += ms;
		const part = inCredential(id) ? CREDENTIAL.part : classify(id);
		partsMs.set(part, (partsMs.get(part) ?? 0) + ms);
		const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
		const where = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '')}:${lineNumber + 1}`;
		const top = part.startsWith('ours') ? topOurs : part === 'n8n, other' || part.startsWith('item') ? topOther : undefined;
		top?.set(where, (top.get(where) ?? 0) + ms);
	});
	return { totalMs, partsMs, topOurs, topOther };
}

function load(dir: string): Map<string, Summary[]> {
	const byContender = new Map<string, Summary[]>();
	for (const name of readdirSync(dir)
		.filter((f) => f.endsWith('.cpuprofile'))
		.sort()) {
		const s = summarise(join(dir, name));
		byContender.set(s.contender, [...(byContender.get(s.contender) ?? []), s]);
	}
	return byContender;
}

/** µs per order of each part, summed over the contender's profiled runs. */
function perOrder(summaries: Summary[]): Map<string, number> {
	const orders = summaries.reduce((n, s) => n + s.orders, 0);
	const out = new Map<string, number>();
	for (const s of summaries) for (const [part, ms] of s.partsMs) out.set(part, (out.get(part) ?? 0) + (ms * 1000) / orders);
	return out;
}

const ALL_PARTS = [...PARTS.map((p) => p.part), 'n8n, other', ...new Set(Object.values(V8_ENTRIES))];

function main(): void {
	const [dirA, dirB] = process.argv.slice(2);
	if (!dirA) throw new Error('usage: bench/profile.ts <profile dir> [<second profile dir>]');
	const a = load(dirA);
	const b = dirB ? load(dirB) : undefined;
	for (const [contender, summaries] of a) {
		const pa = perOrder(summaries);
		const pb = b?.get(contender) ? perOrder(b.get(contender)!) : undefined;
		const busy = (p: Map<string, number>) => [...p].filter(([part]) => !part.startsWith('idle')).reduce((n, [, us]) => n + us, 0);
		console.log(`\n### ${contender}: ${summaries.length} profiled run(s), ${summaries[0].orders} items each (µs per item${pb ? `; ${dirA} | ${dirB}` : ''})`);
		console.log(`| Part | µs per item${pb ? ' | after | change' : ''} |`);
		console.log(`|---|---:${pb ? '|---:|---:' : ''}|`);
		for (const part of ALL_PARTS) {
			const x = pa.get(part) ?? 0;
			const y = pb?.get(part) ?? 0;
			if (x < 0.5 && y < 0.5) continue;
			console.log(`| ${part} | ${x.toFixed(0)}${pb ? ` | ${y.toFixed(0)} | ${(y - x).toFixed(0)}` : ''} |`);
		}
		console.log(
			`| **CPU busy (all but idle)** | **${busy(pa).toFixed(0)}**${pb ? ` | **${busy(pb).toFixed(0)}** | ${(busy(pb) - busy(pa)).toFixed(0)}` : ''} |`,
		);
		// The n8n-only twin (same webhook and items, no requests) holds n8n's fixed cost per execution
		// and the profiler's own start (V8 logs every compiled function: mostly "program").
		const twinA = a.get('n8nOnly');
		const twinB = b?.get('n8nOnly');
		if (twinA && contender !== 'n8nOnly') {
			const netA = busy(pa) - busy(perOrder(twinA));
			const netB = pb && twinB ? busy(pb) - busy(perOrder(twinB)) : undefined;
			console.log(
				`| **CPU busy net of the n8n-only twin** | **${netA.toFixed(0)}**${netB !== undefined ? ` | **${netB.toFixed(0)}** | ${(netB - netA).toFixed(0)}` : ''} |`,
			);
		}
		if (process.env.PROFILE_TOP) {
			for (const [title, key] of [
				['ours', 'topOurs'],
				['n8n other / item handling', 'topOther'],
			] as const) {
				const merged = new Map<string, number>();
				for (const s of summaries) for (const [w, ms] of s[key]) merged.set(w, (merged.get(w) ?? 0) + ms);
				const orders = summaries.reduce((n, s) => n + s.orders, 0);
				const top = [...merged].sort((x, y) => y[1] - x[1]).slice(0, Number(process.env.PROFILE_TOP));
				console.log(`  top self time, ${title}: ${top.map(([w, ms]) => `${w} ${((ms * 1000) / orders).toFixed(0)} µs`).join('; ')}`);
			}
		}
	}
}

if (require.main === module) main();
