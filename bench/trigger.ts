/**
 * 3. Trigger throughput: signed payment_order deliveries per second that become executions (counted
 * in n8n's SQLite), against n8n's plain Webhook node receiving the same bodies and headers, in the
 * same running n8n. The deliveries are signed here with the secret each trigger stored at
 * registration, so every contender gets the same load from the same generator.
 *
 * Contenders: the trigger v2 (new nodes' default), the same with "Confirm Events With the API" on,
 * the trigger v1 (saved workflows), and the plain Webhook. Each is measured under n8n's default
 * settings and again with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, with the engine calls and the
 * isolates n8n counted per delivery (its /metrics), so that the comparison shows its own fairness:
 * n8n lets only its own Webhook node skip the webhook-phase isolate (n8n/dist/webhooks/live-webhooks.js).
 * The n8n process's CPU time per delivery is printed beside each throughput: on a shared machine it
 * moves far less than a rate does.
 */
import { Agent, request } from 'undici';

import { sleep } from '../harness/n8nProcess';
import { triggerSecret } from '../harness/secrets';
import { signatureHeader } from '../nodes/shared/signature';
import type { BenchContext } from './context';
import { countExecutions, pool, waitForCount } from './lib/http';
import { countIn } from './lib/metrics';
import { cpuMs, findN8nPid } from './lib/proc';
import { figure, median, show, type Figure } from './lib/stats';
import { IDS, PLAIN_PATH, TRIGGER_CONTENDERS, type TriggerContender } from './workflows';
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';

type Contender = TriggerContender | 'plainWebhook';
const TRIGGER_ORDER: TriggerContender[] = ['trigger', 'triggerConfirmed', 'triggerV1'];
const CONTENDERS: Contender[] = [...TRIGGER_ORDER, 'plainWebhook'];
const LABELS: Record<Contender, string> = {
	trigger: 'Clearinghouse Trigger v2 (verified)',
	triggerConfirmed: 'Clearinghouse Trigger v2, confirmed with the API',
	triggerV1: 'Clearinghouse Trigger v1 (verified)',
	plainWebhook: 'plain Webhook (verifies nothing)',
};

/** One setting of n8n (default, or with lazy isolate acquisition). */
export interface TriggerSettingResult {
	/** Deliveries ÷ time from the first send until the last execution is in the database. */
	executionsPerSecond: Record<Contender, Figure>;
	/** Deliveries ÷ time until the last HTTP answer (n8n answers before the run ends). */
	acceptedPerSecond: Record<Contender, Figure>;
	/** Trigger v2 (confirmation off) ÷ the mean of the plain Webhook's runs just before and after it, by round. */
	ratio: Figure;
	ratioConfirmed: Figure;
	ratioV1: Figure;
	/** Expression-engine calls per delivery (webhook phase and run), median over runs; undefined when n8n does not count (legacy engine). */
	engineCallsPerDelivery: Record<Contender, number | undefined>;
	/** Isolates n8n took from its pool per delivery (each built fresh: the dominant cost). */
	isolatesPerDelivery: Record<Contender, number | undefined>;
	/** CPU time of the n8n process per delivery (all its threads, isolates included), median over runs. */
	cpuMsPerDelivery?: Record<Contender, number | undefined>;
}

export interface TriggerResult extends TriggerSettingResult {
	deliveries: number;
	concurrency: number;
	bodyBytes: number;
	/** The same contenders with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (report.ts's target: trigger v2 ≥ 0.9× the plain Webhook there). */
	lazyAcquire?: TriggerSettingResult;
}

interface Delivery {
	body: string;
	headers: Record<string, string>;
}

const pathOf = (contender: Contender) => (contender === 'plainWebhook' ? PLAIN_PATH : `${TRIGGER_CONTENDERS[contender].webhookId}/webhook`);
const workflowOf = (contender: Contender) => (contender === 'plainWebhook' ? IDS.plainWebhook : TRIGGER_CONTENDERS[contender].id);

/**
 * Signed deliveries. A new made-up order each time: the trigger passes it (no duplicate, not stale,
 * a status event). For the confirmed contender the one real order, at new event ids, since
 * confirmation drops events for orders the account does not have.
 */
function deliveries(ctx: BenchContext, template: Record<string, unknown>, secret: string, tag: string, count: number, realOrder: boolean): Delivery[] {
	const t = Math.floor(Date.now() / 1000);
	return Array.from({ length: count }, (_, i) => {
		const id = `evt_${tag}_${i}_payment_order`;
		const order = realOrder ? template : { ...template, id: `bench-${tag}-${i}`, status: 'AWAITING_FUNDS', version: 1, inboundTransfers: [] };
		const body = JSON.stringify({
			id,
			type: 'payment_order',
			created: new Date().toISOString(),
			accountId: ctx.state.accountId,
			data: { payment_order: order },
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

/** n8n's running totals of engine calls and of isolates acquired (`/metrics`, N8N_METRICS=true). */
async function engineCounters(baseUrl: string): Promise<{ calls?: number; isolates?: number }> {
	const response = await fetch(`${baseUrl}/metrics`);
	if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status} (is N8N_METRICS=true set?)`);
	const text = await response.text();
	const acquired = text.split('\n').filter((line) => /^n8n_expression_pool_acquired_total(\{.*\})? /.test(line));
	return {
		calls: countIn(text),
		isolates: acquired.length ? acquired.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0) : undefined,
	};
}

interface RunResult {
	executionsPerSecond: number;
	acceptedPerSecond: number;
	engineCalls?: number;
	isolates?: number;
	cpuMs?: number;
}

async function run(ctx: BenchContext, contender: Contender, batch: Delivery[], pid: number | undefined): Promise<RunResult> {
	const url = ctx.n8n.webhookUrl(pathOf(contender));
	const workflowId = workflowOf(contender);
	const db = `${ctx.n8n.userFolder}/.n8n/database.sqlite`;
	const before = countExecutions(db, workflowId);
	const countersBefore = await engineCounters(ctx.n8n.baseUrl);
	const cpuBefore = pid === undefined ? undefined : cpuMs(pid);
	const agent = new Agent({ connections: ctx.config.deliveryConcurrency });
	const refused: string[] = [];
	const started = performance.now();
	await pool(batch.length, ctx.config.deliveryConcurrency, async (i) => {
		const response = await request(url, { method: 'POST', dispatcher: agent, headers: batch[i].headers, body: batch[i].body });
		const text = await response.body.text();
		if (response.statusCode !== 200 || text.includes('"ignored"')) refused.push(`${response.statusCode} ${text.slice(0, 120)}`);
	});
	const accepted = performance.now();
	await agent.close();
	if (refused.length > 0) throw new Error(`${contender}: ${refused.length} deliveries were not run, e.g. ${refused[0]}`);
	const done = await waitForCount(() => countExecutions(db, workflowId).done - before.done, batch.length, 300_000);
	const failed = countExecutions(db, workflowId).failed - before.failed;
	if (failed > 0) throw new Error(`${contender}: ${failed} executions failed`);
	const cpuAfter = pid === undefined ? undefined : cpuMs(pid);
	const countersAfter = await engineCounters(ctx.n8n.baseUrl);
	const per = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : (b - a) / batch.length);
	return {
		executionsPerSecond: (batch.length / (done - started)) * 1000,
		acceptedPerSecond: (batch.length / (accepted - started)) * 1000,
		engineCalls: per(countersBefore.calls, countersAfter.calls),
		isolates: per(countersBefore.isolates, countersAfter.isolates),
		cpuMs: per(cpuBefore, cpuAfter),
	};
}

/** Every trigger contender published (create() registers its endpoint), and the secret each stored. */
async function publishTriggers(ctx: BenchContext): Promise<Record<TriggerContender, string>> {
	const secrets = {} as Record<TriggerContender, string>;
	for (const [name, c] of Object.entries(TRIGGER_CONTENDERS) as Array<[TriggerContender, (typeof TRIGGER_CONTENDERS)[TriggerContender]]>) {
		const path = `${c.webhookId}/webhook`;
		if (!(await ctx.n8n.webhookLive(path))) await ctx.n8n.publish(c.id);
		await ctx.n8n.waitForWebhook(path);
		let secret: string | undefined;
		for (let i = 0; i < 120 && !secret; i++) {
			secret = triggerSecret(ctx.n8n.executions.staticData(c.id), { apiKey: ctx.sandbox.apiKey, workflowId: c.id, nodeId: `${c.id}-node-0` });
			if (!secret) await sleep(250);
		}
		if (!secret) throw new Error(`the trigger ${name} stored no endpoint secret`);
		secrets[name] = secret;
	}
	await ctx.n8n.waitForWebhook(PLAIN_PATH);
	return secrets;
}

/** Means of several runs' figures (the Webhook's runs around the contenders of one round). */
function meanOf(runs: RunResult[]): RunResult {
	const mean = (key: keyof RunResult) => {
		const values = runs.map((m) => m[key]);
		return values.some((v) => v === undefined) ? undefined : (values as number[]).reduce((a, b) => a + b, 0) / values.length;
	};
	return {
		executionsPerSecond: mean('executionsPerSecond') as number,
		acceptedPerSecond: mean('acceptedPerSecond') as number,
		engineCalls: mean('engineCalls'),
		isolates: mean('isolates'),
		cpuMs: mean('cpuMs'),
	};
}

async function measure(
	ctx: BenchContext,
	template: Record<string, unknown>,
	secrets: Record<TriggerContender, string>,
): Promise<TriggerSettingResult & { bodyBytes: number }> {
	const { runs, deliveries: count } = ctx.config;
	// Found again each time: a restart (the lazy-acquire setting) starts a new process.
	const pid = findN8nPid(ctx.n8n.root, 'start');
	const batchFor = (contender: Contender, tag: string, n: number) =>
		deliveries(ctx, template, secrets[contender === 'plainWebhook' ? 'trigger' : contender], tag, n, contender === 'triggerConfirmed');
	let bodyBytes = 0;
	const once = async (contender: Contender, tag: string): Promise<RunResult> => {
		const batch = batchFor(contender, `${contender}${Date.now().toString(36)}${tag}`, count);
		bodyBytes = Buffer.byteLength(batch[0].body);
		const m = await run(ctx, contender, batch, pid);
		ctx.log(
			`  run ${tag} ${contender.padEnd(16)} ${m.executionsPerSecond.toFixed(1)} executions/s (answered at ${m.acceptedPerSecond.toFixed(1)}/s), ` +
				`engine calls/delivery ${m.engineCalls?.toFixed(2) ?? 'n/a'}, isolates/delivery ${m.isolates?.toFixed(2) ?? 'n/a'}, ` +
				`n8n CPU ms/delivery ${m.cpuMs?.toFixed(1) ?? 'n/a'}`,
		);
		return m;
	};
	// 50 each: after a restart n8n's code is cold, and the first runs would otherwise pay for it.
	for (const contender of CONTENDERS) await run(ctx, contender, batchFor(contender, `warm${contender}${Date.now()}`, 50), pid);
	const results = Object.fromEntries(CONTENDERS.map((c) => [c, [] as RunResult[]])) as Record<Contender, RunResult[]>;
	const ratios = Object.fromEntries(TRIGGER_ORDER.map((c) => [c, [] as number[]])) as Record<TriggerContender, number[]>;
	for (let r = 0; r < runs; r++) {
		// The Webhook runs before and after every trigger contender, and each contender is compared
		// with the mean of the two runs around it: a machine that drifts (code warming up, a
		// neighbour's load, a growing database) moves both sides of each ratio alike. The order of
		// the contenders alternates, so that none always follows the same one.
		const order = r % 2 === 0 ? TRIGGER_ORDER : [...TRIGGER_ORDER].reverse();
		let before = await once('plainWebhook', `${r + 1}.0`);
		const webhookRuns = [before];
		for (const [i, contender] of order.entries()) {
			const m = await once(contender, `${r + 1}.${i + 1}`);
			const after = await once('plainWebhook', `${r + 1}.${i + 1}`);
			results[contender].push(m);
			ratios[contender].push(m.executionsPerSecond / ((before.executionsPerSecond + after.executionsPerSecond) / 2));
			webhookRuns.push(after);
			before = after;
		}
		results.plainWebhook.push(meanOf(webhookRuns));
	}
	const pick = <K extends keyof RunResult>(key: K, unit: string) =>
		Object.fromEntries(
			CONTENDERS.map((c) => [
				c,
				figure(
					results[c].map((m) => m[key] as number),
					unit,
				),
			]),
		) as Record<Contender, Figure>;
	const perDelivery = (key: 'engineCalls' | 'isolates' | 'cpuMs', digits = 2) =>
		Object.fromEntries(
			CONTENDERS.map((c) => {
				const values = results[c].map((m) => m[key]).filter((v): v is number => v !== undefined);
				return [c, values.length ? Number(median(values).toFixed(digits)) : undefined];
			}),
		) as Record<Contender, number | undefined>;
	return {
		executionsPerSecond: pick('executionsPerSecond', 'executions/s'),
		acceptedPerSecond: pick('acceptedPerSecond', 'deliveries/s'),
		ratio: figure(ratios.trigger, '×', 2),
		ratioConfirmed: figure(ratios.triggerConfirmed, '×', 2),
		ratioV1: figure(ratios.triggerV1, '×', 2),
		engineCallsPerDelivery: perDelivery('engineCalls'),
		isolatesPerDelivery: perDelivery('isolates'),
		cpuMsPerDelivery: perDelivery('cpuMs', 1),
		bodyBytes,
	};
}

function report(ctx: BenchContext, r: TriggerSettingResult, setting: string): void {
	for (const c of CONTENDERS) {
		ctx.log(
			`  ${LABELS[c]}: ${show(r.executionsPerSecond[c])}; engine calls/delivery ${r.engineCallsPerDelivery[c] ?? 'n/a'}, isolates/delivery ${r.isolatesPerDelivery[c] ?? 'n/a'}, n8n CPU ms/delivery ${r.cpuMsPerDelivery?.[c] ?? 'n/a'}`,
		);
	}
	ctx.log(`  ratio trigger v2/Webhook (${setting}): ${show(r.ratio)}; confirmed ${show(r.ratioConfirmed)}; v1 ${show(r.ratioV1)}`);
}

/** Restarts the running n8n with one environment variable set or removed, and waits for every contender's webhook. */
async function restartWith(ctx: BenchContext, name: string, value: string | undefined): Promise<void> {
	await ctx.n8n.stop();
	if (value === undefined) delete ctx.n8n.env[name];
	else ctx.n8n.env[name] = value;
	await ctx.n8n.start({ timeoutMs: 300_000 });
	for (const c of CONTENDERS) await ctx.n8n.waitForWebhook(pathOf(c));
}

const DEFAULT_LABEL = '3. Trigger throughput';

/**
 * The trigger section. Under its default label it also measures with lazy isolate acquisition (the
 * diagnostics that call it with their own settings do not).
 */
export async function benchTrigger(ctx: BenchContext, label = DEFAULT_LABEL): Promise<TriggerResult> {
	const { deliveries: count, deliveryConcurrency, runs } = ctx.config;
	ctx.log(`\n## ${label}: ${count} signed deliveries per run, ${deliveryConcurrency} in flight, ${runs} runs`);
	if (!ctx.n8n.running) await ctx.n8n.start({ timeoutMs: 300_000 });
	// Published into the running n8n, as a user does: create() registers the endpoint and stores its
	// secret. It stays published across restarts (n8n calls no webhook method then).
	const secrets = await publishTriggers(ctx);
	// A real order as the payload template (any order of the account will do; bulk orders send no webhooks).
	await ctx.operator.call('POST', 'payment-orders/bulk', { count: 1 });
	const { returns: _returns, ...template } =
		(await ctx.operator.api<{ paymentOrders: Array<Record<string, unknown>> }>('GET', `/payment-orders?limit=1&status=${PAYMENT_ORDER_STATUSES.join(',')}`))
			.paymentOrders[0] ?? {};
	if (!template.id) throw new Error('no payment order to use as a template');

	const { bodyBytes, ...byDefault } = await measure(ctx, template, secrets);
	report(ctx, byDefault, 'these settings');
	const result: TriggerResult = { deliveries: count, concurrency: deliveryConcurrency, bodyBytes, ...byDefault };
	if (label === DEFAULT_LABEL) {
		const lazyName = 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE';
		const previous = ctx.n8n.env[lazyName];
		ctx.log(`\n## ${label} with ${lazyName}=true`);
		await restartWith(ctx, lazyName, 'true');
		try {
			const { bodyBytes: _b, ...lazy } = await measure(ctx, template, secrets);
			report(ctx, lazy, 'lazy acquire');
			result.lazyAcquire = lazy;
		} finally {
			await restartWith(ctx, lazyName, previous);
		}
	}
	ctx.log(
		`  ratio trigger v2/Webhook: default settings ${show(result.ratio)}; lazy acquire ${result.lazyAcquire ? show(result.lazyAcquire.ratio) : 'not measured'} (target ≥ 0.9 with lazy acquire)`,
	);
	return result;
}

/** Unpublishes every trigger contender (their endpoints would receive the other sections' events). */
export async function unpublishTriggers(ctx: BenchContext): Promise<void> {
	for (const c of Object.values(TRIGGER_CONTENDERS)) await ctx.n8n.unpublish(c.id);
}
