/**
 * A leaked webhook secret in a running n8n: what it can do, and what the node keeps where.
 * - The secret is sealed in the static data: a workflow export holds nothing usable.
 * - With the secret (opened here with the API key, standing in for a leak), forged events still
 *   fail: an order that does not exist, another account's order, and a max-version event that
 *   would make the real FUNDED event stale.
 * - After the credential's API key changed, deliveries cannot be verified: they are answered 503 and
 *   make the trigger write nothing to the service; publishing again repairs the endpoint.
 * Executions are counted from n8n's database; deliveries and attempts from the sandbox's logs.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { openSecret } from '../../nodes/shared/secretBox';
import { OPENED_SECRET_TTL_MS } from '../../nodes/ClearinghouseTrigger/endpointSecret';
import { nodeItems } from '../../harness/executions';
import { N8nInstance, sleep } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { triggerSecret } from '../../harness/secrets';
import { graph, TRIGGER_NODE } from '../../harness/workflows';
import { signatureHeader } from '../../harness/signer';

jest.setTimeout(240_000);

const TRIGGER = 'Clearinghouse Trigger';
const MAIN = { id: 'e2eSecureTrig001', webhookId: 'c1e7a0d2-6f3b-4b9e-8a11-5d2e7f3a0001' };
const SUB = { id: 'e2eSecureSub0001', webhookId: 'c1e7a0d2-6f3b-4b9e-8a11-5d2e7f3a0002' };
const MAX_VERSION = 2 ** 53 - 1;

describe('a leaked webhook secret in a running n8n (confirmation on, the default)', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let mainCredential: ReturnType<typeof sandboxCredential>;
	let subKey: string;

	const path = (w: { webhookId: string }) => `${w.webhookId}/webhook`;
	const executions = (w: { id: string }) => n8n.listExecutions(w.id);
	const scopeOf = (w: { id: string }, apiKey: string) => ({ apiKey, workflowId: w.id, nodeId: `${w.id}-node-0` });
	/** The secret as an attacker holding it would use it (here opened with the API key). */
	const leakedSecret = (w: { id: string }, apiKey: string) => {
		const secret = triggerSecret(n8n.executions.staticData(w.id), scopeOf(w, apiKey));
		expect(secret).toMatch(/^whsec_/);
		return secret!;
	};
	const deliverSigned = async (w: { webhookId: string }, secret: string, event: Record<string, unknown>) => {
		const body = JSON.stringify(event);
		const t = Math.floor(Date.now() / 1000);
		const response = await fetch(n8n.webhookUrl(path(w)), {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-service-webhook-id': String(event.id),
				'x-service-event': 'payment_order',
				'x-service-webhook-signature': signatureHeader(secret, t, body),
			},
			body,
		});
		return { status: response.status, body: await response.text() };
	};
	const event = (order: Record<string, unknown>) => ({
		id: `evt_${randomBytes(8).toString('hex')}_payment_order`,
		type: 'payment_order',
		created: new Date().toISOString(),
		accountId: stage.state.accountId,
		data: { payment_order: order },
	});
	const currentOrder = async (id: string) => {
		const { returns: _returns, ...order } = await stage.operator.api('GET', `/payment-orders/${id}`);
		return order;
	};
	const createOrder = (amountUsd: number) => stage.operator.createOrder(amountUsd, 'e2e security', `e2e-security-${randomBytes(6).toString('hex')}`);
	const expectNoNewExecution = async (w: { id: string }, before: number) => {
		await sleep(2_500);
		expect(executions(w)).toHaveLength(before);
	};
	const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const value = await probe();
			if (value !== undefined) return value;
			await sleep(300);
		}
		throw new Error(`timed out waiting for ${what}`);
	};
	const triggerItems = (w: { id: string }) => n8n.finishedExecutions(w.id).flatMap((e) => nodeItems(e.data, TRIGGER));

	beforeAll(async () => {
		// Time runs 2x (as in trigger.test.ts): the service's first retry comes 5 s after a failure.
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 2 });
		subKey = stage.state.subaccounts[0].apiKey;
		n8n = await N8nInstance.create();
		mainCredential = sandboxCredential(stage.sandbox);
		const subCredential = {
			...sandboxCredential(stage.sandbox, 'chSandboxSubCred1', 'Clearinghouse subaccount'),
			data: { ...mainCredential.data, apiKey: subKey },
		};
		await n8n.importCredential(mainCredential, subCredential);
		const workflow = (w: typeof MAIN, name: string, credential: { id: string; name: string }) =>
			graph(
				w.id,
				name,
				[
					{ name: TRIGGER, type: TRIGGER_NODE, typeVersion: 2, webhookId: w.webhookId, parameters: {} },
					{ name: 'Received', type: 'n8n-nodes-base.noOp' },
				],
				[[TRIGGER, 'Received']],
				credential,
			);
		await n8n.importWorkflows([workflow(MAIN, 'e2e: security, account', mainCredential), workflow(SUB, 'e2e: security, subaccount', subCredential)]);
		await n8n.start({ timeoutMs: 300_000 });
		await n8n.publish(MAIN.id);
		await n8n.publish(SUB.id);
		await n8n.waitForWebhook(path(MAIN));
		await n8n.waitForWebhook(path(SUB));
		await waitFor('both secrets stored', async () => (n8n.executions.staticData(MAIN.id) && n8n.executions.staticData(SUB.id) ? true : undefined));
		// Building and packing the package, two imports and a start: minutes on a loaded machine.
	}, 900_000);

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('the workflow export and the stored static data hold the secret only sealed', async () => {
		const secret = leakedSecret(MAIN, stage.sandbox.apiKey);
		const file = join(n8n.root, `export-${Date.now()}.json`);
		const exported = await n8n.cli(['export:workflow', `--id=${MAIN.id}`, `--output=${file}`]);
		expect(exported.code).toBe(0);
		const text = readFileSync(file, 'utf8');
		const staticData = JSON.parse(text)[0]?.staticData ?? JSON.parse(text).staticData;
		const box = staticData[`node:${TRIGGER}`].secretBox;
		expect(box).toMatch(/^chbox1\./);
		expect(text).not.toContain(secret);
		expect(text).not.toContain('whsec_');
		expect(text).not.toContain(stage.sandbox.apiKey);
		// What the export holds opens only with the API key and this workflow's and node's ids.
		expect(openSecret(box, scopeOf(MAIN, stage.sandbox.apiKey))).toBe(secret);
		expect(openSecret(box, scopeOf(MAIN, subKey))).toBeUndefined();
		expect(openSecret(box, scopeOf(SUB, stage.sandbox.apiKey))).toBeUndefined();
	});

	test('a forged DISTRIBUTED event for 250,000 USD on an order that does not exist is acknowledged and runs nothing', async () => {
		const secret = leakedSecret(MAIN, stage.sandbox.apiKey);
		const before = executions(MAIN).length;
		const template = await currentOrder((await createOrder(5)).id);
		await waitFor('the real order event', async () => (executions(MAIN).length > before ? true : undefined));
		const after = executions(MAIN).length;
		const forged = event({
			...template,
			id: `${template.id.slice(0, -4)}beef`,
			status: 'DISTRIBUTED',
			amountUsd: 250_000,
			settledAt: new Date().toISOString(),
		});
		const response = await deliverSigned(MAIN, secret, forged);
		expect(response).toEqual({ status: 200, body: JSON.stringify({ received: true, ignored: 'order_not_found' }) });
		await expectNoNewExecution(MAIN, after);
	});

	test('a forged event naming an order of another account is acknowledged and runs nothing', async () => {
		// The subaccount's trigger (its own key) gets an event about the parent account's real order.
		const secret = leakedSecret(SUB, subKey);
		const parentOrder = await currentOrder((await createOrder(6)).id);
		const before = executions(SUB).length;
		const response = await deliverSigned(SUB, secret, event({ ...parentOrder, status: 'DISTRIBUTED', amountUsd: 250_000 }));
		expect(response).toEqual({ status: 200, body: JSON.stringify({ received: true, ignored: 'order_not_found' }) });
		await expectNoNewExecution(SUB, before);
	});

	test("a forged max-version event for a real order is refused, and the order's real FUNDED event still runs", async () => {
		const secret = leakedSecret(MAIN, stage.sandbox.apiKey);
		const order = await createOrder(8);
		await waitFor('the creation event run', async () => (triggerItems(MAIN).some((i: any) => i.paymentOrder?.id === order.id) ? true : undefined));
		const before = executions(MAIN).length;
		const forged = event({ ...(await currentOrder(order.id)), status: 'FUNDED', version: MAX_VERSION });
		const response = await deliverSigned(MAIN, secret, forged);
		expect(response.status).toBe(503);
		await expectNoNewExecution(MAIN, before);

		await stage.operator.deposit(order.id, 8);
		const funded = await waitFor('the FUNDED run', async () => {
			await stage.operator.call('POST', 'webhooks/flush');
			return triggerItems(MAIN).find((i: any) => i.paymentOrder?.id === order.id && i.paymentOrder?.status === 'FUNDED');
		});
		expect((funded as any).paymentOrder.version).toBeLessThan(MAX_VERSION);
		expect(triggerItems(MAIN).some((i: any) => i.eventId === forged.id)).toBe(false);
	});

	test("changing the credential's API key: deliveries are answered 503 and write nothing; unpublish and publish repairs, the next event runs at once", async () => {
		const oldSecret = leakedSecret(MAIN, stage.sandbox.apiKey);
		const mainUrl = n8n.webhookUrl(path(MAIN));
		const attemptsToMain = async () => ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).filter((a) => a.url === mainUrl);
		// Nothing in flight from the earlier tests: every attempt from here on is about the new order.
		await waitFor('no pending delivery', async () => {
			await stage.operator.call('POST', 'webhooks/flush');
			return (await stage.operator.api('GET', '/webhooks/deliveries?status=PENDING&limit=1')).total === 0 ? true : undefined;
		});
		const seen = (await attemptsToMain()).length;
		const { apiKey: newKey } = await stage.operator.call('POST', 'api-keys', {});
		await n8n.importCredential({ ...mainCredential, data: { ...mainCredential.data, apiKey: newKey } });
		// Until the secret n8n's process opened before the change expires, the old box still verifies.
		await sleep(OPENED_SECRET_TTL_MS + 500);
		const mark = await stage.operator.mark();
		const before = executions(MAIN).length;
		const order = await createOrder(9);
		await waitFor('two refused attempts', async () => {
			await stage.operator.call('POST', 'webhooks/flush');
			return (await attemptsToMain()).slice(seen).length >= 2 || undefined;
		});
		const refused = (await attemptsToMain()).slice(seen);
		expect(refused.every((a) => a.statusCode === 503)).toBe(true);
		// An unsigned request changes nothing either.
		expect((await fetch(mainUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(503);
		const writes = (await stage.operator.requests(mark)).filter((r: any) => /\/webhooks\//.test(String(r.path)) && r.method !== 'GET');
		expect(writes).toEqual([]);
		expect(executions(MAIN).length).toBe(before);
		expect(triggerItems(MAIN).some((i: any) => i.paymentOrder?.id === order.id)).toBe(false);

		// The repair is an activation: unpublish and publish (a new endpoint, sealed under the new key).
		await n8n.unpublish(MAIN.id);
		await n8n.publish(MAIN.id);
		await n8n.waitForWebhook(path(MAIN));
		const renewed = await waitFor('the secret sealed under the new key', async () => triggerSecret(n8n.executions.staticData(MAIN.id), scopeOf(MAIN, newKey)));
		expect(renewed).toMatch(/^whsec_/);
		expect(renewed).not.toBe(oldSecret);
		const next = await createOrder(10);
		const nextRun = await waitFor('the next run', async () => triggerItems(MAIN).find((i: any) => i.paymentOrder?.id === next.id));
		const nextAttempts = ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).filter(
			(a) => a.headers['x-service-webhook-id'] === (nextRun as any).eventId,
		);
		expect(nextAttempts.map((a) => a.statusCode)).toEqual([200]);
	});
});
