/** Webhook Endpoint → Create (the secret shown once: Get, Get Many and Update never show it), over real HTTP against the sandbox. */
import { json, useEnv, webhookEndpoint } from '../support';

const env = useEnv();

describe('Create', () => {
	const byId = (id: string) => ({ mode: 'id', value: id });

	test('Create returns the secret once; Get, Get Many and Update never show it', async () => {
		const created = await webhookEndpoint(env);
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
});
