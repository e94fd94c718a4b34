/** Account → Get Limits, over real HTTP against the sandbox. */
import { useEnv } from '../support';

const env = useEnv();

describe('Get Limits', () => {
	test('Account Get Limits: one item; subaccount in the query', async () => {
		const [item] = await env.run({ resource: 'account', operation: 'getLimits' });
		expect(item.json).toMatchObject({ accountId: env.state.accountId, maxTxUsd: { limit: env.state.limits.maxTxUsd, used: 0 } });
		await env.mark();
		const sub = env.state.subaccounts[0].id;
		await env.run({ resource: 'account', operation: 'getLimits', options: { subaccountId: sub } });
		expect((await env.requests())[0].query).toEqual({ subaccountId: sub });
	});
});
