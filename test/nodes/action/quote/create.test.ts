/** Quote, over real HTTP against the sandbox. */
import { useEnv } from '../support';

const env = useEnv();

describe('Quote', () => {
	test('Quote Create: body, amount checked, not retried', async () => {
		const params = {
			resource: 'quote',
			operation: 'create',
			toChain: 'base',
			asset: 'USDC',
			amountUsd: '10.25',
			additionalFields: { name: 'payroll', subaccountId: env.state.subaccounts[0].id },
		};
		const [item] = await env.run(params);
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: '/api/v1/quotes' });
		expect(req.body).toEqual({
			toChain: 'base',
			asset: 'USDC',
			amountUsd: 10.25,
			name: 'payroll',
			subaccountId: env.state.subaccounts[0].id,
		});
		expect(item.json).toMatchObject({ serviceable: true, amountUsd: 10.25 });
		await env.mark();
		await expect(env.run({ ...params, amountUsd: '0.00001' })).rejects.toThrow(/Amount \(USD\) must have at most 4 decimal places/);
		await expect(env.run({ ...params, additionalFields: { name: 'n'.repeat(65) } })).rejects.toThrow(/Name must be 1-64/);
		expect(await env.requests()).toEqual([]);
		await env.op('POST', '/faults', { method: 'POST', path: '/quotes$', count: 1, commitThen500: true });
		await expect(env.run(params)).rejects.toMatchObject({ httpCode: '500' });
		expect((await env.requests()).map((r) => r.status)).toEqual([500]);
	});
});
