/**
 * The trigger inside a running n8n (`n8n start`), as users run it: the workflow is published,
 * the trigger registers its endpoint at the sandbox (loopback allowed), and the sandbox's signed
 * deliveries reach n8n's production webhook URL. Executions are counted and read from n8n's own
 * database, never from logs.
 */
import { randomBytes } from 'node:crypto';

import { executionError, nodeItems } from '../../harness/executions';
import { N8nInstance, sleep } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { triggerSecret } from '../../harness/secrets';
import { graph, TRIGGER_NODE } from '../../harness/workflows';
import { pollFor } from '../../harness/wait';
import { payBob } from './support';
import { nowSeconds, signatureHeader } from '../../harness/signer';

jest.setTimeout(240_000);

const WORKFLOW_ID = 'e2eTriggerFlow01';
const WEBHOOK_ID = 'b6a7f0c2-5d1e-4a8e-9f53-3c2d7e2e0001';
const TRIGGER = 'Clearinghouse Trigger';
const WEBHOOK_PATH = `${WEBHOOK_ID}/webhook`;
/** A workflow that pays on an event, then fails (under When Finished): published by its own test only. */
/** A Schedule Trigger's run with a Derived key: published by its own test only. */
const SCHEDULED = { id: 'e2eSchedulePays1', memo: 'e2e scheduled firing' };
const REDELIVERED = { id: 'e2eTriggerPays01', webhookId: 'b6a7f0c2-5d1e-4a8e-9f53-3c2d7e2e0021', memo: 'e2e redelivered event' };

describe('Clearinghouse Trigger in a running n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;

	const liveEndpoints = async () =>
		((await stage.operator.api<{ endpoints: any[] }>('GET', '/webhooks/endpoints')).endpoints ?? []).filter((e) => !e.deletedAt);
	const executionCount = () => n8n.listExecutions(WORKFLOW_ID).length;
	const waitForLiveEndpoints = async (count: number, timeoutMs = 30_000) => {
		const deadline = Date.now() + timeoutMs;
		let endpoints: any[] = [];
		while (Date.now() < deadline) {
			endpoints = await liveEndpoints();
			if (endpoints.length === count) return endpoints;
			await sleep(250);
		}
		throw new Error(`wanted ${count} live endpoints, have ${JSON.stringify(endpoints)}`);
	};
	/** POSTs a delivery ourselves to the production webhook URL. */
	const deliver = async (body: string, headers: Record<string, string>) => {
		const response = await fetch(n8n.webhookUrl(WEBHOOK_PATH), { method: 'POST', headers, body });
		return { status: response.status, text: await response.text() };
	};
	const createOrder = (amountUsd: number) => stage.operator.createOrder(amountUsd, 'e2e trigger', `e2e-trigger-${randomBytes(6).toString('hex')}`);
	/** Nothing may start: wait long enough for a run to show up, then count again. */
	const expectNoNewExecution = async (before: number) => {
		await sleep(2_500);
		expect(executionCount()).toBe(before);
	};

	beforeAll(async () => {
		// Time runs 2x: deposits confirm in seconds, while the sandbox's delivery timeout (10 s, also
		// scaled) stays 5 s, well above n8n's answer time on a busy machine. Faster scales made slow
		// answers count as failed deliveries, and ten of those disable the endpoint.
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 2 });
		n8n = await N8nInstance.create();
		const credential = sandboxCredential(stage.sandbox);
		await n8n.importCredential(credential);
		const workflow = (id: string, name: string, webhookId: string) =>
			graph(
				id,
				name,
				[
					{ name: TRIGGER, type: TRIGGER_NODE, webhookId, parameters: {} },
					{ name: 'Received', type: 'n8n-nodes-base.noOp' },
				],
				[[TRIGGER, 'Received']],
				credential,
			);
		// Create with a Production credential at the sandbox: its key-mode rules are those of real money.
		const production = { ...sandboxCredential(stage.sandbox, 'chProdAtSandbox1', 'Clearinghouse (Production at the sandbox)') };
		production.data = { ...production.data, environment: 'production' };
		await n8n.importCredential(production);
		const create = (name: string, keys: Record<string, unknown>) =>
			payBob(
				stage,
				name,
				{ amountUsd: '3.25', memo: `${REDELIVERED.memo}: ${name}`, ...keys },
				{ credentials: { clearinghouseApi: { id: production.id, name: production.name } } },
			);
		const pays = graph(
			REDELIVERED.id,
			'e2e: pays on an event, then fails',
			[
				{ name: TRIGGER, type: TRIGGER_NODE, webhookId: REDELIVERED.webhookId, parameters: { options: { acknowledge: 'whenFinished' } } },
				// Only the test's order: the orders this workflow makes send events too.
				{
					name: 'The test order',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					parameters: { jsCode: `return $input.all().filter((i) => i.json.paymentOrder?.memo === ${JSON.stringify(REDELIVERED.memo)});` },
				},
				create('Pay by business key', { idempotencyKeyMode: 'custom', idempotencyKey: '={{ $json.orderStateKey }}' }),
				create('Pay by derived key', { idempotencyKeyMode: 'derived' }),
				{ name: 'A later step fails', type: 'n8n-nodes-base.stopAndError', typeVersion: 1, parameters: { errorMessage: 'a step after Create failed' } },
			],
			[
				[TRIGGER, 'The test order'],
				['The test order', 'Pay by business key'],
				['Pay by business key', 'Pay by derived key'],
				['Pay by derived key', 'A later step fails'],
			],
			credential,
		);
		const scheduled = graph(
			SCHEDULED.id,
			'e2e: pays on a schedule (Derived)',
			[
				{
					name: 'Every 2 seconds',
					type: 'n8n-nodes-base.scheduleTrigger',
					typeVersion: 1.2,
					parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 2 }] } },
				},
				create('Pay by derived key', { idempotencyKeyMode: 'derived', memo: SCHEDULED.memo }),
			],
			[['Every 2 seconds', 'Pay by derived key']],
			credential,
		);
		await n8n.importWorkflows([workflow(WORKFLOW_ID, 'e2e: payment-order events', WEBHOOK_ID), pays, scheduled]);
		// Publish into a running n8n, as a user does from the editor: that is when create() registers.
		await n8n.start({ timeoutMs: 300_000 });
		await n8n.publish(WORKFLOW_ID);
		await n8n.waitForWebhook(WEBHOOK_PATH);
		// Building and packing the package, the imports and a start: minutes on a loaded machine.
	}, 900_000);

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test("publishing registers exactly one endpoint, at n8n's production webhook URL", async () => {
		const [endpoint] = await waitForLiveEndpoints(1);
		expect(endpoint.url).toBe(n8n.webhookUrl(WEBHOOK_PATH));
		expect(endpoint.status).toBe('ENABLED');
		expect(endpoint.eventTypes).toEqual(['payment_order']);
	});

	let firstAttempt: { headers: Record<string, string>; body: string };
	let createdOrder: any;

	test('signed deliveries start executions with the event and the order as the item', async () => {
		createdOrder = await createOrder(12.5);
		const [created] = await n8n.waitForExecutions(WORKFLOW_ID, 1);
		expect(created.status).toBe('success');
		const [item] = nodeItems(created.data, TRIGGER);
		expect(item).toMatchObject({
			type: 'payment_order',
			accountId: stage.state.accountId,
			paymentOrder: { id: createdOrder.id, status: 'AWAITING_FUNDS', amountUsd: 12.5 },
		});
		expect(String(item.eventId)).toMatch(/^evt_/);
		expect(nodeItems(created.data, 'Received')).toHaveLength(1);

		// Fund it: deposit events while still AWAITING_FUNDS are dropped by default; FUNDED runs.
		await stage.operator.deposit(createdOrder.id, 12.5);
		const deadline = Date.now() + 60_000;
		let funded: any;
		while (!funded && Date.now() < deadline) {
			await stage.operator.call('POST', 'webhooks/flush');
			funded = n8n
				.finishedExecutions(WORKFLOW_ID)
				.flatMap((e) => nodeItems(e.data, TRIGGER))
				.find((i: any) => i.paymentOrder?.status === 'FUNDED');
			if (!funded) await sleep(500);
		}
		expect(funded).toMatchObject({ paymentOrder: { id: createdOrder.id, status: 'FUNDED' } });

		// Every item n8n ran is one the sandbox signed: event ids match deliveries it made.
		const attempts = (await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[];
		const sentIds = new Set(attempts.map((a) => a.headers['x-service-webhook-id']));
		for (const execution of n8n.finishedExecutions(WORKFLOW_ID)) {
			for (const item of nodeItems(execution.data, TRIGGER)) expect(sentIds.has(item.eventId)).toBe(true);
		}
		firstAttempt = attempts.find((a) => a.statusCode === 200 && JSON.parse(a.body).data.payment_order.status === 'AWAITING_FUNDS');
		expect(firstAttempt).toBeDefined();
	});

	test('a forged delivery (wrong secret) is answered 401 and starts nothing', async () => {
		const before = executionCount();
		const body = JSON.parse(firstAttempt.body);
		body.id = `evt_${randomBytes(8).toString('hex')}_payment_order`;
		const raw = JSON.stringify(body);
		const t = Math.floor(Date.now() / 1000);
		const response = await deliver(raw, {
			...firstAttempt.headers,
			'x-service-webhook-id': body.id,
			'x-service-webhook-signature': signatureHeader(`whsec_${randomBytes(32).toString('hex')}`, t, raw),
		});
		expect(response.status).toBe(401);
		const unsigned = await deliver(raw, { 'content-type': 'application/json' });
		expect(unsigned.status).toBe(401);
		await expectNoNewExecution(before);
	});

	test('a tampered delivery (signed body changed) is answered 401 and starts nothing', async () => {
		const before = executionCount();
		const tampered = firstAttempt.body.replace('"amountUsd":12.5', '"amountUsd":125000');
		expect(tampered).not.toBe(firstAttempt.body);
		const response = await deliver(tampered, firstAttempt.headers);
		expect(response.status).toBe(401);
		await expectNoNewExecution(before);
	});

	test('an expired delivery (correctly signed 10 minutes ago) is answered 401 and starts nothing; the same signed now runs', async () => {
		// The secret the trigger stored at create(), opened from the workflow's static data in n8n's
		// database with the credential's API key (the static data alone holds it sealed).
		const secret = triggerSecret(n8n.executions.staticData(WORKFLOW_ID), {
			apiKey: stage.sandbox.apiKey,
			workflowId: WORKFLOW_ID,
			nodeId: `${WORKFLOW_ID}-node-0`,
		});
		expect(secret).toMatch(/^whsec_/);
		// A real order the trigger has not seen (bulk orders send no webhooks): the trigger confirms
		// events with the API, so the event must name an order that exists, at its current version.
		const ids = async () =>
			new Set(((await stage.operator.api('GET', '/payment-orders?status=AWAITING_FUNDS&limit=1000')).paymentOrders as any[]).map((o) => o.id));
		const known = await ids();
		await stage.operator.call('POST', 'payment-orders/bulk', { count: 1 });
		const [orderId] = [...(await ids())].filter((id) => !known.has(id));
		const { returns: _returns, ...order } = await stage.operator.api('GET', `/payment-orders/${orderId}`);
		const event = {
			id: `evt_${randomBytes(8).toString('hex')}_payment_order`,
			type: 'payment_order',
			created: new Date().toISOString(),
			accountId: stage.state.accountId,
			data: { payment_order: order },
		};
		const raw = JSON.stringify(event);
		const headers = { 'content-type': 'application/json', 'x-service-webhook-id': event.id, 'x-service-event': 'payment_order' };
		const before = executionCount();
		const expired = await deliver(raw, { ...headers, 'x-service-webhook-signature': signatureHeader(secret!, nowSeconds() - 600, raw) });
		expect(expired.status).toBe(401);
		await expectNoNewExecution(before);

		// Control: the very same body signed with a current timestamp is accepted and runs once.
		const fresh = await deliver(raw, { ...headers, 'x-service-webhook-signature': signatureHeader(secret!, nowSeconds(), raw) });
		expect(fresh.status).toBe(200);
		const executions = await n8n.waitForExecutions(WORKFLOW_ID, before + 1);
		expect(nodeItems(executions[executions.length - 1].data, TRIGGER)[0]).toMatchObject({ eventId: event.id });
	});

	test('duplicate deliveries (resent by us, replayed by the service) start nothing', async () => {
		const before = executionCount();
		const resent = await deliver(firstAttempt.body, firstAttempt.headers);
		expect(resent.status).toBe(200);
		const deliveries = (await stage.operator.api('GET', '/webhooks/deliveries?limit=1000')).deliveries as any[];
		const original = deliveries.find((d) => d.status === 'DELIVERED' && d.eventId && firstAttempt.headers['x-service-webhook-id'].includes(d.eventId));
		expect(original).toBeDefined();
		await stage.operator.api('POST', `/webhooks/deliveries/${original.id}/replay`);
		await stage.operator.call('POST', 'webhooks/flush');
		const replays = ((await stage.operator.api('GET', '/webhooks/deliveries?limit=1000')).deliveries as any[]).filter((d) => d.eventId === original.eventId);
		expect(replays.length).toBe(2);
		expect(replays.every((d) => d.status === 'DELIVERED')).toBe(true);
		await expectNoNewExecution(before);
	});

	test('a restart keeps the one endpoint, and deliveries still run', async () => {
		await n8n.stop();
		await n8n.start();
		await n8n.waitForWebhook(WEBHOOK_PATH);
		await waitForLiveEndpoints(1);
		const before = executionCount();
		const order = await createOrder(7.25);
		const executions = await n8n.waitForExecutions(WORKFLOW_ID, before + 1);
		expect(nodeItems(executions[executions.length - 1].data, TRIGGER)[0]).toMatchObject({ paymentOrder: { id: order.id } });
		expect(await liveEndpoints()).toHaveLength(1);
	});

	test('unpublish removes the endpoint and the webhook; publishing again leaves exactly one endpoint', async () => {
		await n8n.unpublish(WORKFLOW_ID);
		await n8n.waitForWebhook(WEBHOOK_PATH, false);
		await waitForLiveEndpoints(0);

		// An order event now reaches no endpoint and so starts nothing.
		const before = executionCount();
		await createOrder(3);
		await stage.operator.call('POST', 'webhooks/flush');
		await expectNoNewExecution(before);

		await n8n.publish(WORKFLOW_ID);
		await n8n.waitForWebhook(WEBHOOK_PATH);
		const [endpoint] = await waitForLiveEndpoints(1);
		expect(endpoint.url).toBe(n8n.webhookUrl(WEBHOOK_PATH));

		// Re-publish of an already published workflow, then a restart: still exactly one endpoint.
		await n8n.publish(WORKFLOW_ID);
		await sleep(5_000);
		await n8n.stop();
		await n8n.start();
		await n8n.waitForWebhook(WEBHOOK_PATH);
		expect(await liveEndpoints()).toHaveLength(1);
		const order = await createOrder(4.5);
		const executions = await n8n.waitForExecutions(WORKFLOW_ID, before + 1);
		expect(nodeItems(executions[executions.length - 1].data, TRIGGER)[0]).toMatchObject({ paymentOrder: { id: order.id } });
	});

	test('an event the service delivers again (its run failed after Create, Acknowledge → When Finished) pays once: Business Key one order, Derived refused', async () => {
		await n8n.publish(REDELIVERED.id);
		await n8n.waitForWebhook(`${REDELIVERED.webhookId}/webhook`);
		await waitForLiveEndpoints(2);
		await stage.operator.createOrder(9.75, REDELIVERED.memo, `e2e-redelivered-${randomBytes(6).toString('hex')}`);
		const ordersPaid = async () =>
			((await stage.operator.api('GET', '/payment-orders?status=AWAITING_FUNDS&limit=1000')).paymentOrders as any[]).filter((o) =>
				String(o.memo).startsWith(`${REDELIVERED.memo}: `),
			);
		// The run fails, n8n answers 500, the service delivers the event again: two runs of one event.
		const runs = await pollFor('two finished runs of the event', async () => {
			await stage.operator.call('POST', 'webhooks/flush');
			const ofEvent = n8n.finishedExecutions(REDELIVERED.id).filter((e) => nodeItems(e.data, 'The test order').length > 0);
			return ofEvent.length >= 2 && ofEvent;
		});
		const [first, second] = runs.map((e) => nodeItems(e.data, TRIGGER)[0]);
		expect(second.eventId).toBe(first.eventId);
		for (const run of runs) {
			expect(run.status).toBe('error');
			expect(executionError(run)).toMatchObject({
				message: expect.stringContaining('Derived idempotency keys are refused in a run started by a webhook call'),
				description: expect.stringContaining('{{ $json.orderStateKey }}'),
			});
		}
		const [made, ...again] = runs.map((e) => nodeItems(e.data, 'Pay by business key')[0]);
		expect(made).toMatchObject({ created: true });
		for (const replay of again) expect(replay).toMatchObject({ id: made.id, created: false, replayed: true });
		const paid = await ordersPaid();
		expect(paid.map((o) => o.memo)).toEqual([`${REDELIVERED.memo}: Pay by business key`]);
		expect(paid[0].idempotencyKey).toBe(first.orderStateKey);
		await n8n.unpublish(REDELIVERED.id);
		await waitForLiveEndpoints(1);
	});

	test("a Schedule Trigger's run keeps its Derived key: n8n names the trigger that started it, and a firing never comes again", async () => {
		await n8n.publish(SCHEDULED.id);
		const [fired] = await n8n.waitForExecutions(SCHEDULED.id, 1, 60_000);
		await n8n.unpublish(SCHEDULED.id);
		expect(fired).toMatchObject({ mode: 'trigger', status: 'success' });
		const [paid] = nodeItems(fired.data, 'Pay by derived key');
		expect(paid).toMatchObject({ created: true, memo: SCHEDULED.memo });
		expect(String(paid.idempotencyKey)).toMatch(/^n8n-[0-9a-f]{48}$/);
	});
});
