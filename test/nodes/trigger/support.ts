/**
 * Test support for the trigger: the sandbox; a local stand-in for n8n's webhook server that hands
 * each delivery to the node's real webhook() (harness/inProcessTrigger.ts: n8n-core's WebhookContext
 * and what n8n does around it); hook contexts for the lifecycle methods with a webhook base URL the
 * sandbox can deliver to.
 */
import type { HookContext } from 'n8n-core';
import type { INodeExecutionData } from 'n8n-workflow';

import { deliver, hook as lifecycleContext, N8nStaticData, trigger, type Outcome, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import { Receiver } from '../../../harness/receiver';
import { setRetireGrace } from '../../../nodes/ClearinghouseTrigger/publish';
import { setLeaseSettleMs } from '../../../nodes/shared/endpointRecovery';
import { startSandbox } from '../../../harness/sandbox';
import { waitFor } from '../../../harness/wait';
import type { SandboxOptions } from '../../../sandbox/server';
import { AUTO_DISABLE_AFTER } from '../../../sandbox/webhooks';
import { fixture } from '../../support/fixture';
import { SandboxClient, userOf, walletOf, type LoggedRequest } from '../../../harness/sandboxClient';

// delete() deletes at once in these tests, as before its grace period (activation.test.ts tests the grace).
setRetireGrace(0);
// A recovery reads its lease marker back 2 s after writing it, so that another process's recovery writing its
// own at the same moment is seen. Where a test runs one recovery at a time there is no other writer to wait
// for: it reads back after 100 ms (the same requests). The tests of two recoveries at once (recovery.test.ts)
// set 1 s.
setLeaseSettleMs(100);

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** The trigger tests' sandbox: deliveries to loopback allowed, time 50 times faster unless `options` say otherwise. */
export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	// timeScale speeds up the sandbox's own timers (deposit steps) only; signatures use real time.
	// The attempt timeout stays at 5 s (10 s ÷ 50 would be the 250 ms floor), so that a receiver slowed
	// by a loaded machine is not taken for a timeout and sent the delivery again.
	return await startSandbox({ allowLoopbackWebhooks: true, timeScale: 50, attemptTimeoutMs: 5_000, ...options });
}

/** The public main API with the sandbox key: status and body, whatever the status. */
export async function api(sb: Sandbox, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
	return await new SandboxClient(sb).main.req(method, path, body);
}

/** The operator API; throws unless 2xx. */
export async function operator(sb: Sandbox, method: string, path: string, body?: unknown): Promise<any> {
	return await new SandboxClient(sb).call(method, path, body);
}

/** Live endpoints of the sandbox account at a URL. */
export async function endpointsAt(sb: Sandbox, url: string): Promise<any[]> {
	const { body } = await api(sb, 'GET', '/webhooks/endpoints');
	return (body.endpoints as any[]).filter((e) => e.url === url);
}

/** Requests the sandbox's main API received since `since` (seq), e.g. to read a registration body. */
export async function requestsSince(sb: Sandbox, since = 0): Promise<LoggedRequest[]> {
	return await new SandboxClient(sb).requests(since);
}

/**
 * A local stand-in for n8n's webhook server (harness/receiver.ts underneath): the sandbox delivers
 * to it over HTTP, and it hands the exact bytes and headers to deliver() for the trigger served at
 * that path (404 for any other). Every outcome is kept, in order.
 */
export class WebhookServer {
	base = '';
	outcomes: Array<Outcome & { headers: Record<string, string>; rawBody: Buffer; path: string }> = [];
	private readonly receiver = new Receiver();
	private readonly triggers = new Map<string, TriggerUnderTest>();

	constructor(private readonly sb: Sandbox) {
		this.receiver.respond = async ({ path, headers: incoming, bytes: rawBody }) => {
			const t = this.triggers.get(path);
			if (!t) return { status: 404 };
			const headers = Object.fromEntries(Object.entries(incoming).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
			const outcome = await deliver(this.sb, t, headers, rawBody);
			this.outcomes.push({ ...outcome, headers, rawBody, path });
			return { status: outcome.status, body: outcome.body };
		};
	}

	async start(): Promise<this> {
		await this.receiver.start();
		this.base = this.receiver.url;
		return this;
	}

	/** The URL n8n would give this trigger (production `/webhook/…` or test `/webhook-test/…`). */
	urlOf(t: TriggerUnderTest): string {
		return `${this.base}/${t.mode === 'manual' ? 'webhook-test' : 'webhook'}/wh-${t.workflowId}/webhook`;
	}

	serve(t: TriggerUnderTest): void {
		this.triggers.set(new URL(this.urlOf(t)).pathname, t);
	}

	/** As if n8n were down for this trigger: its URL answers 404. */
	unserve(t: TriggerUnderTest): void {
		this.triggers.delete(new URL(this.urlOf(t)).pathname);
	}

	async close(): Promise<void> {
		await this.receiver.close();
	}

	emitted(): INodeExecutionData[] {
		return this.outcomes.flatMap((o) => o.items ?? []);
	}
}

/** The file's sandbox (sandbox(options)) and webhook server: started before its tests, closed after them. */
export function useTriggerSandbox(options: SandboxOptions = {}): { sb: Sandbox; receiver: WebhookServer } {
	const sb = fixture(
		() => sandbox(options),
		(started) => started.close(),
	);
	const receiver = fixture(
		() => new WebhookServer(sb).start(),
		(started) => started.close(),
	);
	return { sb, receiver };
}

/** n8n-core's HookContext for the trigger, its webhook URLs pointing at the server. */
export function hook(sb: Sandbox, server: WebhookServer, t: TriggerUnderTest, mode?: 'internal'): HookContext {
	return lifecycleContext(sb, server.base, t, mode);
}

/** n8n's createWebhookIfNotExists: checkExists, then create when it says false. */
export async function activate(sb: Sandbox, server: WebhookServer, t: TriggerUnderTest): Promise<'kept' | 'created'> {
	const exists = await trigger.webhookMethods.default.checkExists.call(hook(sb, server, t));
	if (exists) return 'kept';
	await trigger.webhookMethods.default.create.call(hook(sb, server, t));
	return 'created';
}

export async function deactivate(sb: Sandbox, server: WebhookServer, t: TriggerUnderTest): Promise<boolean> {
	// As n8n deregisters (webhook.service.js deleteWebhook: mode 'internal', activation 'update').
	return await trigger.webhookMethods.default.delete.call(hook(sb, server, t, 'internal'));
}

/** A payment order from alice to bob; `expiresInMs` of service time (compressed by the sandbox's timeScale). */
export async function newOrder(sb: Sandbox, amountUsd = 10, expiresInMs = 86400_000): Promise<any> {
	const state = await operator(sb, 'GET', 'state');
	const res = await api(sb, 'POST', '/payment', {
		fromUserId: userOf(state, 'alice').id,
		toAddress: walletOf(userOf(state, 'bob'), 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd,
		expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
		idempotencyKey: `trigger-test-${Math.random()}`,
	});
	if (res.status >= 300) throw new Error(`payment: ${res.status} ${JSON.stringify(res.body)}`);
	return res.body.paymentOrder;
}

/** Sends a deposit from alice to the order and submits its hash; returns the hash. */
export async function deposit(sb: Sandbox, orderId: string, amountUsd: number): Promise<string> {
	return await new SandboxClient(sb).deposit(orderId, amountUsd);
}

export async function flush(sb: Sandbox): Promise<void> {
	await operator(sb, 'POST', 'webhooks/flush');
}

/** Polls (every 50 ms: some checks read long delivery logs) until the check passes; the sandbox's deposit steps run on its own timers. */
export const until = <T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> => waitFor(check, timeoutMs, 'condition', 50);

// The receiver away ("n8n is down") and what comes back: shared by the activation and recovery tests.

/** Ten years of service time: no order expires during a test, so each order makes exactly one event. */
export const LONG = 10 * 365 * 86400_000;

/** Trigger parameters under which every event emitted is counted once: no confirmation, no stale filter (orders move on while "n8n is down"). */
export const EVERY_EVENT = { options: { confirmWithApi: false, dropStaleEvents: false } };

let published = 0;

/** A production trigger published alone (every other endpoint deleted, so a test counts only its own deliveries); outcomes emptied. */
export async function publishAlone(sb: Sandbox, server: WebhookServer, name: string, mode?: 'manual'): Promise<TriggerUnderTest> {
	for (const e of (await api(sb, 'GET', '/webhooks/endpoints')).body.endpoints) await api(sb, 'DELETE', `/webhooks/endpoints/${e.id}`);
	const t: TriggerUnderTest = { parameters: EVERY_EVENT, workflowId: `${name}-${++published}-${Date.now()}`, staticData: new N8nStaticData(), mode };
	server.serve(t);
	expect(await activate(sb, server, t)).toBe('created');
	server.outcomes = [];
	return t;
}

/** The endpoint's delivery log (up to 1,000). */
export async function deliveriesOf(sb: Sandbox, endpointId: string): Promise<any[]> {
	return (await api(sb, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).body.deliveries;
}

const settled = async (sb: Sandbox, id: string) => (await deliveriesOf(sb, id)).every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED');

/**
 * While "n8n is down" (the trigger's URL answers 404): AUTO_DISABLE_AFTER orders at once, whose
 * deliveries end FAILED and auto-disable the endpoint, then `skipped` more, SKIPPED. Quick only on a
 * sandbox whose retries are compressed (timeScale 1 000 000) and few (deliveryAttempts 3, not the service's
 * 60: the trigger sees none of them, only what follows FAILED, and 600 refused attempts per outage were a
 * tenth of `npm run test:fast`'s CPU). Returns the delivery log's counts and its distinct events.
 */
export async function outage(
	sb: Sandbox,
	server: WebhookServer,
	t: TriggerUnderTest,
	skipped: number,
): Promise<{ failed: number; skipped: number; events: number }> {
	const id = String(t.staticData.node().endpointId);
	server.unserve(t);
	await Promise.all(Array.from({ length: AUTO_DISABLE_AFTER }, async (_, i) => await newOrder(sb, 10 + i, LONG)));
	await until(async () => await settled(sb, id), 60_000);
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('DISABLED');
	await Promise.all(Array.from({ length: skipped }, async (_, i) => await newOrder(sb, 50 + i, LONG)));
	await until(async () => await settled(sb, id), 60_000);
	server.serve(t);
	const log = await deliveriesOf(sb, id);
	return {
		failed: log.filter((d) => d.status === 'FAILED').length,
		skipped: log.filter((d) => d.status === 'SKIPPED').length,
		events: new Set(log.map((d) => d.eventId)).size,
	};
}

/** Waits until every event in the endpoint's delivery log ran; each must have run exactly once. Returns how many events and runs. */
export async function allRunOnce(sb: Sandbox, server: WebhookServer, endpointId: string): Promise<{ events: number; runs: number }> {
	const envelopeOf = (eventId: string) => `evt_${eventId}_payment_order`;
	const { events, runs } = await until(async () => {
		await flush(sb);
		const logged = new Set((await deliveriesOf(sb, endpointId)).map((d) => envelopeOf(String(d.eventId))));
		const byEvent = new Map<string, number>();
		for (const item of server.emitted()) byEvent.set(String(item.json.eventId), (byEvent.get(String(item.json.eventId)) ?? 0) + 1);
		return [...logged].every((e) => byEvent.has(e)) ? { events: logged, runs: byEvent } : undefined;
	}, 60_000);
	for (const e of events) expect(runs.get(e)).toBe(1);
	return { events: events.size, runs: [...runs.values()].reduce((a, b) => a + b, 0) };
}
