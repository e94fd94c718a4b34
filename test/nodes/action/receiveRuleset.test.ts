/** Receive Ruleset, over real HTTP against the sandbox. */
import { ruleset, walletOf, useEnv } from './support';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../support/sleep')>('../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('Receive Ruleset', () => {
	const create = (extra = {}) => ruleset(env, { additionalFields: { name: '  Payroll in  ', mode: 'INSTANT', metadata: '{"team":"ops"}' }, ...extra });

	test('Create sends an idempotencyKey body field; a retry after commit-then-500 makes one ruleset', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '/rulesets$', count: 1, commitThen500: true });
		const [item] = await env.run(create());
		const reqs = await env.requests();
		expect(reqs.map((r) => r.status)).toEqual([500, 201]);
		expect(reqs[0].body).toEqual({
			deliveredAsset: 'USDC',
			deliveredChain: 'ethereum',
			toAddress: walletOf(env.bob, 'ethereum'),
			mode: 'INSTANT',
			name: 'Payroll in',
			metadata: { team: 'ops' },
			idempotencyKey: item.json.idempotencyKey,
		});
		expect(reqs[1].body.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(item.json).toMatchObject({ name: 'Payroll in', status: 'ACTIVE' });
		const state = await env.op('GET', '/state');
		expect(state.counts).toBeDefined();
	});

	test('Rename: PATCH with the trimmed name; bad names refused before sending', async () => {
		const [created] = await env.run(create());
		await env.mark();
		const [renamed] = await env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: ' Payroll out ' });
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'PATCH', path: `/api/v1/rulesets/${created.json.id}`, body: { name: 'Payroll out' } });
		expect(renamed.json.name).toBe('Payroll out');
		await env.mark();
		await expect(env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: 'x'.repeat(121) })).rejects.toThrow(
			/Name must be 1-120/,
		);
		await expect(env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: '   ' })).rejects.toThrow(
			'Name is required',
		);
		expect(await env.requests()).toEqual([]);
	});
});
