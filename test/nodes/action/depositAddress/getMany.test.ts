/** Deposit Address, over real HTTP against the sandbox. */
import { json, useEnv } from '../support';

const env = useEnv();

describe('Deposit Address', () => {
	test('Deposit Address Get Many: one item per address; subaccount in the query', async () => {
		const out = await env.run({ resource: 'depositAddress', operation: 'getMany' });
		expect(json(out)).toEqual(env.state.depositAddresses);
		await env.mark();
		const sub = env.state.subaccounts.find((s: any) => s.provisioned) ?? env.state.subaccounts[0];
		await env.run({ resource: 'depositAddress', operation: 'getMany', options: { subaccountId: sub.id } }, { continueOnFail: true });
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'GET', path: '/api/v1/deposit-addresses', query: { subaccountId: sub.id } });
	});
});
