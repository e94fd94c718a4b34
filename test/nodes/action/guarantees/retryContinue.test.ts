/**
 * n8n's "Retry On Fail" together with "Continue On Fail" re-runs every item of the node when the
 * first output item carries an error: items [bad, good] with 3 tries send the good payment three
 * times. Only the derived key, stable across those re-runs, keeps that to one order.
 */
import { json, payment, useEnv } from '../support';
import { PAYMENT_ORDER_STATUSES } from '../../../../nodes/shared/paymentOrderStatus';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv({ reset: false });

test('Retry On Fail + Continue On Fail: the good item of [bad, good] makes exactly one order', async () => {
	const parameters = payment(env, { amountUsd: '={{ $json.amount }}' });
	const out = await env.run(parameters, {
		items: [{ json: { amount: '0.00001' } }, { json: { amount: '12.5' } }],
		continueOnFail: true,
		retryOnFail: { maxTries: 3 },
	});
	const [bad, good] = json(out);
	expect(bad.error).toMatch(/Amount \(USD\) must have at most 4 decimal places/);
	expect(good.amountUsd).toBe(12.5);

	const sent = (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
	expect(sent).toHaveLength(3); // the good item went out on every one of the 3 tries...
	expect(new Set(sent.map((r) => r.body.idempotencyKey)).size).toBe(1); // ...with one key
	const { paymentOrders } = (await (
		await fetch(`${env.sb.mainUrl}/api/v1/payment-orders?limit=1000&status=${PAYMENT_ORDER_STATUSES.join(',')}`, { headers: { 'x-api-key': env.sb.apiKey } })
	).json()) as { paymentOrders: any[] };
	expect(paymentOrders.filter((o: any) => o.amountUsd === 12.5)).toHaveLength(1);
	expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
}, 30_000);
