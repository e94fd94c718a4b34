/**
 * Test support for the trigger: the sandbox, a local receiver that plays n8n's webhook server
 * around the node's real webhook() (n8n-core's WebhookContext through test/support/n8nContexts.ts), and hook
 * contexts for the lifecycle methods with a webhook base URL the sandbox can deliver to.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { HookContext } from 'n8n-core';
import type { IDataObject, INodeExecutionData, IWebhookData, IWebhookResponseData } from 'n8n-workflow';

import { ClearinghouseTrigger } from '../../../nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
import { setRetireGrace } from '../../../nodes/ClearinghouseTrigger/activation';
import { openSecret } from '../../../nodes/shared/secretBox';
import { startSandbox } from '../../../sandbox/server';
import type { NodeSetup } from '../../support/n8nContexts';
import { additionalDataFor, makeWorkflow, webhookContext } from '../../support/n8nContexts';
import { SandboxClient, type LoggedRequest } from '../../support/sandbox';

export const trigger = new ClearinghouseTrigger();
// delete() deletes at once in these tests, as before its grace period (activation.test.ts tests the grace).
setRetireGrace(0);
export const NODE_NAME = 'Clearinghouse Trigger';
export const STATIC_KEY = `node:${NODE_NAME}`;

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export async function sandbox(): Promise<Sandbox> {
	// timeScale speeds up the sandbox's own timers (deposit steps) only; signatures use real time.
	// The attempt timeout stays at 5 s (10 s ÷ 50 would be the 250 ms floor), so that a receiver slowed
	// by a loaded machine is not taken for a timeout and sent the delivery again.
	return await startSandbox({ port: 0, rewardsPort: 0, allowLoopbackWebhooks: true, timeScale: 50, attemptTimeoutMs: 5_000 });
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
 * A workflow's static data as n8n 2.40.7 keeps it for a trigger: what create()/delete() write is
 * saved; each delivery works on a fresh copy of what was saved, and that copy is saved again
 * only when the delivery starts no run (when it does, n8n loses the write).
 */
export class N8nStaticData {
	saved: IDataObject = {};

	/** The workflow-level object a lifecycle call works on (saved as is, like n8n does after it). */
	forHook(): IDataObject {
		return this.saved;
	}

	forDelivery(): IDataObject {
		// n8n keeps it as JSON in the database row.
		return JSON.parse(JSON.stringify(this.saved)) as IDataObject;
	}

	afterDelivery(copy: IDataObject, startedRun: boolean): void {
		if (!startedRun) this.saved = copy;
	}

	node(): IDataObject {
		return (this.saved[STATIC_KEY] ?? {}) as IDataObject;
	}
}

export interface Outcome {
	status: number;
	body: unknown;
	/** Items of the run n8n would start; undefined when none starts. */
	items?: INodeExecutionData[];
	/** webhook() threw: n8n would have created an error execution. */
	threw?: boolean;
	/** webhook() handed n8n a run, but n8n failed to create it (TriggerUnderTest.failRunStart). */
	runNotStarted?: boolean;
}

export interface TriggerUnderTest {
	parameters: IDataObject;
	workflowId: string;
	staticData: N8nStaticData;
	/** 'webhook' for production, 'manual' for the editor's test webhook. */
	mode?: 'webhook' | 'manual';
	/** The credential's API key; the sandbox's own key when unset. */
	apiKey?: string;
	/** The node's typeVersion; the newest when unset. */
	typeVersion?: number;
	/** When it returns true, n8n fails to create the run webhook() asked for (answers 500). */
	failRunStart?: () => boolean;
}

/** n8n's node id in n8nContexts' workflows (part of the secret box's scope). */
export const NODE_ID = 'node-under-test';

/** The endpoint secret the trigger keeps sealed in its static data, opened with its credential's key. */
export function secretOf(sb: Sandbox, t: TriggerUnderTest): string | undefined {
	return openSecret(t.staticData.node().secretBox, { apiKey: t.apiKey ?? sb.apiKey, workflowId: t.workflowId, nodeId: NODE_ID });
}

/** What n8n's webhook server does around webhook() (webhook-helpers.ts), for one request. */
export async function deliver(sb: Sandbox, t: TriggerUnderTest, headers: Record<string, string>, rawBody: Buffer): Promise<Outcome> {
	const data = t.staticData.forDelivery();
	const { context, response, answer } = webhookContext(trigger, { ...setupFor(sb, t), staticData: data, mode: t.mode ?? 'webhook' }, { headers, rawBody });
	let result: IWebhookResponseData;
	try {
		result = await trigger.webhook.call(context);
	} catch {
		t.staticData.afterDelivery(data, true);
		return { status: 500, body: undefined, threw: true, items: [] };
	}
	const startedRun = result.workflowData !== undefined;
	t.staticData.afterDelivery(data, startedRun);
	if (result.noWebhookResponse) {
		// The node answered itself; n8n sends nothing more (and starts a run only with workflowData).
		answer(response.statusCode ?? 200);
		return { status: response.statusCode ?? 200, body: response.body, items: result.workflowData?.[0] };
	}
	if (!startedRun) {
		answer(200);
		return { status: 200, body: result.webhookResponse ?? { message: 'Webhook call received' } };
	}
	if (t.failRunStart?.()) {
		// n8n could not create the execution (database, queue): it answers 500 and nothing runs.
		answer(500);
		return { status: 500, body: { message: 'There was a problem executing the workflow' }, items: [], runNotStarted: true };
	}
	// responseMode onReceived: n8n answers once it created the execution, which runs these items.
	answer(200);
	return { status: 200, body: { message: 'Workflow was started' }, items: result.workflowData![0] };
}

export function setupFor(sb: Sandbox, t: TriggerUnderTest): NodeSetup {
	return {
		name: NODE_NAME,
		parameters: t.parameters as NodeSetup['parameters'],
		credentials: { apiKey: t.apiKey ?? sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl },
		workflowId: t.workflowId,
		webhookId: `wh-${t.workflowId}`,
		typeVersion: t.typeVersion,
	};
}

/**
 * A local stand-in for n8n's webhook server: the sandbox delivers to it over HTTP, and it hands
 * the exact bytes and headers to deliver(). Every outcome is kept, in order.
 */
export class Receiver {
	private server?: http.Server;
	base = '';
	outcomes: Array<Outcome & { headers: Record<string, string>; rawBody: Buffer; path: string }> = [];
	private triggers = new Map<string, TriggerUnderTest>();

	constructor(private readonly sb: Sandbox) {}

	async start(): Promise<void> {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const rawBody = Buffer.concat(chunks);
				const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
				const path = req.url ?? '';
				const t = this.triggers.get(path);
				if (!t) {
					res.writeHead(404).end();
					return;
				}
				void deliver(this.sb, t, headers, rawBody).then((outcome) => {
					this.outcomes.push({ ...outcome, headers, rawBody, path });
					res.writeHead(outcome.status, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.body ?? {}));
				});
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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

	async stop(): Promise<void> {
		await new Promise<void>((resolve) => {
			if (!this.server) return resolve();
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	emitted(): INodeExecutionData[] {
		return this.outcomes.flatMap((o) => o.items ?? []);
	}
}

/** A HookContext (n8n-core's) whose webhook URLs point at the receiver. */
export function hook(sb: Sandbox, receiver: Receiver, t: TriggerUnderTest, mode?: 'internal'): HookContext {
	const setup = { ...setupFor(sb, t), staticData: t.staticData.forHook() };
	const { workflow, node } = makeWorkflow(trigger, setup);
	const additionalData = additionalDataFor(setup, {
		webhookBaseUrl: `${receiver.base}/webhook`,
		webhookTestBaseUrl: `${receiver.base}/webhook-test`,
	});
	const isTest = t.mode === 'manual';
	const webhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: `wh-${t.workflowId}/webhook`,
		webhookDescription: { name: 'default', httpMethod: 'POST', path: 'webhook' },
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: `wh-${t.workflowId}`,
		isTest,
	} as IWebhookData;
	return new HookContext(workflow, node, additionalData, mode ?? (isTest ? 'manual' : 'trigger'), mode ? 'update' : 'activate', webhookData);
}

/** n8n's createWebhookIfNotExists: checkExists, then create when it says false. */
export async function activate(sb: Sandbox, receiver: Receiver, t: TriggerUnderTest): Promise<'kept' | 'created'> {
	const exists = await trigger.webhookMethods.default.checkExists.call(hook(sb, receiver, t));
	if (exists) return 'kept';
	await trigger.webhookMethods.default.create.call(hook(sb, receiver, t));
	return 'created';
}

export async function deactivate(sb: Sandbox, receiver: Receiver, t: TriggerUnderTest): Promise<boolean> {
	// As n8n deregisters (webhook.service.js deleteWebhook: mode 'internal', activation 'update').
	return await trigger.webhookMethods.default.delete.call(hook(sb, receiver, t, 'internal'));
}

/** A payment order from alice to bob; `expiresInMs` of service time (compressed by the sandbox's timeScale). */
export async function newOrder(sb: Sandbox, amountUsd = 10, expiresInMs = 86400_000): Promise<any> {
	const state = await operator(sb, 'GET', 'state');
	const alice = state.users.find((u: any) => u.label === 'alice');
	const bob = state.users.find((u: any) => u.label === 'bob');
	const to = bob.wallets.find((w: any) => w.chain === 'ethereum');
	const res = await api(sb, 'POST', '/payment', {
		fromUserId: alice.id,
		toAddress: to.address,
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

/** Polls until the check passes (the sandbox's deposit steps run on its own timers). */
export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, 50));
	}
}
