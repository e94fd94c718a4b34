/**
 * 2. Listing: Get Many with Return All over the bulk-created orders of one user, against the HTTP
 * Request node's own pagination (offset/limit, complete when !hasMore), alone and followed by
 * Split Out (the same one item per order), and against an undici page loop outside n8n. n8n is
 * restarted before every timed run so that each peak RSS starts from a fresh process: a process
 * that already grew its heap in an earlier run would hide the next run's growth.
 */
import { Agent, request } from 'undici';

import type { LoggedRequest } from '../harness/sandboxClient';
import { lastError, loggedSince, type BenchContext } from './context';
import { postJson } from './lib/http';
import { findN8nPid, withPeakMemory } from './lib/proc';
import { figure, pairedRatio, show, type Figure } from './lib/stats';
import { IDS } from './workflows';
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';

type N8nContender = 'n8nOnly' | 'node' | 'httpRequest' | 'httpRequestSplitOut';
const N8N_ORDER: N8nContender[] = ['n8nOnly', 'node', 'httpRequest', 'httpRequestSplitOut'];
const PATHS: Record<N8nContender, string> = {
	n8nOnly: 'bench-list-empty',
	node: 'bench-list-node',
	httpRequest: 'bench-list-http',
	httpRequestSplitOut: 'bench-list-http-split',
};
const WORKFLOWS: Record<N8nContender, string> = {
	n8nOnly: IDS.listEmpty,
	node: IDS.listNode,
	httpRequest: IDS.listHttp,
	httpRequestSplitOut: IDS.listHttpSplit,
};

interface Measurement {
	ms: number;
	requests: number;
	beforeMb: number;
	peakMb: number;
}

export interface ListingResult {
	listed: number;
	pageSize: number;
	/** JSON bytes of every page the service sent (what n8n has to hold, before n8n's own copies). */
	dataMb: number;
	memorySource: string;
	wallMs: Record<N8nContender | 'undici', Figure>;
	requests: Record<N8nContender | 'undici', number>;
	/** Peak RSS of the n8n process during the run, and its growth over the RSS before the run. */
	peakRssMb: Record<N8nContender, Figure>;
	rssGrowthMb: Record<N8nContender, Figure>;
	ratios: {
		/** node time ÷ HTTP Request pagination time (pages as items); report.ts's target: ≤ 0.85. */
		nodeVsHttpRequest: Figure;
		/** node time ÷ HTTP Request pagination + Split Out (the same items as the node's output). */
		nodeVsHttpRequestSplitOut: Figure;
		nodeVsUndici: Figure;
		/** RSS growth ÷ data size. */
		nodeMemoryPerDataByte: Figure;
		httpRequestSplitOutMemoryPerDataByte: Figure;
	};
	/** The same at half the orders, one run: growth should about halve if memory grows with the data. */
	half?: { listed: number; rssGrowthMb: { node: number; httpRequestSplitOut: number }; growthRatio: { node: number; httpRequestSplitOut: number } };
}

const isList = (r: LoggedRequest) => r.method === 'GET' && /\/payment-orders$/.test(r.path);

async function restartN8n(ctx: BenchContext, path: string): Promise<number> {
	await ctx.n8n.stop();
	await ctx.n8n.start();
	await ctx.n8n.waitForWebhook(path);
	const pid = findN8nPid(ctx.n8n.root, 'start');
	if (!pid) throw new Error('could not find the pid of n8n start');
	return pid;
}

async function measureN8n(ctx: BenchContext, contender: N8nContender, listed: number): Promise<Measurement> {
	const pid = await restartN8n(ctx, PATHS[contender]);
	const mark = await ctx.operator.mark();
	const { result, beforeMb, peakMb } = await withPeakMemory(pid, () => postJson(ctx.n8n.webhookUrl(PATHS[contender]), {}));
	if (result.status !== 200)
		throw new Error(`${contender}: webhook answered ${result.status}: ${result.text.slice(0, 300)}; ${lastError(ctx, WORKFLOWS[contender])}`);
	const requests = (await loggedSince(ctx.operator, mark, isList)).length;
	const first = JSON.parse(result.text || '{}') as { id?: string; total?: number };
	if (contender === 'httpRequest' && first.total !== listed) throw new Error(`httpRequest: first page says total ${first.total}, expected ${listed}`);
	if ((contender === 'node' || contender === 'httpRequestSplitOut') && typeof first.id !== 'string') {
		throw new Error(`${contender}: the first item is not an order: ${result.text.slice(0, 200)}`);
	}
	const expectedRequests = contender === 'n8nOnly' ? 0 : Math.ceil(listed / ctx.config.pageSize);
	if (requests !== expectedRequests) throw new Error(`${contender}: ${requests} list requests, expected ${expectedRequests}`);
	return { ms: result.ms, requests, beforeMb, peakMb };
}

/** The same pages outside n8n: sequential, keep-alive, every order kept in one array. */
async function measureUndici(ctx: BenchContext, userId: string): Promise<{ ms: number; requests: number; bytes: number; orders: number }> {
	const agent = new Agent({ connections: 1 });
	const kept: unknown[] = [];
	let bytes = 0;
	let requests = 0;
	const started = performance.now();
	for (let offset = 0; ; ) {
		const response = await request(
			`${ctx.sandbox.mainUrl}/api/v1/payment-orders?fromUserId=${userId}&limit=${ctx.config.pageSize}&offset=${offset}&status=${PAYMENT_ORDER_STATUSES.join(',')}`,
			{
				dispatcher: agent,
				headers: { accept: 'application/json', 'x-api-key': ctx.sandbox.apiKey },
			},
		);
		const text = await response.body.text();
		requests++;
		bytes += Buffer.byteLength(text);
		const page = JSON.parse(text) as { paymentOrders: unknown[]; hasMore: boolean };
		kept.push(...page.paymentOrders);
		offset += page.paymentOrders.length;
		if (!page.hasMore || page.paymentOrders.length === 0) break;
	}
	const ms = performance.now() - started;
	await agent.close();
	return { ms, requests, bytes, orders: kept.length };
}

export async function benchListing(ctx: BenchContext): Promise<ListingResult> {
	const { runs, listed, pageSize } = ctx.config;
	const userId = ctx.state.users[1].id as string;
	const half = Math.floor(listed / 2);
	ctx.log(`\n## 2. Listing: Return All over ${listed} orders (page size ${pageSize}), ${runs} runs, n8n restarted before each run`);

	// Half first: one run of the node and of HTTP Request + Split Out, for the growth check.
	await ctx.operator.call('POST', 'payment-orders/bulk', { count: half, fromUserId: userId });
	const halfNode = await measureN8n(ctx, 'node', half);
	const halfSplit = await measureN8n(ctx, 'httpRequestSplitOut', half);
	ctx.log(
		`  at ${half}: node +${(halfNode.peakMb - halfNode.beforeMb).toFixed(0)} MB, HTTP Request + Split Out +${(halfSplit.peakMb - halfSplit.beforeMb).toFixed(0)} MB`,
	);
	await ctx.operator.call('POST', 'payment-orders/bulk', { count: listed - half, fromUserId: userId });

	const results: Record<N8nContender, Measurement[]> = { n8nOnly: [], node: [], httpRequest: [], httpRequestSplitOut: [] };
	const undici: Array<{ ms: number; requests: number; bytes: number }> = [];
	for (let run = 0; run < runs; run++) {
		const order = N8N_ORDER.map((_, i) => N8N_ORDER[(i + run) % N8N_ORDER.length]);
		for (const contender of order) {
			const m = await measureN8n(ctx, contender, listed);
			results[contender].push(m);
			ctx.log(
				`  run ${run + 1} ${contender.padEnd(19)} ${m.ms.toFixed(0)} ms, ${m.requests} requests, RSS ${m.beforeMb.toFixed(0)} → peak ${m.peakMb.toFixed(0)} MB`,
			);
		}
		const u = await measureUndici(ctx, userId);
		if (u.orders !== listed) throw new Error(`undici: ${u.orders} orders listed, expected ${listed}`);
		undici.push(u);
		ctx.log(`  run ${run + 1} undici              ${u.ms.toFixed(0)} ms, ${u.requests} requests, ${(u.bytes / 1048576).toFixed(1)} MB of JSON`);
	}

	const ms = (c: N8nContender) => results[c].map((m) => m.ms);
	const growth = (c: N8nContender) => results[c].map((m) => m.peakMb - m.beforeMb);
	const dataMb = undici[0].bytes / 1048576;
	const perByte = (c: N8nContender) =>
		figure(
			growth(c).map((g) => g / dataMb),
			'× data',
			2,
		);
	const fig = (c: N8nContender) => figure(ms(c), 'ms', 0);
	const result: ListingResult = {
		listed,
		pageSize,
		dataMb: Number(dataMb.toFixed(1)),
		memorySource: 'VmHWM of the n8n start process, reset before the run (VmRSS polled every 20 ms as a fallback)',
		wallMs: {
			n8nOnly: fig('n8nOnly'),
			node: fig('node'),
			httpRequest: fig('httpRequest'),
			httpRequestSplitOut: fig('httpRequestSplitOut'),
			undici: figure(
				undici.map((u) => u.ms),
				'ms',
				0,
			),
		},
		requests: {
			n8nOnly: results.n8nOnly[0].requests,
			node: results.node[0].requests,
			httpRequest: results.httpRequest[0].requests,
			httpRequestSplitOut: results.httpRequestSplitOut[0].requests,
			undici: undici[0].requests,
		},
		peakRssMb: {
			n8nOnly: figure(
				results.n8nOnly.map((m) => m.peakMb),
				'MB',
				0,
			),
			node: figure(
				results.node.map((m) => m.peakMb),
				'MB',
				0,
			),
			httpRequest: figure(
				results.httpRequest.map((m) => m.peakMb),
				'MB',
				0,
			),
			httpRequestSplitOut: figure(
				results.httpRequestSplitOut.map((m) => m.peakMb),
				'MB',
				0,
			),
		},
		rssGrowthMb: {
			n8nOnly: figure(growth('n8nOnly'), 'MB', 0),
			node: figure(growth('node'), 'MB', 0),
			httpRequest: figure(growth('httpRequest'), 'MB', 0),
			httpRequestSplitOut: figure(growth('httpRequestSplitOut'), 'MB', 0),
		},
		ratios: {
			nodeVsHttpRequest: pairedRatio(ms('node'), ms('httpRequest')),
			nodeVsHttpRequestSplitOut: pairedRatio(ms('node'), ms('httpRequestSplitOut')),
			nodeVsUndici: pairedRatio(
				ms('node'),
				undici.map((u) => u.ms),
			),
			nodeMemoryPerDataByte: perByte('node'),
			httpRequestSplitOutMemoryPerDataByte: perByte('httpRequestSplitOut'),
		},
	};
	const halfGrowth = { node: halfNode.peakMb - halfNode.beforeMb, httpRequestSplitOut: halfSplit.peakMb - halfSplit.beforeMb };
	const halfResult = {
		listed: half,
		rssGrowthMb: { node: Math.round(halfGrowth.node), httpRequestSplitOut: Math.round(halfGrowth.httpRequestSplitOut) },
		growthRatio: {
			node: Number((result.rssGrowthMb.node.median / halfGrowth.node).toFixed(2)),
			httpRequestSplitOut: Number((result.rssGrowthMb.httpRequestSplitOut.median / halfGrowth.httpRequestSplitOut).toFixed(2)),
		},
	};
	result.half = halfResult;
	const r = result;
	ctx.log(`  data: ${r.dataMb} MB of JSON in ${r.requests.undici} pages`);
	ctx.log(`  n8n only:                         ${show(r.wallMs.n8nOnly)}`);
	ctx.log(
		`  Clearinghouse node (Return All):  ${show(r.wallMs.node)}, ${r.requests.node} requests, peak RSS ${show(r.peakRssMb.node)}, growth ${show(r.rssGrowthMb.node)}`,
	);
	ctx.log(
		`  HTTP Request pagination:          ${show(r.wallMs.httpRequest)}, ${r.requests.httpRequest} requests, peak RSS ${show(r.peakRssMb.httpRequest)}, growth ${show(r.rssGrowthMb.httpRequest)}`,
	);
	ctx.log(
		`  HTTP Request + Split Out:         ${show(r.wallMs.httpRequestSplitOut)}, peak RSS ${show(r.peakRssMb.httpRequestSplitOut)}, growth ${show(r.rssGrowthMb.httpRequestSplitOut)}`,
	);
	ctx.log(`  undici page loop:                 ${show(r.wallMs.undici)}`);
	ctx.log(
		`  ratio node/HTTP Request time: ${show(r.ratios.nodeVsHttpRequest)} target ≤ 0.85; node/(HTTP Request + Split Out): ${show(r.ratios.nodeVsHttpRequestSplitOut)}; node/undici ${show(r.ratios.nodeVsUndici)}`,
	);
	ctx.log(
		`  memory growth per byte of data: node ${show(r.ratios.nodeMemoryPerDataByte)}, HTTP Request + Split Out ${show(r.ratios.httpRequestSplitOutMemoryPerDataByte)}`,
	);
	ctx.log(
		`  growth ${half} → ${listed} orders (data ×${(listed / half).toFixed(1)}): node ×${halfResult.growthRatio.node}, HTTP Request + Split Out ×${halfResult.growthRatio.httpRequestSplitOut}`,
	);
	return result;
}
