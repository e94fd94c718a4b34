/** Payment Order operations over real HTTP against the sandbox, inside n8n-core's ExecuteContext. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES } from '../../../nodes/shared/paymentOrderStatus';
import { listSearch } from '../../support/n8nContexts';
import { json, node, payment, startEnv, walletOf, type Env } from './env';

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

const orderCount = async () => (await env.op('GET', '/state')).counts.orders as number;

describe('Create', () => {
	test('standard order: body, derived key, x-api-key, output', async () => {
		const before = Date.now();
		const [item] = await env.run(payment(env));
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'main', method: 'POST', path: '/api/v1/payment', status: 201 });
		expect(req.headers['x-api-key']).toBe(env.sb.apiKey);
		expect(req.body).toMatchObject({
			fromUserId: env.alice.id,
			toAddress: walletOf(env.bob, 'ethereum'),
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: 125.5,
			memo: 'invoice 42',
			mode: 'standard',
		});
		const expiresAt = Date.parse(req.body.expiresAt);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 60 * 60_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 65 * 60_000);
		expect(req.body.idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(item.json.idempotencyKey).toBe(req.body.idempotencyKey);
		expect(item.json.paymentOrderId).toBe(item.json.id);
		expect(item.json.status).toBe('AWAITING_FUNDS');
		expect(Array.isArray(item.json.depositAddresses)).toBe(true);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	test('the output is the order flat, as Get returns it, plus created, the key and where to pay', async () => {
		const [item] = await env.run(payment(env, { toChain: 'base', toAddress: walletOf(env.bob, 'base') }));
		const { depositAddresses } = (await env.op('GET', '/state')) as { depositAddresses: IDataObject[] };
		const [got] = await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: String(item.json.id) } });
		expect(item.json).not.toHaveProperty('paymentOrder');
		const { created, paymentOrderId, depositAddress, depositAddressNote, depositAddresses: list, idempotencyKey, ...order } = item.json;
		expect({ created, paymentOrderId, idempotencyKey }).toEqual({ created: true, paymentOrderId: got.json.id, idempotencyKey: got.json.idempotencyKey });
		// Every order field Get shows (Get adds only the returns block) is at the top level with the same value.
		const { returns, ...fromGet } = got.json;
		expect(returns).toBeDefined();
		expect({ ...order, idempotencyKey }).toEqual(expect.objectContaining({ ...fromGet, status: 'AWAITING_FUNDS', toChain: 'base', asset: 'USDC' }));
		// The one address to pay: USDC on base, the order's asset and chain; the full list beside it.
		const base = depositAddresses.find((d) => d.chain === 'base' && d.symbol === 'USDC');
		expect(depositAddress).toBe(base!.address);
		expect(depositAddressNote).toMatch(/^Send USDC on base \(the order's asset and chain\)/);
		expect(list).toEqual(depositAddresses);
		expect(Object.keys(item.json).slice(0, 2)).toEqual(['created', 'paymentOrderId']);
	});

	test('an explicit Expires At is sent as ISO time', async () => {
		const at = new Date(Date.now() + 3 * 3600_000).toISOString();
		await env.run(payment(env, { expiry: 'at', expiresAt: at }));
		const [req] = await env.requests();
		expect(req.body.expiresAt).toBe(at);
	});

	test('the derived key is anchored on the execution lineage: the same in a retry, new in a new execution', async () => {
		const data = createRunExecutionData();
		const a = await env.run(payment(env), { executionId: '7', runExecutionData: data });
		expect(a[0].json.created).toBe(true);
		// n8n's Retry: a new execution id, mode "retry", the retried execution's data (custom data included).
		const b = await env.run(payment(env), { executionId: '9', mode: 'retry', runExecutionData: data });
		const c = await env.run(payment(env), { executionId: '7' });
		expect(b[0].json.idempotencyKey).toBe(a[0].json.idempotencyKey);
		expect(b[0].json.paymentOrderId).toBe(a[0].json.paymentOrderId);
		expect(b[0].json.created).toBe(false);
		expect(c[0].json.idempotencyKey).not.toBe(a[0].json.idempotencyKey);
		expect(c[0].json.paymentOrderId).not.toBe(a[0].json.paymentOrderId);
		expect(await orderCount()).toBe(2);
	});

	test('a business key survives re-running the execution: one order', async () => {
		const expiresAt = new Date(Date.now() + 3 * 3600_000).toISOString();
		const params = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-2026-0042', expiry: 'at', expiresAt });
		const a = await env.run(params, { executionId: '1' });
		const b = await env.run(params, { executionId: '2' });
		expect(a[0].json.idempotencyKey).toBe('INV-2026-0042');
		expect(b[0].json.paymentOrderId).toBe(a[0].json.paymentOrderId);
		const reqs = await env.requests();
		expect(reqs.map((r) => r.body.idempotencyKey)).toEqual(['INV-2026-0042', 'INV-2026-0042']);
		expect(await orderCount()).toBe(1);
	});

	test('a business key reused with a different request is a clear 409 and no second order', async () => {
		const params = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-7' });
		await env.run(params, { executionId: '1' });
		await expect(env.run({ ...params, amountUsd: '200' }, { executionId: '2' })).rejects.toMatchObject({
			httpCode: '409',
			message: "This item's payment order already exists with other values: check it before paying again",
			description: expect.stringContaining('INV-7 was already used for a payment order with a different request'),
		});
		expect(await orderCount()).toBe(1);
	});

	test('commit then 500: the transport retries with the same key and exactly one order exists', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 1, commitThen500: true });
		const [item] = await env.run(payment(env));
		const reqs = await env.requests();
		expect(reqs.map((r) => r.status)).toEqual([500, 201]);
		expect(reqs[0].body.idempotencyKey).toBe(reqs[1].body.idempotencyKey);
		expect(reqs[0].body).toEqual(reqs[1].body);
		expect(item.json.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(await orderCount()).toBe(1);
	});

	test('Retry On Fail re-runs the node with the same key: one order', async () => {
		// Every transport attempt fails after committing, so the node fails and n8n re-runs it.
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
		const [item] = await env.run(payment(env), { retryOnFail: { maxTries: 2 } });
		const reqs = await env.requests();
		expect(reqs).toHaveLength(5);
		expect(new Set(reqs.map((r) => r.body.idempotencyKey)).size).toBe(1);
		expect(item.json.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(await orderCount()).toBe(1);
	}, 30_000);

	test.each([
		[{ amountUsd: '0' }, 'Amount (USD) must be greater than 0'],
		[{ amountUsd: '-5' }, 'Amount (USD) must be greater than 0'],
		[{ amountUsd: '1.23456' }, 'Amount (USD) must have at most 4 decimal places'],
		[{ amountUsd: '12,50' }, 'Amount (USD) must be a plain decimal number'],
		[{ amountUsd: '' }, 'Amount (USD) is required'],
		[{ expiry: 'at', expiresAt: '2020-01-01T00:00:00Z' }, 'Expires At must be in the future'],
		[{ expiry: 'at', expiresAt: '' }, 'Expires At is required for standard orders'],
		[{ mode: 'instant', quoteId: '' }, 'Quote ID is required for instant orders'],
		// A fixed Instant mode hides these fields (n8n then drops their values); a mode expression
		// keeps them shown, so each item is checked at run time.
		[
			{ mode: '={{ "instant" }}', quoteId: 'q-1', expiry: 'at', expiresAt: '2030-01-01T00:00:00Z' },
			'Expires At is not accepted for instant orders',
		],
		[
			{ mode: '={{ "instant" }}', quoteId: 'q-1', additionalFields: { subaccountId: 'a-sub' } },
			'Subaccount ID is not accepted for instant orders',
		],
		[{ idempotencyKeyMode: 'custom', idempotencyKey: '' }, 'Business Key must not be empty'],
		[{ idempotencyKeyMode: 'custom', idempotencyKey: 'k'.repeat(256) }, 'Business Key must be at most 255 characters'],
		[{ fromUserId: ' ' }, 'Sender User ID is required'],
	])('refuses %j before sending anything', async (extra, message) => {
		await expect(env.run(payment(env, extra))).rejects.toMatchObject({
			message: expect.stringContaining(message),
			context: expect.objectContaining({ itemIndex: 0 }),
		});
		expect(await env.requests()).toEqual([]);
	});

	test('instant order from a quote: quoteId sent, no expiresAt', async () => {
		const [quote] = await env.run({
			resource: 'quote',
			operation: 'create',
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: '50',
			additionalFields: { toAddress: walletOf(env.bob, 'ethereum') },
		});
		expect(quote.json.mode).toBe('instant');
		await env.mark();
		const [item] = await env.run(payment(env, { mode: 'instant', amountUsd: '50', quoteId: quote.json.quoteId as string }));
		const [req] = await env.requests();
		expect(req.body).toMatchObject({ mode: 'instant', quoteId: quote.json.quoteId, amountUsd: 50 });
		expect(req.body).not.toHaveProperty('expiresAt');
		expect(item.json.mode).toBe('instant');
	});

	test('limit pre-flight fails the item with a clear message and creates nothing', async () => {
		await env.op('POST', '/account', { limits: { maxTxUsd: 100, maxCountPerEpoch: 10, maxValuePerEpochUsd: 1000 } });
		await env.mark();
		await expect(env.run(payment(env, { options: { checkLimits: true } }))).rejects.toThrow(
			/would breach the account limits: 125\.5 USD exceeds the per-transaction maximum \(maxTxUsd remaining 100 USD\)/,
		);
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/account/limits']);
		// Within the limits (daily limits absent): the order is created after the check.
		await env.mark();
		await env.run(payment(env, { amountUsd: '99.9999', options: { checkLimits: true } }));
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/v1/account/limits',
			'POST /api/v1/payment',
		]);
	});

	test('Continue On Fail: the bad item carries its error, the others go on', async () => {
		const items = [{ json: { amount: '10' } }, { json: { amount: '1.000001' } }, { json: { amount: '30' } }];
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}' }), { items, continueOnFail: true });
		expect(out).toHaveLength(3);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[1].json.error).toMatch(/at most 4 decimal places/);
		expect(Object.keys(out[1].json)).toEqual(['error']); // what n8n keeps of a failed item's json
		expect(out[0].json.amountUsd).toBe(10);
		expect(out[2].json.amountUsd).toBe(30);
		expect(await orderCount()).toBe(2);
	});

	test('Continue On Fail with concurrency: errors stay on their own items, in order', async () => {
		const amounts = ['1', 'bad', '3', '0', '5', '6.00001', '7'];
		const items = amounts.map((amount) => ({ json: { amount } }));
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 3 } }), {
			items,
			continueOnFail: true,
		});
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(out.map((o) => (o.json.error ? 'error' : o.json.amountUsd))).toEqual([
			1, 'error', 3, 'error', 5, 'error', 7,
		]);
		expect(await orderCount()).toBe(4);
	});

	test('Settlement Mode from an expression: each item gets its own mode and checks', async () => {
		const items = [{ json: { mode: 'standard' } }, { json: { mode: 'instant' } }];
		const out = await env.run(payment(env, { mode: '={{ $json.mode }}' }), { items, continueOnFail: true });
		expect(out[0].json.mode).toBe('standard');
		expect(out[1].json.error).toBe('Quote ID is required for instant orders');
		expect((await env.requests()).map((r) => r.body.mode)).toEqual(['standard']);
	});

	test('Continue On Fail with an API error: the item carries the status and the run goes on', async () => {
		const items = [{ json: { to: walletOf(env.bob, 'ethereum') } }, { json: { to: '0x000000000000000000000000000000000000dead' } }];
		const out = await env.run(payment(env, { toAddress: '={{ $json.to }}' }), { items, continueOnFail: true });
		expect(out).toHaveLength(2);
		expect(out[0].json.paymentOrderId).toBeDefined();
		expect(out[1].json.error).toMatch(/^Clearinghouse API error 400: recipient_not_active: Recipient 0x0+dead on ethereum is not a registered wallet of the account \(at toAddress\)$/);
		expect(out[1].pairedItem).toEqual({ item: 1 });
		expect(out[1].json.details).toEqual({ httpCode: '400', description: expect.stringMatching(/invalid/) });
		expect(out[1].error).toBeUndefined(); // an item-level error would make n8n drop the input's fields on the error output
	});

	test('without Continue On Fail the first failing item is thrown and no later item starts', async () => {
		const items = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ json: { amount: n === 2 ? 'x' : String(n + 1) } }));
		await expect(
			env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 2 } }), { items }),
		).rejects.toMatchObject({ context: expect.objectContaining({ itemIndex: 2 }) });
		// Items 0, 1 and at most the one running beside item 2 were sent; nothing after.
		const sent = (await env.requests()).map((r) => r.body.amountUsd);
		expect(sent.slice(0, 2).sort()).toEqual([1, 2]);
		expect(sent.length).toBeLessThanOrEqual(3);
	});

	test('concurrency: a slow first item does not reorder the output', async () => {
		// The first request to reach the sandbox is held 400 ms; the others answer at once.
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 1, delayMs: 400 });
		const items = Array.from({ length: 6 }, (_, n) => ({ json: { amount: String(n + 1) } }));
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 3 } }), { items });
		// The sandbox logs a request when it answers: item 0 was answered after later items.
		const answered = (await env.requests()).map((r) => r.body.amountUsd);
		expect(answered.indexOf(1)).toBeGreaterThan(0);
		expect(out.map((o) => o.json.amountUsd)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
	});

	test('concurrency keeps output order and paired items, and runs items in parallel', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 100, delayMs: 150 });
		const items = Array.from({ length: 10 }, (_, n) => ({ json: { amount: String(n + 1) } }));
		const params = payment(env, { amountUsd: '={{ $json.amount }}', options: { concurrency: 5 } });
		const started = Date.now();
		const data = createRunExecutionData();
		const out = await env.run(params, { items, runExecutionData: data });
		const elapsed = Date.now() - started;
		expect(out.map((o) => o.json.amountUsd)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(elapsed).toBeLessThan(10 * 150);
		// The same run one at a time gives the same keys: they depend on the item, not on timing.
		await env.op('DELETE', '/faults');
		const sequential = await env.run({ ...params, options: { concurrency: 1 } }, { items, runExecutionData: data });
		expect(sequential.map((o) => o.json.idempotencyKey)).toEqual(out.map((o) => o.json.idempotencyKey));
		expect(await orderCount()).toBe(10);
	});
});

describe('Create with Order Fields → Map Automatically', () => {
	const at = () => new Date(Date.now() + 3 * 3600_000).toISOString();
	/** Map Automatically: no order field among the parameters. */
	const autoMap = (extra: INodeParameters = {}): INodeParameters => {
		const { fromUserId, toAddress, toChain, asset, amountUsd, memo, ...rest } = payment(env);
		void [fromUserId, toAddress, toChain, asset, amountUsd, memo];
		return { ...rest, dataMode: 'autoMapInputData', ...extra };
	};
	const row = (extra: IDataObject = {}): IDataObject => ({
		fromUserId: env.alice.id,
		toAddress: walletOf(env.bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '125.5',
		memo: 'invoice 42',
		...extra,
	});

	test('sends the same request as the fields defined below, byte for byte', async () => {
		const key = { idempotencyKeyMode: 'custom', expiry: 'at', expiresAt: at() };
		await env.run(payment(env, { ...key, idempotencyKey: 'INV-1' }));
		const [defined] = await env.requests();
		await env.reset(); // a fresh sandbox, so the same key makes a new order
		await env.run(autoMap({ ...key, businessKeyField: 'reference' }), { items: [{ json: row({ reference: 'INV-1' }) }] });
		const [mapped] = await env.requests();
		expect(mapped.status).toBe(201);
		expect(JSON.stringify(mapped.body)).toBe(JSON.stringify(defined.body));
		expect(mapped.headers).toEqual(defined.headers);
	});

	test('a batch of rows: one order each, numbers and text alike, keys from the named field', async () => {
		const items = [
			{ json: row({ reference: 'A-1', amountUsd: 10 }) },
			{ json: row({ reference: 'A-2', amountUsd: '20.25', memo: undefined }) },
			{ json: row({ reference: 3, amountUsd: 30 }) },
		];
		const out = await env.run(autoMap({ idempotencyKeyMode: 'custom', businessKeyField: 'reference', options: { concurrency: 3 } }), { items });
		expect(out.map((o) => o.json.idempotencyKey)).toEqual(['A-1', 'A-2', '3']);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const sent = (await env.requests()).sort((a, b) => a.body.amountUsd - b.body.amountUsd);
		expect(sent.map((r) => [r.body.amountUsd, r.body.memo])).toEqual([
			[10, 'invoice 42'],
			[20.25, ''],
			[30, 'invoice 42'],
		]);
		expect(await orderCount()).toBe(3);
	});

	test('Derived keys work with it too (no key field needed)', async () => {
		const out = await env.run(autoMap(), { items: [{ json: row() }, { json: row() }] });
		expect(out[0].json.idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(out[1].json.idempotencyKey).not.toBe(out[0].json.idempotencyKey);
		expect(await orderCount()).toBe(2);
	});

	test('an item without a required field, or without its business key, fails alone and sends nothing', async () => {
		const items = [
			{ json: row({ reference: 'B-1', toAddress: undefined }) },
			{ json: row({ reference: undefined }) },
			{ json: row({ reference: 'B-3', amountUsd: '1.000001' }) },
			{ json: row({ reference: 'B-4', toChain: { name: 'ethereum' } }) },
			{ json: row({ reference: 'B-5' }) },
		];
		const out = await env.run(autoMap({ idempotencyKeyMode: 'custom', businessKeyField: 'reference' }), { items, continueOnFail: true });
		expect(out.map((o) => o.json.error ?? 'ok')).toEqual([
			'Input field "toAddress" is missing from the input item',
			'Input field "reference" is missing from the input item (it holds the business key)',
			expect.stringMatching(/^Input field "amountUsd" must have at most 4 decimal places/),
			'Input field "toChain" must be text (got object)',
			'ok',
		]);
		expect((await env.requests()).map((r) => r.body.idempotencyKey)).toEqual(['B-5']);
	});

	test('a field inherited through the prototype is not read', async () => {
		const json = Object.create({ toAddress: walletOf(env.bob, 'ethereum') }) as IDataObject;
		Object.assign(json, row({ toAddress: undefined }));
		delete json.toAddress;
		await expect(env.run(autoMap(), { items: [{ json }] })).rejects.toThrow('Input field "toAddress" is missing from the input item');
		expect(await env.requests()).toEqual([]);
	});
});

async function createOrder(extra = {}): Promise<string> {
	const [item] = await env.run(payment(env, extra));
	await env.mark();
	return item.json.paymentOrderId as string;
}

describe('Get and Get Many', () => {
	test('Get by ID and from a list locator', async () => {
		const id = await createOrder();
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
		await expect(
			env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: 'nope' } }),
		).rejects.toMatchObject({ httpCode: '404', message: expect.stringContaining('404') });
	});

	test('Return All follows several pages; Limit stops early; filters go to the query', async () => {
		await env.op('POST', '/payment-orders/bulk', { count: 7, fromUserId: env.alice.id });
		await env.mark();
		const getMany = { resource: 'paymentOrder', operation: 'getMany' };
		const all = await env.run({ ...getMany, returnAll: true, filters: { status: ['AWAITING_FUNDS', 'FUNDED'] } });
		expect(all).toHaveLength(7);
		expect(all.every((o) => o.pairedItem && (o.pairedItem as any).item === 0)).toBe(true);
		const some = await env.run({ ...getMany, returnAll: false, limit: 3 });
		expect(some).toHaveLength(3);
		expect(json(some).map((o) => o.id)).toEqual(json(all).slice(0, 3).map((o) => o.id));
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
		expect(json(five).map((o) => o.id)).toEqual(json(all).slice(0, 5).map((o) => o.id));
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
		await expect(
			env.run({ ...getMany, filters: { subaccountId: env.state.subaccounts[0].id, includeSubaccounts: true } }),
		).rejects.toThrow('Use either Subaccount ID or Include Subaccounts, not both');
		expect(await env.requests()).toEqual([]);
		await env.run({ ...getMany, filters: { subaccountId: env.state.subaccounts[0].id } });
		expect((await env.requests())[0].query).toMatchObject({ subaccountId: env.state.subaccounts[0].id });
	});
});

describe('Submit Transactions', () => {
	const submit = (id: string, hash: string, options = {}) => ({
		resource: 'paymentOrder',
		operation: 'submitTransactions',
		paymentOrderId: { mode: 'id', value: id },
		transactions: { transaction: [{ hash, chain: 'ethereum' }] },
		options,
	});

	test('an indexed hash is processed', async () => {
		const id = await createOrder();
		const { transactionHash } = await env.op('POST', '/deposits', {
			paymentOrderId: id, sender: walletOf(env.alice, 'ethereum'), chain: 'ethereum', asset: 'USDC', amountUsd: 125.5,
		});
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash));
		expect(item.json).toMatchObject({ paymentOrderId: id, transfersProcessed: 1, indexed: true, attempts: 1 });
		expect(item.json).not.toHaveProperty('hint');
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: `/api/v1/payment-orders/${id}/transactions` });
		expect(req.body).toEqual({ transactions: [{ hash: transactionHash, chain: 'ethereum' }] });
	});

	test('transfersProcessed 0 is reported as not indexed, with a hint', async () => {
		const id = await createOrder();
		const { transactionHash } = await env.op('POST', '/deposits', {
			paymentOrderId: id, sender: walletOf(env.alice, 'ethereum'), chain: 'ethereum', asset: 'USDC', amountUsd: 125.5, indexed: false,
		});
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash));
		expect(item.json).toMatchObject({
			transfersProcessed: 0, indexed: false, attempts: 1, alreadyAttributed: [], notIndexed: [transactionHash],
		});
		expect(item.json.hint).toMatch(/indexer/);
	});

	test('retries while not indexed, seconds apart, until the indexer sees the hash', async () => {
		const id = await createOrder();
		const { transactionHash } = await env.op('POST', '/deposits', {
			paymentOrderId: id, sender: walletOf(env.alice, 'ethereum'), chain: 'ethereum', asset: 'USDC', amountUsd: 125.5, indexed: false,
		});
		await env.mark();
		const running = env.run(submit(id, transactionHash, { indexRetries: 3, indexRetryDelaySeconds: 1 }));
		await new Promise((r) => setTimeout(r, 1500));
		await env.op('POST', `/deposits/${transactionHash}/index`);
		const [item] = await running;
		expect(item.json).toMatchObject({ transfersProcessed: 1, indexed: true });
		expect(item.json.attempts).toBeGreaterThanOrEqual(2);
		const reqs = await env.requests();
		// Each unprocessed submission is followed by a read of the order.
		expect(reqs.filter((r) => r.method === 'POST')).toHaveLength(item.json.attempts as number);
		expect(reqs.filter((r) => r.method === 'GET')).toHaveLength((item.json.attempts as number) - 1);
	}, 15_000);

	test('a lost answer: the repeat processes 0, and the order shows the hash was attributed', async () => {
		const id = await createOrder();
		const { transactionHash } = await env.op('POST', '/deposits', {
			paymentOrderId: id, sender: walletOf(env.alice, 'ethereum'), chain: 'ethereum', asset: 'USDC', amountUsd: 125.5,
		});
		await env.op('POST', '/faults', { method: 'POST', path: '/transactions$', count: 1, commitThen500: true });
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash, { indexRetries: 2, indexRetryDelaySeconds: 1 }));
		expect(item.json).toMatchObject({ transfersProcessed: 0, indexed: true, alreadyAttributed: [transactionHash], attempts: 1 });
		expect(item.json).not.toHaveProperty('hint');
		expect((await env.requests()).map((r) => `${r.method} ${r.status}`)).toEqual(['POST 500', 'POST 200', 'GET 200']);
	});

	test('refuses an empty list before sending', async () => {
		const id = await createOrder();
		await expect(
			env.run({ ...submit(id, 'x'), transactions: {} }),
		).rejects.toThrow('Transactions: add at least one transaction hash');
		expect(await env.requests()).toEqual([]);
	});
});

describe('Cancel', () => {
	test('sends the reason and reports the 202', async () => {
		const id = await createOrder();
		const [item] = await env.run({
			resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'customer withdrew',
		});
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: `/api/v1/payment-orders/${id}/cancel`, status: 202 });
		expect(req.body).toEqual({ reason: 'customer withdrew' });
		expect(item.json).toMatchObject({ paymentOrderId: id, accepted: true, statusCode: 202 });
	});

	test("a subaccount's order: 404 without Subaccount ID, canceled with it (sent in the body)", async () => {
		const sub = env.state.subaccounts[0].id;
		const { paymentOrderId: id } = await env.op('POST', '/payment-orders/bulk', { count: 1, subaccountId: sub }).then(async () => {
			const page = await fetch(`${env.sb.mainUrl}/api/v1/payment-orders?subaccountId=${sub}&limit=1&status=AWAITING_FUNDS`, { headers: { 'x-api-key': env.sb.apiKey } });
			return { paymentOrderId: ((await page.json()) as any).paymentOrders[0].id as string };
		});
		await env.mark();
		const cancel = (options = {}) => env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'r', options });
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
		const id = await createOrder();
		await env.op('POST', '/faults', { method: 'POST', path: '/cancel$', count: 1, commitThen500: true });
		await expect(
			env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'r' }),
		).rejects.toMatchObject({ httpCode: '500' });
		expect((await env.requests()).map((r) => r.status)).toEqual([500]);
	});
});

describe('Set Return Details', () => {
	const params = (id: string, extra = {}) => ({
		resource: 'paymentOrder',
		operation: 'setReturnDetails',
		paymentOrderId: { mode: 'id', value: id },
		userId: env.alice.id,
		wallets: { wallet: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] },
		...extra,
	});

	test('reads the current revision, then PUTs with quoted If-Match and Idempotency-Key', async () => {
		const id = await createOrder();
		const [first] = await env.run(params(id));
		let reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/payment-orders/${id}`,
			`PUT /api/v1/payment-orders/${id}/return-details`,
		]);
		expect(reqs[1].headers['if-match']).toBe('"0"');
		expect(reqs[1].headers['idempotency-key']).toBe(first.json.idempotencyKey);
		expect(reqs[1].body).toEqual({
			userId: env.alice.id,
			wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }],
		});
		expect(first.json).toMatchObject({ revision: 1, expectedRevision: 0, revisionSource: 'read' });
		// A second replacement reads revision 1.
		await env.mark();
		const [second] = await env.run(params(id, { idempotencyKeyMode: 'custom', idempotencyKey: 'ret-2' }));
		reqs = await env.requests();
		expect(reqs[1].headers['if-match']).toBe('"1"');
		expect(reqs[1].headers['idempotency-key']).toBe('ret-2');
		expect(second.json.revision).toBe(2);
	});

	test('a given revision is sent without reading the order; a stale one is a 409', async () => {
		const id = await createOrder();
		await expect(env.run(params(id, { options: { revision: 5 } }))).rejects.toMatchObject({ httpCode: '409' });
		const reqs = await env.requests();
		expect(reqs.map((r) => r.method)).toEqual(['PUT']);
		expect(reqs[0].headers['if-match']).toBe('"5"');
	});

	test('refuses two wallets on one chain before sending', async () => {
		const id = await createOrder();
		const wallets = { wallet: [{ chain: 'ethereum', address: '0x1' }, { chain: 'ethereum', address: '0x2' }] };
		await expect(env.run(params(id, { wallets }))).rejects.toThrow(/one wallet per chain; "ethereum"/);
		expect(await env.requests()).toEqual([]);
	});
});
