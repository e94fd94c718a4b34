/** The targets (bench/README.md's table) checked against the figures, and the comparison with an earlier run. */
import type { BatchResult } from './batch';
import type { ListingResult } from './listing';
import type { TriggerResult } from './trigger';

export interface TargetCheck {
	name: string;
	met: boolean;
	detail: string;
}

export function summarize(results: Record<string, unknown>): TargetCheck[] {
	const checks: TargetCheck[] = [];
	const batch = results.batch as BatchResult | undefined;
	if (batch) {
		const r = batch.ratios;
		const calls = (c: keyof BatchResult['engineCallsPerItem']) => `${batch.engineCallsPerItem?.[c] ?? 'n/a'}`;
		checks.push({
			name: 'batch creation, fields mapped, at least 1.5× the HTTP Request node',
			met: (r.nodeAutoMapVsHttpRequest?.median ?? 0) >= 1.5,
			detail: `node/HTTP Request orders/s ${r.nodeAutoMapVsHttpRequest?.median} mapped automatically (by name); ${r.nodeVsHttpRequest.median} mapped by expressions; engine calls per item: by name ${calls('nodeAutoMap')}, by expressions ${calls('node')}, HTTP Request ${calls('httpRequest')}`,
		});
		checks.push({
			name: 'batch creation, fixed fields, at least 1.5× the HTTP Request node',
			met: r.nodeFixedVsHttpRequest.median >= 1.5,
			detail: `node/HTTP Request orders/s ${r.nodeFixedVsHttpRequest.median}; engine calls per item ${calls('nodeFixed')} against ${calls('httpRequest')}`,
		});
		checks.push({
			name: 'batch creation within 1.5× of the undici loop',
			met: r.nodeTimeVsUndici.median <= 1.5,
			detail: `node time/undici time ${r.nodeTimeVsUndici.median} (${r.nodeFixedTimeVsUndici.median} with fixed fields; the HTTP Request node ${r.httpRequestTimeVsUndici.median})`,
		});
	}
	const listing = results.listing as ListingResult | undefined;
	if (listing) {
		checks.push({
			name: "Return All at most 0.85× the HTTP Request node's time",
			met: listing.ratios.nodeVsHttpRequest.median <= 0.85,
			detail: `node/HTTP Request pagination ${listing.ratios.nodeVsHttpRequest.median}; node/(HTTP Request + Split Out) ${listing.ratios.nodeVsHttpRequestSplitOut.median}`,
		});
		if (listing.half) {
			const dataRatio = listing.listed / listing.half.listed;
			checks.push({
				name: 'Return All memory grows no faster than the data',
				met: listing.half.growthRatio.node <= dataRatio * 1.1,
				detail: `RSS growth ×${listing.half.growthRatio.node} for data ×${dataRatio.toFixed(1)} (${listing.half.listed} → ${listing.listed} orders); ${listing.ratios.nodeMemoryPerDataByte.median} bytes of growth per byte of JSON (HTTP Request + Split Out ${listing.ratios.httpRequestSplitOutMemoryPerDataByte.median})`,
			});
		}
	}
	const trigger = results.trigger as TriggerResult | undefined;
	const diagnostics = (results.diagnostics ?? {}) as {
		batchLegacyExpressionEngine?: BatchResult;
		triggerLegacyExpressionEngine?: TriggerResult;
		triggerIsolatePoolOf2?: TriggerResult;
	};
	if (trigger) {
		const legacy = diagnostics.triggerLegacyExpressionEngine;
		const lazy = trigger.lazyAcquire;
		const calls = (r: TriggerResult | NonNullable<TriggerResult['lazyAcquire']>) =>
			r.engineCallsPerDelivery
				? ` (engine calls/isolates per delivery: trigger ${r.engineCallsPerDelivery.trigger}/${r.isolatesPerDelivery.trigger}, Webhook ${r.engineCallsPerDelivery.plainWebhook}/${r.isolatesPerDelivery.plainWebhook})`
				: '';
		checks.push({
			name: 'trigger v2 throughput with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true at least 0.9× of the plain Webhook node',
			met: (lazy ?? trigger).ratio.median >= 0.9,
			detail:
				(lazy
					? `lazy acquire: trigger v2/Webhook ${lazy.ratio.median}${calls(lazy)}, confirmed ${lazy.ratioConfirmed.median}, v1 ${lazy.ratioV1.median}; `
					: 'lazy acquire not measured; ') +
				`default settings: trigger v2/Webhook executions per second ${trigger.ratio.median}${calls(trigger)}` +
				(trigger.ratioConfirmed ? `, confirmed ${trigger.ratioConfirmed.median}, v1 ${trigger.ratioV1.median}` : '') +
				(legacy
					? `; with N8N_EXPRESSION_ENGINE=legacy ${legacy.ratio.median} (${legacy.executionsPerSecond.trigger.median} vs ${legacy.executionsPerSecond.plainWebhook.median}/s)`
					: '') +
				(diagnostics.triggerIsolatePoolOf2 ? `; with N8N_EXPRESSION_ENGINE_POOL_SIZE=2 ${diagnostics.triggerIsolatePoolOf2.ratio.median}` : ''),
		});
	}
	const legacyBatch = diagnostics.batchLegacyExpressionEngine;
	if (legacyBatch) {
		for (const check of checks.filter((c) => c.name.startsWith('batch'))) {
			check.detail += `; with N8N_EXPRESSION_ENGINE=legacy node/HTTP Request ${legacyBatch.ratios.nodeVsHttpRequest.median}, node/undici ${legacyBatch.ratios.nodeTimeVsUndici.median}, HTTP Request/undici ${legacyBatch.ratios.httpRequestTimeVsUndici.median}`;
		}
	}
	return checks;
}

/** Every figure (an object with `median` and `runs`) by its path. */
function figures(value: unknown, path = ''): Map<string, { median: number; unit: string }> {
	const found = new Map<string, { median: number; unit: string }>();
	if (!value || typeof value !== 'object') return found;
	const v = value as Record<string, unknown>;
	if (typeof v.median === 'number' && Array.isArray(v.runs)) {
		found.set(path, { median: v.median, unit: String(v.unit ?? '') });
		return found;
	}
	for (const [key, inner] of Object.entries(v)) for (const [p, f] of figures(inner, path ? `${path}.${key}` : key)) found.set(p, f);
	return found;
}

export function compareWithPrevious(previous: Record<string, unknown>, current: Record<string, unknown>): string[] {
	const before = figures(previous.results);
	const lines: string[] = [];
	for (const [path, now] of figures(current.results)) {
		const was = before.get(path);
		if (!was) continue;
		const change = was.median === 0 ? '' : ` (${now.median >= was.median ? '+' : ''}${(((now.median - was.median) / Math.abs(was.median)) * 100).toFixed(0)}%)`;
		lines.push(`${path}: ${was.median} → ${now.median} ${now.unit}${change}`);
	}
	const sizes = ['orders', 'listed', 'deliveries', 'concurrency', 'runs'] as const;
	const cfgBefore = previous.config as Record<string, unknown> | undefined;
	const cfgNow = current.config as Record<string, unknown>;
	const differ = sizes.filter((k) => cfgBefore && cfgBefore[k] !== cfgNow[k]);
	if (differ.length)
		lines.unshift(`note: sizes differ from the previous run (${differ.map((k) => `${k} ${String(cfgBefore?.[k])} → ${String(cfgNow[k])}`).join(', ')})`);
	return lines;
}
