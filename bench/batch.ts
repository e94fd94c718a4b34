/**
 * 1. Batch payouts: N payment orders from N items, through our node, through n8n's HTTP Request
 * node (same bodies, headers and idempotency keys, in the same n8n), and through a plain undici
 * loop outside n8n with the node's concurrency (the wire's limit). The "n8n only" workflow (same
 * webhook, same items, no requests) is n8n's fixed cost per execution, subtracted from both n8n
 * contenders so that the ratios are about the nodes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Agent, request } from 'undici';

import type { LoggedRequest } from '../harness/sandboxClient';
import { lastError, loggedSince, type BenchContext } from './context';
import { InspectorSession } from './lib/cpuProfile';
import { pool, postJson } from './lib/http';
import { expressionEvaluations } from './lib/metrics';
import { IDS } from './workflows';
import { figure, median, pairedRatio, ratio, show, type Figure } from './lib/stats';

type Contender = 'n8nOnly' | 'node' | 'nodeFixed' | 'nodeAutoMap' | 'httpRequest' | 'undici';
type N8nContender = Exclude<Contender, 'undici' | 'n8nOnly'>;
const ORDER: Contender[] = ['n8nOnly', 'node', 'httpRequest', 'undici', 'nodeFixed', 'nodeAutoMap'];

const PATHS: Record<Exclude<Contender, 'undici'>, string> = {
	n8nOnly: 'bench-batch-empty',
	node: 'bench-batch-node',
	nodeFixed: 'bench-batch-node-fixed',
	nodeAutoMap: 'bench-batch-node-automap',
	httpRequest: 'bench-batch-http',
};

const WORKFLOWS: Record<Exclude<Contender, 'undici'>, string> = {
	n8nOnly: IDS.batchEmpty,
	node: IDS.batchNode,
	nodeFixed: IDS.batchNodeFixed,
	nodeAutoMap: IDS.batchNodeAutoMap,
	httpRequest: IDS.batchHttp,
};

export interface BatchResult {
	orders: number;
	concurrency: number;
	wallMs: Record<Contender, Figure>;
	/** Wall time minus the n8n-only run of the same round (n8n contenders). */
	netMs: Record<N8nContender, Figure>;
	ordersPerSecond: Record<N8nContender | 'undici' | 'nodeGross' | 'httpRequestGross', Figure>;
	/**
	 * n8n's expression-engine calls per item (its own metric, see lib/metrics.ts; median of the
	 * timed runs), whole execution included; null when n8n does not count them (legacy engine).
	 */
	engineCallsPerItem: Record<Exclude<Contender, 'undici'>, number | null>;
	ratios: {
		/** node orders/s ÷ HTTP Request orders/s (net of n8n's overhead), fields mapped by expressions. */
		nodeVsHttpRequest: Figure;
		/** node net time ÷ undici loop time; ≤ 1.5 is the target. */
		nodeTimeVsUndici: Figure;
		/** The node with fixed fields (1 expression per item, as the HTTP Request node here); ≥ 1.5 is the target. */
		nodeFixedVsHttpRequest: Figure;
		nodeFixedTimeVsUndici: Figure;
		/** Order Fields → Map Automatically (every field and the key by name, no expression); ≥ 1.5 is the target. */
		nodeAutoMapVsHttpRequest: Figure;
		nodeAutoMapTimeVsUndici: Figure;
		httpRequestTimeVsUndici: Figure;
	};
	/**
	 * What one engine call costs in this n8n: (node mapped by expressions − node with fixed fields)
	 * ÷ (their difference in engine calls per item, counted by n8n, × items), run by run, in µs.
	 * Null when n8n counted no difference (the node reads trivial `$json` paths without the engine;
	 * the legacy engine counts nothing).
	 */
	expressionCostUs: Figure | null;
	/** One request of each contender, compared: the same method, path, headers (names) and body. */
	sameRequests: { identical: boolean; differences: string[] };
}

/** Request bodies in the order of fields the node sends; only the key differs between orders. */
function ordersFor(ctx: BenchContext, tag: string, count: number): Array<{ body: Record<string, unknown> }> {
	const o = ctx.order;
	return Array.from({ length: count }, (_, i) => ({
		body: {
			fromUserId: o.fromUserId,
			toAddress: o.toAddress,
			toChain: o.toChain,
			asset: o.asset,
			amountUsd: o.amountUsd,
			memo: o.memo,
			mode: 'standard',
			expiresAt: o.expiresAt,
			idempotencyKey: `bench-${tag}-${i}`,
		},
	}));
}

async function runUndici(ctx: BenchContext, orders: Array<{ body: Record<string, unknown> }>): Promise<{ ms: number; created: number }> {
	const agent = new Agent({ connections: ctx.config.concurrency });
	const url = `${ctx.sandbox.mainUrl}/api/v1/payment`;
	let created = 0;
	const started = performance.now();
	await pool(orders.length, ctx.config.concurrency, async (i) => {
		const response = await request(url, {
			method: 'POST',
			dispatcher: agent,
			headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': ctx.sandbox.apiKey },
			body: JSON.stringify(orders[i].body),
		});
		await response.body.json();
		if (response.statusCode === 201) created++;
	});
	const ms = performance.now() - started;
	await agent.close();
	return { ms, created };
}

const isCreate = (r: LoggedRequest) => r.method === 'POST' && /\/payment$/.test(r.path);

async function runOnce(
	ctx: BenchContext,
	contender: Contender,
	tag: string,
	count: number,
	inspector?: InspectorSession,
): Promise<{ ms: number; sample?: LoggedRequest; engineCalls?: number }> {
	const orders = ordersFor(ctx, tag, count);
	const mark = await ctx.operator.mark();
	let ms: number;
	let engineCalls: number | undefined;
	if (contender === 'undici') {
		const result = await runUndici(ctx, orders);
		ms = result.ms;
	} else {
		// Map Automatically reads the fields from the item itself: the same bodies, one level up.
		const payload = contender === 'nodeAutoMap' ? orders.map((o) => o.body) : orders;
		const before = await expressionEvaluations(ctx.n8n.baseUrl);
		const post = () => postJson(ctx.n8n.webhookUrl(PATHS[contender]), { orders: payload });
		let response: Awaited<ReturnType<typeof post>>;
		if (inspector && ctx.profiling) {
			// The execution's CPU profile, named by contender and tag (bench/profile.ts sums them up).
			const profiled = await inspector.profile(post);
			response = profiled.result;
			mkdirSync(ctx.profiling.dir, { recursive: true });
			writeFileSync(join(ctx.profiling.dir, `${contender}.${count}.${tag}.cpuprofile`), JSON.stringify(profiled.profile));
		} else {
			response = await post();
		}
		if (response.status !== 200) {
			throw new Error(`${contender}: webhook answered ${response.status}: ${response.text.slice(0, 300)}; ${lastError(ctx, WORKFLOWS[contender])}`);
		}
		ms = response.ms;
		const after = await expressionEvaluations(ctx.n8n.baseUrl);
		if (before !== undefined && after !== undefined) engineCalls = after - before;
	}
	const logged = await loggedSince(ctx.operator, mark, isCreate);
	const expected = contender === 'n8nOnly' ? 0 : count;
	const created = logged.filter((r) => r.status === 201).length;
	if (created !== expected || logged.length !== expected) {
		throw new Error(`${contender}: the sandbox logged ${logged.length} creates (${created} created), expected ${expected}`);
	}
	return { ms, sample: logged.find((r) => String(r.body?.idempotencyKey).endsWith('-0')), engineCalls };
}

function compareRequests(samples: Partial<Record<Contender, LoggedRequest>>): { identical: boolean; differences: string[] } {
	const differences: string[] = [];
	const ignoredHeaders = new Set(['content-length', 'host', 'connection', 'user-agent', 'accept-encoding']);
	const shape = (r: LoggedRequest) => ({
		request: `${r.method} ${r.path}`,
		headers: Object.entries(r.headers)
			.filter(([name]) => !ignoredHeaders.has(name))
			.map(([name, value]) => `${name}: ${name === 'x-api-key' ? '(key)' : String(value)}`)
			.sort(),
		// Per-order fields differ by design (tag in memo and key); the rest must match exactly.
		// The key carries the contender's tag by design; the rest must match byte for byte.
		body: JSON.stringify(Object.entries(r.body ?? {}).map(([k, v]) => [k, k === 'idempotencyKey' ? String(v).replace(/^bench-.*-(\d+)$/, 'bench-…-$1') : v])),
	});
	const base = samples.undici ? shape(samples.undici) : undefined;
	for (const contender of ['node', 'nodeFixed', 'nodeAutoMap', 'httpRequest'] as const) {
		const sample = samples[contender];
		if (!base || !sample) continue;
		const s = shape(sample);
		if (s.request !== base.request) differences.push(`${contender}: ${s.request} vs undici ${base.request}`);
		if (s.body !== base.body) differences.push(`${contender}: body ${s.body} vs undici ${base.body}`);
		const extra = s.headers.filter((h) => !base.headers.includes(h));
		const missing = base.headers.filter((h) => !s.headers.includes(h));
		if (extra.length || missing.length) differences.push(`${contender}: headers +[${extra.join('; ')}] -[${missing.join('; ')}]`);
	}
	return { identical: differences.length === 0, differences };
}

export async function benchBatch(ctx: BenchContext, label = '1. Batch payouts'): Promise<BatchResult> {
	const { runs, orders: count, concurrency } = ctx.config;
	ctx.log(`\n## ${label}: ${count} orders per run, concurrency ${concurrency}, ${runs} runs`);
	// Warm-up: n8n loads node code and compiles expressions on first use; not timed.
	for (const contender of ORDER) await runOnce(ctx, contender, `warm-${contender}-${Date.now()}`, 20);

	const times: Record<Contender, number[]> = { n8nOnly: [], node: [], nodeFixed: [], nodeAutoMap: [], httpRequest: [], undici: [] };
	const calls: Record<Contender, number[]> = { n8nOnly: [], node: [], nodeFixed: [], nodeAutoMap: [], httpRequest: [], undici: [] };
	const samples: Partial<Record<Contender, LoggedRequest>> = {};
	const inspector = ctx.profiling ? await InspectorSession.connect(ctx.profiling.inspectorPort) : undefined;
	for (let run = 0; run < runs; run++) {
		// Alternate the order of contenders from round to round (noise from other load spreads out).
		const order = ORDER.map((_, i) => ORDER[(i + run) % ORDER.length]);
		for (const contender of order) {
			const { ms, sample, engineCalls } = await runOnce(ctx, contender, `${Date.now().toString(36)}-${run}-${contender}`, count, inspector);
			times[contender].push(ms);
			if (engineCalls !== undefined) calls[contender].push(engineCalls / count);
			if (sample && !samples[contender]) samples[contender] = sample;
			ctx.log(`  run ${run + 1} ${contender.padEnd(11)} ${ms.toFixed(0)} ms`);
		}
	}
	inspector?.close();
	const net = (contender: N8nContender) => times[contender].map((ms, i) => Math.max(1, ms - times.n8nOnly[i]));
	const rate = (ms: number[]) => ms.map((m) => (count / m) * 1000);
	const result: BatchResult = {
		orders: count,
		concurrency,
		wallMs: {
			n8nOnly: figure(times.n8nOnly, 'ms', 0),
			node: figure(times.node, 'ms', 0),
			nodeFixed: figure(times.nodeFixed, 'ms', 0),
			nodeAutoMap: figure(times.nodeAutoMap, 'ms', 0),
			httpRequest: figure(times.httpRequest, 'ms', 0),
			undici: figure(times.undici, 'ms', 0),
		},
		netMs: {
			node: figure(net('node'), 'ms', 0),
			nodeFixed: figure(net('nodeFixed'), 'ms', 0),
			nodeAutoMap: figure(net('nodeAutoMap'), 'ms', 0),
			httpRequest: figure(net('httpRequest'), 'ms', 0),
		},
		engineCallsPerItem: {
			n8nOnly: callsPerItem(calls.n8nOnly),
			node: callsPerItem(calls.node),
			nodeFixed: callsPerItem(calls.nodeFixed),
			nodeAutoMap: callsPerItem(calls.nodeAutoMap),
			httpRequest: callsPerItem(calls.httpRequest),
		},
		ordersPerSecond: {
			node: figure(rate(net('node')), 'orders/s'),
			nodeFixed: figure(rate(net('nodeFixed')), 'orders/s'),
			nodeAutoMap: figure(rate(net('nodeAutoMap')), 'orders/s'),
			httpRequest: figure(rate(net('httpRequest')), 'orders/s'),
			undici: figure(rate(times.undici), 'orders/s'),
			nodeGross: figure(rate(times.node), 'orders/s'),
			httpRequestGross: figure(rate(times.httpRequest), 'orders/s'),
		},
		ratios: {
			nodeVsHttpRequest: pairedRatio(rate(net('node')), rate(net('httpRequest'))),
			nodeFixedVsHttpRequest: pairedRatio(rate(net('nodeFixed')), rate(net('httpRequest'))),
			nodeFixedTimeVsUndici: pairedRatio(net('nodeFixed'), times.undici),
			nodeTimeVsUndici: pairedRatio(net('node'), times.undici),
			nodeAutoMapVsHttpRequest: pairedRatio(rate(net('nodeAutoMap')), rate(net('httpRequest'))),
			nodeAutoMapTimeVsUndici: pairedRatio(net('nodeAutoMap'), times.undici),
			httpRequestTimeVsUndici: pairedRatio(net('httpRequest'), times.undici),
		},
		expressionCostUs: costPerCall(net('node'), net('nodeFixed'), calls.node, calls.nodeFixed, count),
		sameRequests: compareRequests(samples),
	};
	const r = result;
	const c = (contender: keyof BatchResult['engineCallsPerItem']) => `${r.engineCallsPerItem[contender] ?? 'n/a'} engine calls/item`;
	ctx.log(`  n8n only (webhook + ${count} items, no requests): ${show(r.wallMs.n8nOnly)}; ${c('n8nOnly')}`);
	ctx.log(
		`  Clearinghouse node, fields mapped by expressions: ${show(r.ordersPerSecond.node)} net of n8n overhead; gross ${show(r.ordersPerSecond.nodeGross)}; ${c('node')}`,
	);
	ctx.log(`  Clearinghouse node, fields mapped automatically (by name): ${show(r.ordersPerSecond.nodeAutoMap)} net; ${c('nodeAutoMap')}`);
	ctx.log(`  Clearinghouse node, fixed fields (key by expression only): ${show(r.ordersPerSecond.nodeFixed)} net; ${c('nodeFixed')}`);
	ctx.log(`  HTTP Request node:   ${show(r.ordersPerSecond.httpRequest)} net; gross ${show(r.ordersPerSecond.httpRequestGross)}; ${c('httpRequest')}`);
	ctx.log(`  undici loop (c=${concurrency}): ${show(r.ordersPerSecond.undici)}`);
	ctx.log(
		`  ratio node/HTTP Request (orders/s): ${show(r.ratios.nodeVsHttpRequest)} (ratio of medians ${ratio(r.ordersPerSecond.node, r.ordersPerSecond.httpRequest)})`,
	);
	ctx.log(
		`  ratio node (mapped automatically)/HTTP Request: ${show(r.ratios.nodeAutoMapVsHttpRequest)} target ≥ 1.5; time/undici ${show(r.ratios.nodeAutoMapTimeVsUndici)}`,
	);
	ctx.log(
		`  ratio node (fixed fields)/HTTP Request: ${show(r.ratios.nodeFixedVsHttpRequest)} target ≥ 1.5; time/undici ${show(r.ratios.nodeFixedTimeVsUndici)}`,
	);
	ctx.log(`  ratio node time/undici time: ${show(r.ratios.nodeTimeVsUndici)} target ≤ 1.5; HTTP Request/undici ${show(r.ratios.httpRequestTimeVsUndici)}`);
	ctx.log(
		r.expressionCostUs
			? `  one engine call (node mapped by expressions − fixed fields, ÷ their difference in engine calls): ${show(r.expressionCostUs)}`
			: `  one engine call: not measurable here (mapped by expressions and fixed fields made the same number of engine calls, or n8n counted none)`,
	);
	ctx.log(`  same requests: ${r.sameRequests.identical ? 'yes' : r.sameRequests.differences.join(' | ')}`);
	return result;
}

/** Median engine calls per item over the timed runs (2 decimals), null when n8n counted none. */
function callsPerItem(perRun: number[]): number | null {
	return perRun.length ? Number(median(perRun).toFixed(2)) : null;
}

/** (slow − fast) ÷ (engine calls per item they differ by × items), run by run; null without a difference. */
function costPerCall(slowMs: number[], fastMs: number[], slowCalls: number[], fastCalls: number[], count: number): Figure | null {
	if (slowCalls.length !== slowMs.length || fastCalls.length !== fastMs.length) return null;
	const extra = slowCalls.map((c, i) => c - fastCalls[i]);
	if (extra.some((e) => e < 0.5)) return null;
	return figure(
		slowMs.map((ms, i) => ((ms - fastMs[i]) / (extra[i] * count)) * 1000),
		'µs',
		0,
	);
}
