/**
 * Test support for the trigger: the sandbox; a local stand-in for n8n's webhook server that hands
 * each delivery to the node's real webhook() (harness/inProcessTrigger.ts: n8n-core's WebhookContext
 * and what n8n does around it); hook contexts for the lifecycle methods with a webhook base URL the
 * sandbox can deliver to.
 */
import type { HookContext } from 'n8n-core';
import type { INodeExecutionData } from 'n8n-workflow';

import { deliver, hook as lifecycleContext, trigger, type Outcome, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import { Receiver } from '../../../harness/receiver';
import { setRetireGrace } from '../../../nodes/ClearinghouseTrigger/activation';
import { startSandbox } from '../../../harness/sandbox';
import { waitFor } from '../../../harness/wait';
import type { SandboxOptions } from '../../../sandbox/server';
import { fixture } from '../../support/fixture';
import { SandboxClient, userOf, walletOf, type LoggedRequest } from '../../support/sandbox';

export { deliver, N8nStaticData, secretOf, setupFor, trigger, type Outcome, type TriggerUnderTest } from '../../../harness/inProcessTrigger';

// delete() deletes at once in these tests, as before its grace period (activation.test.ts tests the grace).
setRetireGrace(0);

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
