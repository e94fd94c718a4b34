/** Reward Rule → Create (and Get Many of what it made), over real HTTP against the rewards API on its own base URL. */
import { json, useEnv } from '../support';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('Reward Rule (rewards API on its own base URL)', () => {
	const definition = {
		measure: { type: 'daily_balance', metricKey: 'balance_usd' },
		condition: { type: 'always' },
		payout: { type: 'fixed', amount: '5.00' },
		limits: [{ type: 'cap_per_period', amount: '50.00' }],
	};

	test('Create sends Idempotency-Key to the rewards host; a retried POST makes one rule', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '/rewards/rules$', count: 1, commitThen500: true });
		const [item] = await env.run({
			resource: 'rewardRule',
			operation: 'create',
			idempotencyKeyMode: 'derived',
			name: 'Balance bonus',
			description: 'daily',
			definition: JSON.stringify(definition),
		});
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.api} ${r.method} ${r.path} ${r.status}`)).toEqual([
			'rewards POST /api/v1/rewards/rules 500',
			'rewards POST /api/v1/rewards/rules 201',
		]);
		expect(reqs[0].headers['idempotency-key']).toBe(item.json.idempotencyKey);
		expect(reqs[1].headers['idempotency-key']).toBe(item.json.idempotencyKey);
		expect(reqs[0].body).toEqual({ name: 'Balance bonus', description: 'daily', definition });
		expect(item.json).toMatchObject({ name: 'Balance bonus', version: 1, status: 'active' });
		await env.mark();
		const rules = await env.run({ resource: 'rewardRule', operation: 'getMany', status: 'active', returnAll: true });
		expect(json(rules).map((r) => r.name)).toEqual(['Balance bonus']);
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'rewards', method: 'GET', path: '/api/v1/rewards/rules', query: { status: 'active' } });
	});

	test('a broken definition: invalid JSON is refused locally; a 422 names the path', async () => {
		await expect(env.run({ resource: 'rewardRule', operation: 'create', idempotencyKeyMode: 'derived', name: 'x', definition: '{not json' })).rejects.toThrow(
			'Definition must be valid JSON',
		);
		expect(await env.requests()).toEqual([]);
		await expect(
			env.run({
				resource: 'rewardRule',
				operation: 'create',
				idempotencyKeyMode: 'derived',
				name: 'x',
				definition: JSON.stringify({ ...definition, payout: { type: 'fixed', amount: 'lots' } }),
			}),
		).rejects.toMatchObject({ httpCode: '422', message: expect.stringContaining('definition.payout.amount') });
	});
});
