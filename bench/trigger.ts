/**
 * 3. Trigger throughput: signed payment_order deliveries per second that become executions (counted
 * in n8n's SQLite), against n8n's plain Webhook node receiving the same bodies and headers, in the
 * same running n8n. The deliveries are signed here with the secret the trigger stored at
 * registration, so both contenders get the same load from the same generator.
 */
import { Agent, request } from 'undici';

import { sleep } from '../test/e2e/lib/n8n';
import { triggerSecret } from '../test/e2e/lib/secrets';
import { signatureHeader } from '../nodes/shared/signature';
import type { BenchContext } from './context';
import { countExecutions, pool, waitForCount } from './lib/http';
import { figure, pairedRatio, show, type Figure } from './lib/stats';
import { IDS, PLAIN_PATH, TRIGGER_PATH } from './workflows';
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';

type Contender = 'trigger' | 'plainWebhook';

export interface TriggerResult {
	deliveries: number;
	concurrency: number;
	/** Deliveries ÷ time from the first send until the last execution is in the database. */
	executionsPerSecond: Record<Contender, Figure>;
	/** Deliveries ÷ time until the last HTTP answer (n8n answers before the run ends). */
	acceptedPerSecond: Record<Contender, Figure>;
	ratio: Figure;
	bodyBytes: number;
}

interface Delivery {
	body: string;
	headers: Record<string, string>;
}

function deliveries(ctx: BenchContext, template: Record<string, unknown>, secret: string, tag: string, count: number): Delivery[] {
	const t = Math.floor(Date.now() / 1000);
	return Array.from({ length: count }, (_, i) => {
		// A new order each time: the trigger passes it (no duplicate, not stale, a status event).
		const id = `evt_${tag}_${i}_payment_order`;
		const body = JSON.stringify({
			id,
			type: 'payment_order',
			created: new Date().toISOString(),
			accountId: ctx.state.accountId,
			data: { payment_order: { ...template, id: `bench-${tag}-${i}`, status: 'AWAITING_FUNDS', version: 1, inboundTransfers: [] } },
		});
		return {
			body,
			headers: {
				'content-type': 'application/json',
				'x-service-webhook-id': id,
				'x-service-event': 'payment_order',
				'x-service-webhook-signature': signatureHeader([secret], t, body),
			},
		};
	});
}

async function run(ctx: BenchContext, contender: Contender, batch: Delivery[]): Promise<{ executionsPerSecond: number; acceptedPerSecond: number }> {
	const url = ctx.n8n.webhookUrl(contender === 'trigger' ? TRIGGER_PATH : PLAIN_PATH);
	const workflowId = contender === 'trigger' ? IDS.trigger : IDS.plainWebhook;
	const db = `${ctx.n8n.userFolder}/.n8n/database.sqlite`;
	const before = countExecutions(db, workflowId);
	const agent = new Agent({ connections: ctx.config.deliveryConcurrency });
	let rejected = 0;
	const started = performance.now();
	await pool(batch.length, ctx.config.deliveryConcurrency, async (i) => {
		const response = await request(url, { method: 'POST', dispatcher: agent, headers: batch[i].headers, body: batch[i].body });
		await response.body.text();
		if (response.statusCode !== 200) rejected++;
	});
	const accepted = performance.now();
	await agent.close();
	if (rejected > 0) throw new Error(`${contender}: ${rejected} deliveries were not answered 200`);
	const done = await waitForCount(() => countExecutions(db, workflowId).done - before.done, batch.length, 300_000);
	const failed = countExecutions(db, workflowId).failed - before.failed;
	if (failed > 0) throw new Error(`${contender}: ${failed} executions failed`);
	return { executionsPerSecond: (batch.length / (done - started)) * 1000, acceptedPerSecond: (batch.length / (accepted - started)) * 1000 };
}

export async function benchTrigger(ctx: BenchContext, label = '3. Trigger throughput'): Promise<TriggerResult> {
	const { runs, deliveries: count, deliveryConcurrency } = ctx.config;
	ctx.log(`\n## ${label}: ${count} signed deliveries per run, ${deliveryConcurrency} in flight, ${runs} runs`);
	if (!ctx.n8n.running) {
		await ctx.n8n.start();
	}
	// Published into the running n8n, as a user does: create() registers the endpoint and stores its
	// secret. It stays published across restarts (n8n calls no webhook method then).
	if (!(await ctx.n8n.webhookLive(TRIGGER_PATH))) await ctx.n8n.publish(IDS.trigger);
	await ctx.n8n.waitForWebhook(TRIGGER_PATH);
	await ctx.n8n.waitForWebhook(PLAIN_PATH);
	let secret: string | undefined;
	for (let i = 0; i < 80 && !secret; i++) {
		secret = triggerSecret(ctx.n8n.executions.staticData(IDS.trigger), { apiKey: ctx.sandbox.apiKey, workflowId: IDS.trigger, nodeId: `${IDS.trigger}-node-0` });
		if (!secret) await sleep(250);
	}
	if (!secret) throw new Error('the trigger stored no endpoint secret');
	// A real order as the payload template (any order of the account will do; bulk orders send no webhooks).
	await ctx.operator.call('POST', 'payment-orders/bulk', { count: 1 });
	const template = (await ctx.operator.api<{ paymentOrders: Array<Record<string, unknown>> }>('GET', `/payment-orders?limit=1&status=${PAYMENT_ORDER_STATUSES.join(',')}`)).paymentOrders[0];
	if (!template) throw new Error('no payment order to use as a template');

	for (const contender of ['trigger', 'plainWebhook'] as const) await run(ctx, contender, deliveries(ctx, template, secret, `warm${contender}${Date.now()}`, 20));
	const eps: Record<Contender, number[]> = { trigger: [], plainWebhook: [] };
	const aps: Record<Contender, number[]> = { trigger: [], plainWebhook: [] };
	let bodyBytes = 0;
	for (let r = 0; r < runs; r++) {
		const order: Contender[] = r % 2 === 0 ? ['trigger', 'plainWebhook'] : ['plainWebhook', 'trigger'];
		for (const contender of order) {
			const batch = deliveries(ctx, template, secret, `${contender}${Date.now().toString(36)}r${r}`, count);
			bodyBytes = Buffer.byteLength(batch[0].body);
			const m = await run(ctx, contender, batch);
			eps[contender].push(m.executionsPerSecond);
			aps[contender].push(m.acceptedPerSecond);
			ctx.log(`  run ${r + 1} ${contender.padEnd(12)} ${m.executionsPerSecond.toFixed(1)} executions/s (answered at ${m.acceptedPerSecond.toFixed(1)}/s)`);
		}
	}
	const result: TriggerResult = {
		deliveries: count,
		concurrency: deliveryConcurrency,
		executionsPerSecond: { trigger: figure(eps.trigger, 'executions/s'), plainWebhook: figure(eps.plainWebhook, 'executions/s') },
		acceptedPerSecond: { trigger: figure(aps.trigger, 'deliveries/s'), plainWebhook: figure(aps.plainWebhook, 'deliveries/s') },
		ratio: pairedRatio(eps.trigger, eps.plainWebhook),
		bodyBytes,
	};
	ctx.log(`  Clearinghouse Trigger (verified): ${show(result.executionsPerSecond.trigger)}`);
	ctx.log(`  plain Webhook (verifies nothing): ${show(result.executionsPerSecond.plainWebhook)}`);
	ctx.log(`  ratio trigger/Webhook: ${show(result.ratio)} target ≥ 0.9`);
	return result;
}
