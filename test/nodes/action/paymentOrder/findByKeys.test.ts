/** Payment Order → Find by Keys: one paged listing per run, over real HTTP against the sandbox. */
import { json, payment, useEnv } from '../support';

const env = useEnv();

const find = (options = {}) => ({ resource: 'paymentOrder', operation: 'findByKeys', businessKey: '={{ $json.reference }}', options });
const refs = (...keys: string[]) => keys.map((reference) => ({ json: { reference } }));
const pay = async (key: string, extra = {}) => (await env.run(payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: key, ...extra })))[0].json;

test('each item gets its order with the current status, or found: false; one listing for all items', async () => {
	const a = await pay('INV-find-1');
	await pay('INV-find-2');
	const c = await pay('INV-find-3', { amountUsd: '3' });
	await env.op('POST', '/payment-orders/bulk', { count: 5 }); // newer orders without keys: paged past
	await env.mark();
	const out = json(await env.run(find({ pageSize: 2 }), { items: refs('INV-find-1', 'INV-find-3', 'INV-find-9') }));
	expect(out.map((o) => o.found)).toEqual([true, true, false]);
	expect(out[0]).toMatchObject({ businessKey: 'INV-find-1', id: a.id, idempotencyKey: 'INV-find-1' });
	expect(out[1]).toMatchObject({ businessKey: 'INV-find-3', id: c.id, amountUsd: 3 });
	expect(typeof out[0].status).toBe('string');
	expect(out[2]).toMatchObject({ businessKey: 'INV-find-9', note: expect.stringContaining('No payment order was created with this key since') });
	const reqs = await env.requests();
	// 8 orders, 2 per page, one listing shared by the three items (no early stop: INV-find-9 is missing).
	expect(reqs.map((r) => `${r.method} ${r.path} ${r.query.offset}`)).toEqual([0, 2, 4, 6].map((o) => `GET /api/v1/payment-orders ${o}`));
	expect(reqs[0].query).toMatchObject({ includeSubaccounts: 'true', limit: '2' });
	expect(Date.parse(String(reqs[0].query.createdAfter))).toBeLessThan(Date.now() - 29 * 86_400_000);
});

test('the listing stops as soon as every key is found', async () => {
	await pay('INV-early-1');
	await env.op('POST', '/payment-orders/bulk', { count: 6 });
	await pay('INV-early-2');
	await env.mark();
	const out = json(await env.run(find({ pageSize: 2 }), { items: refs('INV-early-2') }));
	expect(out[0].found).toBe(true);
	expect(await env.requests()).toHaveLength(1);
});

test('Created After bounds the window: an older order is not found, and says where it looked', async () => {
	await pay('INV-old-1');
	const later = new Date(Date.now() + 60_000).toISOString();
	const [item] = json(await env.run(find({ createdAfter: later }), { items: refs('INV-old-1') }));
	expect(item).toMatchObject({ found: false, searchedFrom: later });
});

test('an item without a usable key fails alone, naming the field, and the others are answered', async () => {
	await pay('INV-ok-1');
	const out = json(await env.run(find(), { items: refs('INV-ok-1', '   '), continueOnFail: true }));
	expect(out[0].found).toBe(true);
	expect(out[1].error).toBe('Business Key must not be empty');
});
