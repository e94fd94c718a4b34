/**
 * The trigger's `trigger()` beside its webhook (activation.ts), in a real n8n 2.40.7, for what only
 * a real n8n shows (the logic is tested in test/nodes/trigger/activation.test.ts):
 * - the editor's "Listen for test event" (REST `POST /rest/workflows/:id/run` with the trigger to start
 *   from, as the editor sends it): n8n registers the test webhook, the test event runs the workflow
 *   through `trigger()` in manual mode, which emits what `webhook()` received; the run ends, nothing hangs;
 * - a published trigger whose parameters change (the editor saves, then publishes: n8n re-registers it as
 *   delete + checkExists/create) keeps its endpoint and the events still owed to it.
 */
import { randomBytes } from 'node:crypto';

import { nodeItems } from '../../harness/executions';
import { N8nInstance, sleep } from '../../harness/n8nProcess';
import { N8nRest } from '../../harness/n8nRest';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { pollFor } from '../../harness/wait';
import { graph, TRIGGER_NODE } from '../../harness/workflows';

jest.setTimeout(300_000);

const TRIGGER = 'Clearinghouse Trigger';
const MANUAL = { id: 'e2eTrigManual0001', webhookId: 'c1d2e3f4-0000-4a8e-9f53-3c2d7e2e0231' };
const CHANGED = { id: 'e2eTrigChanged001', webhookId: 'c1d2e3f4-0000-4a8e-9f53-3c2d7e2e0232' };
const LONG_MS = 10 * 365 * 86400_000;

describe('trigger() beside the webhook (real n8n)', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let rest: N8nRest;

	const liveAt = async (url: string): Promise<any[]> =>
		((await stage.operator.api('GET', '/webhooks/endpoints')).endpoints as any[]).filter((e) => !e.deletedAt && e.url === url);
	async function createOrder(amountUsd: number): Promise<any> {
		const {
			users: [alice, bob],
		} = await stage.operator.state();
		const { paymentOrder } = await stage.operator.api('POST', '/payment', {
			fromUserId: alice.id,
			toAddress: bob.wallets[0].address,
			toChain: bob.wallets[0].chain,
			asset: 'USDC',
			amountUsd,
			expiresAt: new Date(Date.now() + LONG_MS).toISOString(),
			idempotencyKey: `e2e-activation-${randomBytes(6).toString('hex')}`,
		});
		return paymentOrder;
	}
	const workflow = (id: string, webhookId: string, credential: any) =>
		graph(
			id,
			`e2e: ${id}`,
			[
				{ name: TRIGGER, type: TRIGGER_NODE, typeVersion: 2, webhookId, parameters: { options: { confirmWithApi: false, dropStaleEvents: false } } },
				{ name: 'Received', type: 'n8n-nodes-base.noOp' },
			],
			[[TRIGGER, 'Received']],
			credential,
		);

	beforeAll(async () => {
		stage = await startSandboxStage({ allowLoopbackWebhooks: true });
		n8n = await N8nInstance.create();
		const credential = sandboxCredential(stage.sandbox);
		await n8n.importCredential(credential);
		await n8n.importWorkflows([workflow(MANUAL.id, MANUAL.webhookId, credential), workflow(CHANGED.id, CHANGED.webhookId, credential)]);
		await n8n.start({ timeoutMs: 300_000 });
		rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@activation.test', 'Activation-Suite-Passw0rd');
	}, 600_000);

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('"Listen for test event": the test event runs the workflow once through trigger() in manual mode (no hang), then the test endpoint is removed', async () => {
		const testUrl = `${n8n.env.WEBHOOK_URL}webhook-test/${MANUAL.webhookId}/webhook`;
		const { data } = await rest.call('POST', `/workflows/${MANUAL.id}/run`, { triggerToStartFrom: { name: TRIGGER } });
		expect(data).toEqual({ waitingForWebhook: true });
		const [endpoint] = await pollFor('the test endpoint', async () => ((await liveAt(testUrl)).length === 1 ? await liveAt(testUrl) : undefined));
		const order = await createOrder(3.25);
		const [run] = await n8n.waitForExecutions(MANUAL.id, 1, 60_000);
		expect(run).toMatchObject({ mode: 'manual', status: 'success' });
		expect(nodeItems(run.data, TRIGGER)).toEqual([expect.objectContaining({ paymentOrder: expect.objectContaining({ id: order.id }) })]);
		expect(nodeItems(run.data, 'Received')).toHaveLength(1);
		// n8n removes the test webhook after its one call; delete() removes the endpoint after its grace period.
		await pollFor('the test endpoint deleted', async () => (await liveAt(testUrl)).length === 0, 30_000);
		expect(n8n.finishedExecutions(MANUAL.id)).toHaveLength(1);
		console.log(`activation e2e: test event ran as manual execution ${run.id}; test endpoint ${endpoint.id} deleted after the listener ended`);
	});

	test('a published trigger whose parameters change (delete + create in n8n) keeps its endpoint; the events it missed meanwhile run once', async () => {
		const url = n8n.webhookUrl(`${CHANGED.webhookId}/webhook`);
		const {
			data: { versionId },
		} = await rest.call('GET', `/workflows/${CHANGED.id}`);
		await rest.call('POST', `/workflows/${CHANGED.id}/activate`, { versionId });
		await n8n.waitForWebhook(`${CHANGED.webhookId}/webhook`);
		const [endpoint] = await pollFor('the endpoint', async () => ((await liveAt(url)).length === 1 ? await liveAt(url) : undefined));
		await createOrder(1.5);
		await n8n.waitForExecutions(CHANGED.id, 1, 60_000);

		// Events owed to the endpoint: it is disabled (as after a run of failures) and two events are SKIPPED.
		await stage.operator.api('PATCH', `/webhooks/endpoints/${endpoint.id}`, { status: 'DISABLED' });
		await createOrder(2.5);
		await createOrder(3.5);
		await pollFor('two SKIPPED', async () => {
			const { deliveries } = await stage.operator.api('GET', `/webhooks/deliveries?endpointId=${endpoint.id}&status=SKIPPED&limit=10`);
			return deliveries.length === 2 || undefined;
		});

		// The editor: change an option, save, publish. n8n: delete, then checkExists/create.
		const { data: saved } = await rest.call('GET', `/workflows/${CHANGED.id}`);
		const nodes = saved.nodes.map((n: any) =>
			n.name === TRIGGER ? { ...n, parameters: { ...n.parameters, options: { ...n.parameters.options, emitPing: true } } } : n,
		);
		const { data: updated } = await rest.call('PATCH', `/workflows/${CHANGED.id}`, { nodes, versionId: saved.versionId });
		await rest.call('POST', `/workflows/${CHANGED.id}/activate`, { versionId: updated.versionId });

		const runs = await n8n.waitForExecutions(CHANGED.id, 3, 60_000);
		expect((await stage.operator.api('GET', `/webhooks/endpoints/${endpoint.id}`)).status).toBe('ENABLED');
		// Past the grace period: the endpoint was taken back, not deleted; still the only one at the URL.
		await sleep(12_000);
		expect((await liveAt(url)).map((e) => e.id)).toEqual([endpoint.id]);
		const events = runs.flatMap((r) => nodeItems(r.data, TRIGGER).map((i: any) => i.eventId));
		expect(new Set(events).size).toBe(events.length);
		expect(n8n.finishedExecutions(CHANGED.id)).toHaveLength(3);
	});
});
