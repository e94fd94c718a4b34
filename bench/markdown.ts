/**
 * The figures of a results file as the Markdown table of bench/README.md's figures (bench/readme.ts writes it there):
 * `node -r ts-node/register/transpile-only bench/markdown.ts [bench/results/latest.json]`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { BatchResult } from './batch';
import type { ListingResult } from './listing';
import type { PackageResult } from './package-cost';
import type { TargetCheck } from './report';
import type { Figure } from './lib/stats';
import type { TriggerResult, TriggerSettingResult } from './trigger';
import type { VerificationResult } from './verification';

const f = (x: Figure | undefined) => (x ? `${x.median} ${x.unit} (runs: ${x.runs.join(', ')})` : 'n/a');

export function markdown(record: any): string {
	const r = record.results as {
		batch?: BatchResult;
		listing?: ListingResult;
		trigger?: TriggerResult;
		verification?: VerificationResult;
		package?: PackageResult;
		diagnostics?: { batchLegacyExpressionEngine?: BatchResult; triggerLegacyExpressionEngine?: TriggerResult; triggerIsolatePoolOf2?: TriggerResult };
	};
	const out: string[] = [];
	out.push(
		`Run of ${record.startedAt} (commit ${record.commit}, n8n ${record.n8nVersion}, Node ${record.node}, ${record.cpus} CPUs, load average at start ${record.loadAverageAtStart.map((l: number) => l.toFixed(1)).join(' ')}; \`npm run bench\` took ${record.wallSeconds} s). Medians with every run in brackets.`,
		'',
	);
	out.push('| Figure | Ours | Baseline | Ratio |', '|---|---|---|---|');
	const b = r.batch;
	if (b) {
		const calls = (c: keyof BatchResult['engineCallsPerItem']) => b.engineCallsPerItem?.[c] ?? 'n/a';
		if (b.engineCallsPerItem) {
			out.push(
				`| 1. Batch: n8n's expression-engine calls per item (its own metric; whole execution) | by name ${calls('nodeAutoMap')}; fixed fields ${calls('nodeFixed')}; by expressions ${calls('node')} | HTTP Request node ${calls('httpRequest')}; n8n only ${calls('n8nOnly')} | |`,
			);
		}
		if (b.ordersPerSecond.nodeAutoMap) {
			out.push(
				`| 1. Batch: ${b.orders} orders, fields mapped automatically (by name, no expression), concurrency ${b.concurrency} | ${f(b.ordersPerSecond.nodeAutoMap)} | HTTP Request node ${f(b.ordersPerSecond.httpRequest)} | ${f(b.ratios.nodeAutoMapVsHttpRequest)} (target ≥ 1.5) |`,
			);
		}
		out.push(
			`| 1. Batch: ${b.orders} orders, fields mapped by expressions, concurrency ${b.concurrency} (net of n8n's ${b.wallMs.n8nOnly.median} ms per execution) | ${f(b.ordersPerSecond.node)} | HTTP Request node ${f(b.ordersPerSecond.httpRequest)} | ${f(b.ratios.nodeVsHttpRequest)} |`,
		);
		out.push(
			`| 1. Batch, same, against the undici loop (time) | ${f(b.netMs.node)} | undici ${f(b.wallMs.undici)} (${b.ordersPerSecond.undici.median} orders/s) | ${f(b.ratios.nodeTimeVsUndici)} (target ≤ 1.5) |`,
		);
		out.push(
			`| 1. Batch, node with fixed fields (only the key by expression, like the HTTP Request node's one body expression) | ${f(b.ordersPerSecond.nodeFixed)} | HTTP Request node | ${f(b.ratios.nodeFixedVsHttpRequest)} (target ≥ 1.5); vs undici time ${f(b.ratios.nodeFixedTimeVsUndici)} |`,
		);
		if (b.expressionCostUs)
			out.push(
				`| 1. Batch: cost of one engine call in n8n ((mapped by expressions − fixed fields) ÷ their difference in engine calls ÷ items) | ${f(b.expressionCostUs)} | | |`,
			);
		out.push(`| 1. Batch, HTTP Request node against the undici loop (time) | ${f(b.netMs.httpRequest)} | undici | ${f(b.ratios.httpRequestTimeVsUndici)} |`);
	}
	const l = r.listing;
	if (l) {
		out.push(
			`| 2. Return All over ${l.listed} orders (${l.dataMb} MB JSON), wall time | ${f(l.wallMs.node)}, ${l.requests.node} requests | HTTP Request pagination ${f(l.wallMs.httpRequest)}, ${l.requests.httpRequest} requests | ${f(l.ratios.nodeVsHttpRequest)} (target ≤ 0.85) |`,
		);
		out.push(
			`| 2. Return All against HTTP Request pagination + Split Out (same items) | | ${f(l.wallMs.httpRequestSplitOut)} | ${f(l.ratios.nodeVsHttpRequestSplitOut)} |`,
		);
		out.push(`| 2. Return All against an undici page loop | | ${f(l.wallMs.undici)} | ${f(l.ratios.nodeVsUndici)} |`);
		out.push(
			`| 2. Peak RSS of n8n (fresh process; n8n alone peaks at ${l.peakRssMb.n8nOnly.median} MB) | ${f(l.peakRssMb.node)} | HTTP Request ${f(l.peakRssMb.httpRequest)}; + Split Out ${f(l.peakRssMb.httpRequestSplitOut)} | |`,
		);
		out.push(
			`| 2. RSS growth during the run | ${f(l.rssGrowthMb.node)} = ${l.ratios.nodeMemoryPerDataByte.median}× the data | HTTP Request + Split Out ${f(l.rssGrowthMb.httpRequestSplitOut)} = ${l.ratios.httpRequestSplitOutMemoryPerDataByte.median}× | |`,
		);
		if (l.half)
			out.push(
				`| 2. Growth from ${l.half.listed} to ${l.listed} orders (data ×${(l.listed / l.half.listed).toFixed(1)}; one run at the half) | ×${l.half.growthRatio.node} (${l.half.rssGrowthMb.node} MB → ${l.rssGrowthMb.node.median} MB) | HTTP Request + Split Out ×${l.half.growthRatio.httpRequestSplitOut} | target: no faster than the data |`,
			);
	}
	const t = r.trigger;
	// The n8n process's CPU per delivery, when the run measured it (older records did not).
	const cpu = (x: TriggerSettingResult, c: keyof NonNullable<TriggerSettingResult['cpuMsPerDelivery']>) =>
		x.cpuMsPerDelivery?.[c] === undefined ? '' : `, n8n CPU ${x.cpuMsPerDelivery[c]} ms/delivery`;
	if (t)
		out.push(
			`| 3. Trigger v2: ${t.deliveries} signed deliveries, ${t.concurrency} in flight, executions/s, n8n's default settings | ${f(t.executionsPerSecond.trigger)}${cpu(t, 'trigger')} | plain Webhook ${f(t.executionsPerSecond.plainWebhook)}${cpu(t, 'plainWebhook')} | ${f(t.ratio)} |`,
		);
	if (t?.lazyAcquire) {
		const l = t.lazyAcquire;
		out.push(
			`| 3. Trigger v2 with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true | ${f(l.executionsPerSecond.trigger)}${cpu(l, 'trigger')} | plain Webhook ${f(l.executionsPerSecond.plainWebhook)}${cpu(l, 'plainWebhook')} | ${f(l.ratio)} (target ≥ 0.9) |`,
		);
		out.push(
			`| 3. Trigger v2 confirmed with the API, lazy acquire | ${f(l.executionsPerSecond.triggerConfirmed)}${cpu(l, 'triggerConfirmed')} | plain Webhook ${f(l.executionsPerSecond.plainWebhook)}${cpu(l, 'plainWebhook')} | ${f(l.ratioConfirmed)} |`,
		);
	}
	const v = r.verification;
	if (v)
		out.push(
			`| 3. Verification alone per delivery (${v.bodyBytes} B body) | verifySignature ${f(v.verifySignatureUs)} | bare HMAC ${f(v.bareHmacUs)} | checks cost ${f(v.overheadUs)} |`,
		);
	if (v?.bookkeepingUs)
		out.push(`| 3. The trigger's other own work per delivery (duplicate/stale memory full, static-data mirror) | ${f(v.bookkeepingUs)} | | |`);
	const p = r.package;
	if (p) {
		out.push(
			`| 4. Tarball (npm pack) | ${(p.tarballBytes / 1024).toFixed(1)} KiB, ${p.files} files, ${(p.unpackedBytes / 1024).toFixed(1)} KiB unpacked | | |`,
		);
		out.push(
			`| 4. \`n8n execute\` of a trivial workflow | with the package ${f(p.executeMs.withPackage)} | without ${f(p.executeMs.withoutPackage)} | load time ${f(p.loadMs)} |`,
		);
	}
	const d = r.diagnostics;
	if (d?.batchLegacyExpressionEngine) {
		const x = d.batchLegacyExpressionEngine;
		out.push(
			`| Diagnostic, N8N_EXPRESSION_ENGINE=legacy: batch | ${f(x.ordersPerSecond.node)}; fixed fields ${f(x.ordersPerSecond.nodeFixed)} | HTTP Request ${f(x.ordersPerSecond.httpRequest)}; undici ${f(x.ordersPerSecond.undici)} | node/HTTP ${f(x.ratios.nodeVsHttpRequest)}; node/undici time ${f(x.ratios.nodeTimeVsUndici)}; HTTP/undici ${f(x.ratios.httpRequestTimeVsUndici)} |`,
		);
	}
	if (d?.triggerLegacyExpressionEngine) {
		const x = d.triggerLegacyExpressionEngine;
		out.push(
			`| Diagnostic, N8N_EXPRESSION_ENGINE=legacy: trigger | ${f(x.executionsPerSecond.trigger)} | plain Webhook ${f(x.executionsPerSecond.plainWebhook)} | ${f(x.ratio)} |`,
		);
	}
	if (d?.triggerIsolatePoolOf2) {
		const x = d.triggerIsolatePoolOf2;
		out.push(
			`| Diagnostic, N8N_EXPRESSION_ENGINE_POOL_SIZE=2: trigger | ${f(x.executionsPerSecond.trigger)} | plain Webhook ${f(x.executionsPerSecond.plainWebhook)} | ${f(x.ratio)} |`,
		);
	}
	out.push('', 'Targets:', '');
	for (const target of record.targets as TargetCheck[]) out.push(`- ${target.met ? '**met**' : '**missed**'}: ${target.name} — ${target.detail}`);
	return out.join('\n');
}

if (require.main === module) {
	const file = process.argv[2] ?? join(__dirname, 'results', 'latest.json');
	console.log(markdown(JSON.parse(readFileSync(file, 'utf8'))));
}
