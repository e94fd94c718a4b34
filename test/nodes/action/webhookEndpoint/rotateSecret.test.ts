/** Webhook Endpoint → Rotate Secret (graceful and immediate), and what follows a rotation: Promote Secret, Send Test Event, Delete; over real HTTP against the sandbox. */
import { useEnv, webhookEndpoint } from '../support';

const env = useEnv();

const byId = (id: string) => ({ mode: 'id', value: id });

describe('Rotate Secret', () => {
	test('Rotate (graceful and immediate), Promote, Test, Delete', async () => {
		const created = await webhookEndpoint(env);
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
});
