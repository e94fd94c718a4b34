/** Payment Order → Get (by ID and from the list search), over real HTTP against the sandbox. */
import { listSearch } from '../../../../harness/n8nContexts';
import { createOrder, node, useEnv } from '../support';

const env = useEnv();

describe('Get', () => {
	test('Get by ID and from a list locator', async () => {
		const id = await createOrder(env);
		const [byId] = await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id } });
		const [byList] = await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'list', value: id } });
		expect(byId.json.id).toBe(id);
		expect(byId.json.returns).toMatchObject({ revision: 0, details: null });
		expect(byList.json.id).toBe(id);
		const sub = env.state.subaccounts[0].id;
		await expect(
			env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id }, options: { subaccountId: sub } }),
		).rejects.toMatchObject({ httpCode: '404' });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/payment-orders/${id}`,
			`GET /api/v1/payment-orders/${id}`,
			`GET /api/v1/payment-orders/${id}`,
		]);
		expect(reqs[2].query).toEqual({ subaccountId: sub });
	});

	test('Get of an unknown order is a NodeApiError with the status', async () => {
		await expect(env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: 'nope' } })).rejects.toMatchObject({
			httpCode: '404',
			message: 'Payment Order nope not found',
		});
	});

	test('the From List search pages through orders 50 at a time and filters', async () => {
		await env.op('POST', '/payment-orders/bulk', { count: 55, fromUserId: env.alice.id });
		const setup = {
			parameters: { resource: 'paymentOrder', operation: 'get' },
			credentials: { apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl },
		};
		const first = (await listSearch(node, 'searchPaymentOrders', setup)) as any;
		expect(first.results).toHaveLength(50);
		expect(first.paginationToken).toBe('50');
		const second = (await listSearch(node, 'searchPaymentOrders', setup, undefined, first.paginationToken)) as any;
		expect(second.results).toHaveLength(5);
		expect(second.paginationToken).toBeUndefined();
		const filtered = (await listSearch(node, 'searchPaymentOrders', setup, first.results[3].value)) as any;
		expect(filtered.results.map((r: any) => r.value)).toEqual([first.results[3].value]);
	});
});
