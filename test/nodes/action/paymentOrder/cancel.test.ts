/** Payment Order → Cancel, over real HTTP against the sandbox. */
import { createOrder, useEnv } from '../support';

const env = useEnv();

describe('Cancel', () => {
	test('sends the reason and reports the 202', async () => {
		const id = await createOrder(env);
		const [item] = await env.run({
			resource: 'paymentOrder',
			operation: 'cancel',
			paymentOrderId: { mode: 'id', value: id },
			reason: 'customer withdrew',
		});
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: `/api/v1/payment-orders/${id}/cancel`, status: 202 });
		expect(req.body).toEqual({ reason: 'customer withdrew' });
		expect(item.json).toMatchObject({ paymentOrderId: id, accepted: true, statusCode: 202 });
	});

	test("a subaccount's order: 404 without Subaccount ID, canceled with it (sent in the body)", async () => {
		const sub = env.state.subaccounts[0].id;
		const { paymentOrderId: id } = await env.op('POST', '/payment-orders/bulk', { count: 1, subaccountId: sub }).then(async () => {
			const page = await fetch(`${env.sb.mainUrl}/api/v1/payment-orders?subaccountId=${sub}&limit=1&status=AWAITING_FUNDS`, {
				headers: { 'x-api-key': env.sb.apiKey },
			});
			return { paymentOrderId: ((await page.json()) as any).paymentOrders[0].id as string };
		});
		await env.mark();
		const cancel = (options = {}) =>
			env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'r', options });
		await expect(cancel()).rejects.toMatchObject({ httpCode: '404' });
		const [item] = await cancel({ subaccountId: sub });
		expect(item.json).toMatchObject({ accepted: true, statusCode: 202 });
		const reqs = await env.requests();
		expect(reqs.map((r) => [r.status, r.body])).toEqual([
			[404, { reason: 'r' }],
			[202, { reason: 'r', subaccountId: sub }],
		]);
	});

	test('an un-keyed write is not retried after commit-then-500', async () => {
		const id = await createOrder(env);
		await env.op('POST', '/faults', { method: 'POST', path: '/cancel$', count: 1, commitThen500: true });
		await expect(env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'r' })).rejects.toMatchObject({
			httpCode: '500',
		});
		expect((await env.requests()).map((r) => r.status)).toEqual([500]);
	});
});
