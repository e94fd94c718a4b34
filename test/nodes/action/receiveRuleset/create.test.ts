/** Receive Ruleset → Create, over real HTTP against the sandbox. */
import { walletOf } from '../../../../harness/sandboxClient';
import { ruleset, useEnv } from '../support';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

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
});
