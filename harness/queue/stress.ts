/**
 * The queue-mode stress run: signed payment_order events delivered the way the service delivers
 * them (at least once: retried after a non-2xx answer or a 10-second timeout, some delivered again
 * as replays, concurrently), to a workflow whose business step is a POST to a local receiver that
 * fails the first attempt for some events. Counted on both sides: the receiver's successful
 * business steps per event, and n8n's own executions in PostgreSQL. Used by the queue suite
 * (test/queue/) and bench/queue-stress.ts.
 */
import { randomBytes } from 'node:crypto';

import { nodeItems } from '../executions';
import { sleep } from '../n8nProcess';
import { Receiver } from '../receiver';
import { triggerSecret } from '../secrets';
import { nowSeconds, signatureHeader } from '../signer';
import { graph, TRIGGER_NODE, type CredentialRef } from '../workflows';
import type { QueueCluster } from './cluster';

export const STRESS_TRIGGER = 'Clearinghouse Trigger';
export const STRESS_STEP = 'Business step';

/**
 * Stands in for a ledger or payout system: `POST /business {eventId}`. Answers 500 to the first
 * attempt of the events in `failFirst`, 200 otherwise, and counts the successes per event.
 */
export class BusinessReceiver {
	readonly attempts = new Map<string, number>();
	readonly successes = new Map<string, number>();
	failFirst = new Set<string>();
	private readonly receiver = new Receiver();

	constructor() {
		this.receiver.respond = ({ body }) => {
			const eventId = String(body?.eventId ?? ''); // a body without one is counted under ''
			const attempt = (this.attempts.get(eventId) ?? 0) + 1;
			this.attempts.set(eventId, attempt);
			if (attempt === 1 && this.failFirst.has(eventId)) return 500;
			this.successes.set(eventId, (this.successes.get(eventId) ?? 0) + 1);
			return 200;
		};
	}

	get url(): string {
		return this.receiver.url;
	}

	async start(port: number): Promise<this> {
		await this.receiver.start(port);
		return this;
	}

	async close(): Promise<void> {
		await this.receiver.close();
	}
}

/** Trigger (acknowledging as given) → HTTP POST {eventId} to the receiver (the business step). */
export function stressWorkflow(id: string, webhookId: string, acknowledge: 'whenReceived' | 'whenFinished', receiverUrl: string, credential: CredentialRef) {
	return graph(
		id,
		`queue stress: acknowledge ${acknowledge}`,
		[
			// The events are about made-up orders: confirmation with the API (on by default) would drop them.
			{ name: STRESS_TRIGGER, type: TRIGGER_NODE, typeVersion: 2, webhookId, parameters: { options: { acknowledge, confirmWithApi: false } } },
			{
				name: STRESS_STEP,
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					method: 'POST',
					url: `${receiverUrl}/business`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify({ eventId: $json.eventId }) }}',
					options: {},
				},
			},
		],
		[[STRESS_TRIGGER, STRESS_STEP]],
		credential,
	);
}

export interface StressOptions {
	/** Where deliveries are sent (the hash or the round-robin nginx server, path included). */
	url: string;
	/** The trigger's endpoint secret. */
	secret: string;
	events: number;
	/** Share of events delivered a second time (a replay), half of them at the same instant. */
	repeatShare: number;
	/** Share of events whose business step fails on its first attempt. */
	failShare: number;
	/** Deliveries in flight at once. */
	concurrency: number;
	/** The service's per-attempt timeout (10 s) and its backoff, shortened so a run takes minutes. */
	attemptTimeoutMs?: number;
	firstBackoffMs?: number;
	maxBackoffMs?: number;
	maxAttempts?: number;
}

export interface DeliveryOutcome {
	eventId: string;
	statuses: number[];
	delivered: boolean;
}

export interface StressFigures {
	events: number;
	deliveries: number;
	repeated: number;
	failingFirst: number;
	/** Events failing their first business attempt whose business step was attempted again. */
	retriedAfterFailure: number;
	attempts: number;
	answers: Record<string, number>;
	undelivered: number;
	executions: number;
	/** Events whose business step never succeeded, per the receiver. */
	lost: number;
	/** Events whose business step succeeded more than once, per the receiver. */
	doubled: number;
	/** The same two, counted from n8n's executions (runs whose business step succeeded). */
	lostInN8n: number;
	doubledInN8n: number;
	lostIds: string[];
	doubledIds: string[];
	/** For each doubled event, its executions (id, status): how it came to run twice. */
	doubledRuns: Record<string, Array<{ id: number; status: string; step: boolean }>>;
	seconds: number;
}

/** One delivery the way the service makes it: attempts until a 2xx, each with a timeout, backing off. */
async function deliver(
	url: string,
	secret: string,
	eventId: string,
	body: string,
	o: Required<Pick<StressOptions, 'attemptTimeoutMs' | 'firstBackoffMs' | 'maxBackoffMs' | 'maxAttempts'>>,
): Promise<DeliveryOutcome> {
	const deliveryId = `dlv_${randomBytes(8).toString('hex')}`;
	const statuses: number[] = [];
	let backoff = o.firstBackoffMs;
	for (let attempt = 1; attempt <= o.maxAttempts; attempt++) {
		let status = 0;
		try {
			const response = await fetch(url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-webhook-id': eventId,
					'x-service-webhook-delivery-id': deliveryId,
					'x-service-event': 'payment_order',
					'x-service-webhook-signature': signatureHeader(secret, nowSeconds(), body),
				},
				body,
				signal: AbortSignal.timeout(o.attemptTimeoutMs),
			});
			await response.arrayBuffer();
			status = response.status;
		} catch {
			status = 0; // timeout or connection error
		}
		statuses.push(status);
		if (status >= 200 && status < 300) return { eventId, statuses, delivered: true };
		await sleep(backoff);
		backoff = Math.min(backoff * 2, o.maxBackoffMs);
	}
	return { eventId, statuses, delivered: false };
}

/** Runs `tasks` with at most `limit` at once. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(limit, tasks.length) }, async () => {
			while (next < tasks.length) {
				const index = next++;
				results[index] = await tasks[index]();
			}
		}),
	);
	return results;
}

/** A fresh signed-able payment_order event about an order of its own (no stale filtering between them). */
function event(run: string, index: number) {
	const id = `evt_${randomBytes(8).toString('hex')}_payment_order`;
	const order = { id: `po_stress_${run}_${index}`, status: 'FUNDED', version: 2, amountUsd: 10 + (index % 50), asset: 'USDC', inboundTransfers: [] };
	return {
		id,
		body: JSON.stringify({ id, type: 'payment_order', created: new Date().toISOString(), accountId: 'acct_stress', data: { payment_order: order } }),
	};
}

/** Waits until every execution of the workflow has ended (condition-based, generous bound). */
export async function settled(cluster: QueueCluster, workflowId: string, timeoutMs = 300_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let quietSince = 0;
	let lastCount = -1;
	for (;;) {
		const all = cluster.store.list(workflowId);
		const open = all.filter((e) => ['new', 'running', 'waiting'].includes(e.status) || !e.stoppedAt).length;
		// Ended, and no new execution for 3 s (a delivery answered 2xx has its execution row already).
		if (open === 0 && all.length === lastCount) {
			if (Date.now() - quietSince >= 3_000) return;
		} else {
			quietSince = Date.now();
		}
		lastCount = all.length;
		if (Date.now() > deadline) throw new Error(`workflow ${workflowId}: ${open} executions still open after ${timeoutMs} ms`);
		await sleep(500);
	}
}

/** One stress run against a published stress workflow; the receiver is shared and reset here. */
export async function runStress(cluster: QueueCluster, workflowId: string, receiver: BusinessReceiver, options: StressOptions): Promise<StressFigures> {
	const o = { attemptTimeoutMs: 10_000, firstBackoffMs: 1_000, maxBackoffMs: 8_000, maxAttempts: 15, ...options };
	const run = randomBytes(3).toString('hex');
	const events = Array.from({ length: o.events }, (_, i) => event(run, i));
	// Deterministic choice of which events repeat and which fail first: every k-th.
	const every = (share: number) => (share > 0 ? Math.max(1, Math.round(1 / share)) : Infinity);
	const repeated = events.filter((_, i) => i % every(o.repeatShare) === 0);
	const failing = events.filter((_, i) => i % every(o.failShare) === 1);
	receiver.attempts.clear();
	receiver.successes.clear();
	receiver.failFirst = new Set(failing.map((e) => e.id));
	const before = Math.max(0, ...cluster.store.list(workflowId).map((e) => e.id));

	const started = Date.now();
	const tasks: Array<() => Promise<DeliveryOutcome[]>> = [];
	events.forEach((e, i) => {
		const once = () => deliver(o.url, o.secret, e.id, e.body, o);
		if (!repeated.includes(e)) {
			tasks.push(async () => [await once()]);
			return;
		}
		// A replay: half at the same instant as the first delivery, half a little later.
		const delay = (i / every(o.repeatShare)) % 2 === 0 ? 0 : 500 + (i % 7) * 400;
		tasks.push(() => Promise.all([once(), sleep(delay).then(once)]));
	});
	const outcomes = (await pool(tasks, o.concurrency)).flat();
	await settled(cluster, workflowId);
	const seconds = (Date.now() - started) / 1000;

	const answers: Record<string, number> = {};
	for (const outcome of outcomes) for (const s of outcome.statuses) answers[s] = (answers[s] ?? 0) + 1;
	const executions = cluster.store.list(workflowId).filter((e) => e.id > before);
	const succeededInN8n = new Map<string, number>();
	for (const e of executions) {
		const step = e.data.resultData.runData[STRESS_STEP];
		if (!step || step.some((r) => r.error) || !e.data.resultData.runData[STRESS_TRIGGER]) continue;
		for (const item of nodeItems(e.data, STRESS_TRIGGER)) succeededInN8n.set(String(item.eventId), (succeededInN8n.get(String(item.eventId)) ?? 0) + 1);
	}
	const ids = events.map((e) => e.id);
	const lostIds = ids.filter((id) => (receiver.successes.get(id) ?? 0) === 0);
	const doubledIds = ids.filter((id) => (receiver.successes.get(id) ?? 0) > 1);
	return {
		events: o.events,
		deliveries: o.events + repeated.length,
		repeated: repeated.length,
		failingFirst: failing.length,
		retriedAfterFailure: failing.filter((e) => (receiver.attempts.get(e.id) ?? 0) >= 2).length,
		attempts: Object.values(answers).reduce((a, b) => a + b, 0),
		answers,
		undelivered: outcomes.filter((x) => !x.delivered).length,
		executions: executions.length,
		lost: lostIds.length,
		doubled: doubledIds.length,
		lostInN8n: ids.filter((id) => (succeededInN8n.get(id) ?? 0) === 0).length,
		doubledInN8n: ids.filter((id) => (succeededInN8n.get(id) ?? 0) > 1).length,
		lostIds,
		doubledIds,
		doubledRuns: Object.fromEntries(
			doubledIds.map((id) => [
				id,
				executions
					.filter((e) => e.data.resultData.runData[STRESS_TRIGGER] && nodeItems(e.data, STRESS_TRIGGER).some((i) => i.eventId === id))
					.map((e) => ({ id: e.id, status: e.status, step: Boolean(e.data.resultData.runData[STRESS_STEP]?.every((r) => !r.error)) })),
			]),
		),
		seconds: Number(seconds.toFixed(1)),
	};
}

/** The stress trigger's endpoint secret, opened from its sealed static data with the API key. */
export function stressSecret(cluster: QueueCluster, workflowId: string, apiKey: string): string {
	const secret = triggerSecret(cluster.store.staticData(workflowId), { apiKey, workflowId, nodeId: `${workflowId}-node-0` });
	if (!secret) throw new Error(`no endpoint secret in the static data of ${workflowId}`);
	return secret;
}
