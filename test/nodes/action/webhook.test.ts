/** Webhook Endpoint and Webhook Delivery, over real HTTP against the sandbox. */
import { listSearch } from '../../../harness/n8nContexts';
import { json, node, payment, useEnv } from './support';

const env = useEnv();

const creds = () => ({ apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl });

describe('Webhook Endpoint and Delivery', () => {
	const url = 'https://127.0.0.1:9/hooks';
	async function createEndpoint(): Promise<any> {
		const [item] = await env.run({
			resource: 'webhookEndpoint',
			operation: 'create',
			url,
			description: 'payouts',
			eventTypes: ['payment_order'],
		});
		await env.mark();
		return item.json;
	}
	const byId = (id: string) => ({ mode: 'id', value: id });

	test('Create returns the secret once; Get, Get Many and Update never show it', async () => {
		const created = await createEndpoint();
		expect(created.secret).toMatch(/^whsec_/);
		const [got] = await env.run({ resource: 'webhookEndpoint', operation: 'get', endpointId: byId(created.id) });
		const many = await env.run({ resource: 'webhookEndpoint', operation: 'getMany', returnAll: true });
		const [updated] = await env.run({
			resource: 'webhookEndpoint',
			operation: 'update',
			endpointId: byId(created.id),
			updateFields: { status: 'DISABLED', description: 'paused' },
		});
		for (const record of [got.json, ...json(many), updated.json]) {
			expect(record).not.toHaveProperty('secret');
			expect(JSON.stringify(record)).not.toContain(created.secret);
		}
		expect(updated.json).toMatchObject({ status: 'DISABLED', description: 'paused' });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/webhooks/endpoints/${created.id}`,
			'GET /api/v1/webhooks/endpoints',
			`PATCH /api/v1/webhooks/endpoints/${created.id}`,
		]);
		expect(reqs[2].body).toEqual({ status: 'DISABLED', description: 'paused' });
	});

	test('Create refuses a non-https URL before sending', async () => {
		await expect(env.run({ resource: 'webhookEndpoint', operation: 'create', url: 'http://example.com/x' })).rejects.toThrow('URL must start with https://');
		expect(await env.requests()).toEqual([]);
	});

	test('Rotate (graceful and immediate), Promote, Test, Delete', async () => {
		const created = await createEndpoint();
		const [graceful] = await env.run({ resource: 'webhookEndpoint', operation: 'rotateSecret', endpointId: byId(created.id) });
		expect(graceful.json).toMatchObject({ id: created.id, rotation: 'graceful', secretNext: expect.stringMatching(/^whsec_/) });
		const [promoted] = await env.run({ resource: 'webhookEndpoint', operation: 'promoteSecret', endpointId: byId(created.id) });
		expect(promoted.json).toMatchObject({ id: created.id, promoted: true });
		expect(promoted.json).not.toHaveProperty('secret');
		const [immediate] = await env.run({
			resource: 'webhookEndpoint',
			operation: 'rotateSecret',
			endpointId: byId(created.id),
			rotation: 'immediate',
		});
		expect(immediate.json.rotation).toBe('immediate');
		const [tested] = await env.run({ resource: 'webhookEndpoint', operation: 'sendTestEvent', endpointId: byId(created.id) });
		expect(tested.json).toMatchObject({ endpointId: created.id, delivered: false });
		const [deleted] = await env.run({ resource: 'webhookEndpoint', operation: 'delete', endpointId: byId(created.id) });
		expect(deleted.json).toMatchObject({ id: created.id, deleted: true });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`)).toEqual([
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret {}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret/promote {}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret {"immediate":"true"}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/test {}`,
			`DELETE /api/v1/webhooks/endpoints/${created.id} {}`,
		]);
	});

	test('the endpoint list search filters by URL', async () => {
		const created = await createEndpoint();
		const setup = { parameters: { resource: 'webhookEndpoint', operation: 'get' }, credentials: creds() };
		const all = (await listSearch(node, 'searchWebhookEndpoints', setup)) as any;
		expect(all.results.map((r: any) => r.value)).toEqual([created.id]);
		const none = (await listSearch(node, 'searchWebhookEndpoints', setup, 'nothing-like-this')) as any;
		expect(none.results).toEqual([]);
	});

	test('Deliveries: Get Many across pages with filters, Get, Replay', async () => {
		const endpoint = await createEndpoint();
		const items = [1, 2, 3].map((n) => ({ json: { amount: String(n) } }));
		await env.run(payment(env, { amountUsd: '={{ $json.amount }}' }), { items });
		await env.op('POST', '/webhooks/flush');
		await env.mark();
		const all = await env.run({
			resource: 'webhookDelivery',
			operation: 'getMany',
			returnAll: true,
			filters: { endpointId: endpoint.id, type: 'payment_order' },
		});
		expect(all.length).toBeGreaterThanOrEqual(3);
		const limited = await env.run({ resource: 'webhookDelivery', operation: 'getMany', returnAll: false, limit: 2 });
		expect(json(limited).map((d) => d.id)).toEqual(
			json(all)
				.slice(0, 2)
				.map((d) => d.id),
		);
		const reqs = await env.requests();
		expect(reqs[0].query).toMatchObject({ endpointId: endpoint.id, type: 'payment_order', limit: '1000', offset: '0' });
		const id = all[0].json.id as string;
		await env.mark();
		const [one] = await env.run({ resource: 'webhookDelivery', operation: 'get', deliveryId: id });
		expect(one.json.id).toBe(id);
		const [replayed] = await env.run({ resource: 'webhookDelivery', operation: 'replay', deliveryId: id });
		expect(replayed.json.replayedDeliveryId).toBe(id);
		expect(replayed.json.id).not.toBe(id);
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/webhooks/deliveries/${id}`,
			`POST /api/v1/webhooks/deliveries/${id}/replay`,
		]);
	});
});
