/** Webhook Delivery → Get Many across pages with filters, then Get and Replay of one, over real HTTP against the sandbox. */
import { json, payment, useEnv, webhookEndpoint } from '../support';

const env = useEnv();

describe('Get Many', () => {
	test('Deliveries: Get Many across pages with filters, Get, Replay', async () => {
		const endpoint = await webhookEndpoint(env);
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
