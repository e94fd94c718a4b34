/** Operator API, the overview: what the browser console (../console/) shows, in words (./words.ts). */
import type { Router } from '../router';
import type { Services } from '../services';
import { AUTO_DISABLE_AFTER } from '../webhooks';
import { ok, type OperatorState } from './shared';
import { attemptSays, deliveryView, endpointName, nettingView, surplusView } from './words';

/** Why an endpoint is DISABLED, for the console: the service's auto-disable (with the last failure) or a PATCH. */
function disabledReason(
	e: { id: string; status: string; consecutiveFailures: number },
	deliveries: Array<{ endpointId: string; status: string; lastError: string | null }>,
): string | null {
	if (e.status !== 'DISABLED') return null;
	if (e.consecutiveFailures < AUTO_DISABLE_AFTER) return 'disabled through the API (PATCH status DISABLED)';
	let last: string | null = null;
	for (let i = deliveries.length - 1; i >= 0 && last === null; i--) {
		const d = deliveries[i];
		if (d.endpointId === e.id && d.status === 'FAILED') last = d.lastError;
	}
	return `auto-disabled after ${e.consecutiveFailures} consecutive failed deliveries${last ? ` (last: ${last})` : ''}; new events are SKIPPED until it is re-enabled`;
}

export function registerOverview(r: Router, svc: Services, state: OperatorState): void {
	const { core, engine, webhooks, traffic } = svc;

	// What the browser console (sandbox/console/) shows: newest first, bounded, never a secret.
	r.add(
		'GET',
		'/sandbox/overview',
		() => {
			const newest = <T>(list: T[], n: number) => list.slice(-n).reverse();
			const timeoutMs = webhooks.attemptTimeoutMs();
			const at = (ms: number) => core.iso(ms);
			return ok({
				epoch: core.data.epoch,
				lastNetting: state.lastNetting,
				orders: newest(core.data.orders, 100).map((o) => {
					const surplus = surplusView(o, engine);
					return {
						id: o.id,
						memo: o.memo,
						amountUsd: o.amountUsd,
						asset: o.asset,
						toChain: o.toChain,
						toAddress: o.toAddress,
						status: o.status,
						receivedTotal: o.receivedTotal,
						createdAt: o.createdAt,
						accountId: o.internal.accountId,
						surplusUsd: surplus?.surplusUsd ?? null,
						surplus: surplus?.says ?? null,
						netting: nettingView(o, core.data.epoch),
					};
				}),
				endpoints: core.data.endpoints
					.filter((e) => !e.deletedAt)
					.map((e) => ({
						id: e.id,
						url: e.url,
						description: e.description,
						name: endpointName(e),
						status: e.status,
						consecutiveFailures: e.consecutiveFailures,
						disabledAt: e.disabledAt,
						disabledReason: disabledReason(e, core.data.deliveries),
					})),
				deliveries: newest(core.data.deliveries, 100).map((d) => {
					let order: { id?: string; status?: string; memo?: string | null; version?: number } | undefined;
					try {
						order = (JSON.parse(d.rawBody) as { data?: { payment_order?: typeof order } }).data?.payment_order;
					} catch {
						// not an order event
					}
					return {
						id: d.id,
						endpointId: d.endpointId,
						type: d.publicEventType,
						status: d.status,
						attempts: d.attempts.length,
						lastStatusCode: d.lastStatusCode,
						orderStatus: order?.status ?? null,
						orderId: order?.id ?? null,
						memo: order?.memo ?? null,
						replayOf: d.replayOf ?? null,
						createdAt: d.createdAt,
						...deliveryView(d, timeoutMs, at),
						// The last ten answers, oldest first (what keptAnswer kept of each: a few JSON fields, or null).
						answers: d.attempts.slice(-10).map((a) => ({
							attempt: a.attempt,
							at: a.startedAt,
							statusCode: a.statusCode,
							error: a.error,
							durationMs: a.durationMs,
							body: a.responseSnippet,
							says: attemptSays(a, timeoutMs),
						})),
					};
				}),
				outbox: newest(state.outbox, 50),
				faults: traffic.faults.map((f) => ({ ...f, path: f.pathSource })),
			});
		},
		false,
	);
}
