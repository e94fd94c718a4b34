/**
 * The router around every operation: Continue On Fail (errors stay on their own items) and
 * concurrency (output order and paired items kept), shown with Payment Order → Create.
 */
import { createRunExecutionData } from 'n8n-workflow';

import { walletOf } from '../../../harness/sandboxClient';
import { orderCount, payment, useEnv } from './support';

const env = useEnv();

/**
 * Holds the first payment request the sandbox receives (its body read) until `others` later ones are
 * answered, or 20 s pass: an order of answers, no timing bound. Gives how many were answered meanwhile.
 */
function holdFirstPayment(others: number): () => number {
	const { traffic } = env.sb.services;
	const since = traffic.seq;
	const answeredPosts = () => traffic.requests.filter((r) => r.seq > since && r.method === 'POST' && r.path === '/api/v1/payment').length;
	let answeredWhileHeld = -1;
	const hold = new Promise<void>((release) => {
		const deadline = Date.now() + 20_000;
		const poll = setInterval(() => {
			if (answeredPosts() < others && Date.now() < deadline) return;
			clearInterval(poll);
			answeredWhileHeld = answeredPosts();
			release();
		}, 20);
	});
	traffic.faults.push({ method: 'POST', path: /^\/api\/v1\/payment$/, pathSource: '^/api/v1/payment$', count: 1, hold });
	return () => answeredWhileHeld;
}

describe('Continue On Fail and concurrency', () => {
	test('Continue On Fail: the bad item carries its error, the others go on', async () => {
		const items = [{ json: { amount: '10' } }, { json: { amount: '1.000001' } }, { json: { amount: '30' } }];
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}' }), { items, continueOnFail: true });
		expect(out).toHaveLength(3);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[1].json.error).toMatch(/at most 4 decimal places/);
		expect(Object.keys(out[1].json)).toEqual(['error']); // what n8n keeps of a failed item's json
		expect(out[0].json.amountUsd).toBe(10);
		expect(out[2].json.amountUsd).toBe(30);
		expect(await orderCount(env)).toBe(2);
	});

	test('Continue On Fail with concurrency: errors stay on their own items, in order', async () => {
		const amounts = ['1', 'bad', '3', '0', '5', '6.00001', '7'];
		const items = amounts.map((amount) => ({ json: { amount } }));
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 3 } }), {
			items,
			continueOnFail: true,
		});
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(out.map((o) => (o.json.error ? 'error' : o.json.amountUsd))).toEqual([1, 'error', 3, 'error', 5, 'error', 7]);
		expect(await orderCount(env)).toBe(4);
	});

	test('Continue On Fail with an API error: the item carries the status and the run goes on', async () => {
		const items = [{ json: { to: walletOf(env.bob, 'ethereum') } }, { json: { to: '0x000000000000000000000000000000000000dead' } }];
		const out = await env.run(payment(env, { toAddress: '={{ $json.to }}' }), { items, continueOnFail: true });
		expect(out).toHaveLength(2);
		expect(out[0].json.paymentOrderId).toBeDefined();
		expect(out[1].json.error).toMatch(/^Recipient Address "0x0+dead" on Ethereum is not a registered wallet of the credential's own account/);
		expect(out[1].pairedItem).toEqual({ item: 1 });
		expect(out[1].json.details).toEqual({ httpCode: '400', description: expect.stringMatching(/HTTP 400/) });
		expect(out[1].error).toBeUndefined(); // an item-level error would make n8n drop the input's fields on the error output
	});

	test('without Continue On Fail the first failing item is thrown and no later item starts', async () => {
		// Item 2's payee is refused by the service (a row the node can check would stop the batch before anything is sent).
		const bob = walletOf(env.bob, 'ethereum');
		const items = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ json: { amount: String(n + 1), to: n === 2 ? '0x000000000000000000000000000000000000dead' : bob } }));
		const params = payment(env, { amountUsd: '={{ $json.amount }}', toAddress: '={{ $json.to }}', options: { concurrency: 2 } });
		await expect(env.run(params, { items })).rejects.toMatchObject({
			context: expect.objectContaining({ itemIndex: 2 }),
		});
		// Items 0, 1, 2 (refused) and at most the one running beside item 2 were sent; nothing after.
		const sent = (await env.requests()).map((r) => r.body.amountUsd);
		expect(sent.slice(0, 2).sort()).toEqual([1, 2]);
		expect(sent).toContain(3);
		expect(sent.length).toBeLessThanOrEqual(4);
	});

	test('concurrency: a slow first item does not reorder the output', async () => {
		// The first request to reach the sandbox is held until the five others are answered.
		const answeredWhileHeld = holdFirstPayment(5);
		const items = Array.from({ length: 6 }, (_, n) => ({ json: { amount: String(n + 1) } }));
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 3 } }), { items });
		expect(answeredWhileHeld()).toBe(5);
		// The sandbox logs a request when it answers: item 0 was answered after later items.
		const answered = (await env.requests()).map((r) => r.body.amountUsd);
		expect(answered.indexOf(1)).toBeGreaterThan(0);
		expect(out.map((o) => o.json.amountUsd)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
	});

	test('concurrency keeps output order and paired items, and runs items in parallel', async () => {
		// The first payment request the sandbox receives is held until nine others are answered. One item
		// at a time, none could be answered while it waits; five at a time, all the others are.
		const answeredWhileHeld = holdFirstPayment(9);
		const items = Array.from({ length: 10 }, (_, n) => ({ json: { amount: String(n + 1) } }));
		const params = payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 5 } });
		await env.mark();
		const data = createRunExecutionData();
		const out = await env.run(params, { items, runExecutionData: data });
		expect(out.map((o) => o.json.amountUsd)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		const posts = (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(posts).toHaveLength(10);
		expect(answeredWhileHeld()).toBe(9);
		// The same run one at a time gives the same keys: they depend on the item, not on timing.
		await env.op('DELETE', '/faults');
		const sequential = await env.run({ ...params, options: { concurrency: 1 } }, { items, runExecutionData: data });
		expect(sequential.map((o) => o.json.idempotencyKey)).toEqual(out.map((o) => o.json.idempotencyKey));
		expect(await orderCount(env)).toBe(10);
	});
});
