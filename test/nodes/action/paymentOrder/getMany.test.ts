/** Payment Order → Get Many: pages, limits and filters, over real HTTP against the sandbox. */
import { PAYMENT_ORDER_STATUSES } from '../../../../nodes/shared/paymentOrderStatus';
import { listSearch } from '../../../../harness/n8nContexts';
import { json, node, useEnv } from '../support';

const env = useEnv();

describe('Get Many', () => {
	test('Return All follows several pages; Limit stops early; filters go to the query', async () => {
		await env.op('POST', '/payment-orders/bulk', { count: 7, fromUserId: env.alice.id });
		await env.mark();
		const getMany = { resource: 'paymentOrder', operation: 'getMany' };
		const all = await env.run({ ...getMany, returnAll: true, filters: { status: ['AWAITING_FUNDS', 'FUNDED'] } });
		expect(all).toHaveLength(7);
		expect(all.every((o) => o.pairedItem && (o.pairedItem as any).item === 0)).toBe(true);
		const some = await env.run({ ...getMany, returnAll: false, limit: 3 });
		expect(some).toHaveLength(3);
		expect(json(some).map((o) => o.id)).toEqual(
			json(all)
				.slice(0, 3)
				.map((o) => o.id),
		);
		const reqs = await env.requests();
		expect(reqs[0].query).toMatchObject({ status: ['AWAITING_FUNDS', 'FUNDED'], limit: '1000', offset: '0' });
		expect(reqs[reqs.length - 1].query).toMatchObject({ limit: '3', offset: '0' });
	});

	test('Return All and Limit across several small pages', async () => {
		await env.op('POST', '/payment-orders/bulk', { count: 7, fromUserId: env.alice.id });
		await env.mark();
		const getMany = { resource: 'paymentOrder', operation: 'getMany', options: { pageSize: 2 } };
		const all = await env.run({ ...getMany, returnAll: true });
		expect(all).toHaveLength(7);
		expect(new Set(json(all).map((o) => o.id)).size).toBe(7);
		let reqs = await env.requests();
		expect(reqs.map((r) => [r.query.limit, r.query.offset])).toEqual([
			['2', '0'],
			['2', '2'],
			['2', '4'],
			['2', '6'],
		]);
		await env.mark();
		const five = await env.run({ ...getMany, returnAll: false, limit: 5 });
		expect(json(five).map((o) => o.id)).toEqual(
			json(all)
				.slice(0, 5)
				.map((o) => o.id),
		);
		reqs = await env.requests();
		expect(reqs.map((r) => [r.query.limit, r.query.offset])).toEqual([
			['2', '0'],
			['2', '2'],
			['1', '4'],
		]);
	});

	test('status is always sent (required by the reference): every known status when none is picked', async () => {
		await env.run({ resource: 'paymentOrder', operation: 'getMany', returnAll: false, limit: 5 });
		await env.run({ resource: 'paymentOrder', operation: 'getMany', returnAll: false, limit: 5, filters: { status: [] } });
		const setup = { parameters: { resource: 'paymentOrder', operation: 'get' }, credentials: { apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl } };
		await listSearch(node, 'searchPaymentOrders', setup);
		const reqs = await env.requests();
		expect(reqs.map((r) => [r.status, r.query.status])).toEqual([
			[200, [...PAYMENT_ORDER_STATUSES]],
			[200, [...PAYMENT_ORDER_STATUSES]],
			[200, [...PAYMENT_ORDER_STATUSES]],
		]);
	});

	test('filters: sender, creation window, subaccount; subaccount and include together are refused', async () => {
		const getMany = { resource: 'paymentOrder', operation: 'getMany', returnAll: true };
		await env.run({
			...getMany,
			filters: {
				fromUserId: env.alice.id,
				createdAfter: '2026-01-01T00:00:00Z',
				createdBefore: '2030-01-01T00:00:00Z',
				includeSubaccounts: true,
			},
		});
		const [req] = await env.requests();
		expect(req.query).toMatchObject({
			fromUserId: env.alice.id,
			createdAfter: '2026-01-01T00:00:00.000Z',
			createdBefore: '2030-01-01T00:00:00.000Z',
			includeSubaccounts: 'true',
		});
		await env.mark();
		await expect(env.run({ ...getMany, filters: { subaccountId: env.state.subaccounts[0].id, includeSubaccounts: true } })).rejects.toThrow(
			'Use either Subaccount ID or Include Subaccounts, not both',
		);
		expect(await env.requests()).toEqual([]);
		await env.run({ ...getMany, filters: { subaccountId: env.state.subaccounts[0].id } });
		expect((await env.requests())[0].query).toMatchObject({ subaccountId: env.state.subaccounts[0].id });
	});
});
