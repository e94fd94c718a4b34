/** Account, over real HTTP against the sandbox. */
import { startEnv, type Env } from './env';

let env: Env;
beforeAll(async () => {
	env = await startEnv();
});
afterAll(async () => {
	await env.sb.close();
});
beforeEach(async () => {
	await env.reset();
});

describe('Account', () => {
	test('Account Get Limits: one item; subaccount in the query', async () => {
		const [item] = await env.run({ resource: 'account', operation: 'getLimits' });
		expect(item.json).toMatchObject({ accountId: env.state.accountId, maxTxUsd: { limit: env.state.limits.maxTxUsd, used: 0 } });
		await env.mark();
		const sub = env.state.subaccounts[0].id;
		await env.run({ resource: 'account', operation: 'getLimits', options: { subaccountId: sub } });
		expect((await env.requests())[0].query).toEqual({ subaccountId: sub });
	});
});
