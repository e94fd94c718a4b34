/** Payment Order → Create over real HTTP against the sandbox, inside n8n-core's ExecuteContext. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { walletOf } from '../../../../../harness/sandboxClient';
import { instantQuote, orderCount, payment, useEnv } from '../../support';
import { sleeps } from '../../../../support/sleep';
import { maskedSecret } from '../../../../../harness/sandboxClient';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../../support/sleep')>('../../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('Create', () => {
	test('standard order: body, derived key, x-api-key, output', async () => {
		const before = Date.now();
		const [item] = await env.run(payment(env));
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'main', method: 'POST', path: '/api/v1/payment', status: 201 });
		// The request log keeps only the key's last characters and fingerprint (sandbox/traffic.ts).
		expect(req.headers['x-api-key']).toBe(maskedSecret(env.sb.apiKey));
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
		// Made in this lineage (the execution being retried), and answered by the service as a replay.
		expect(b[0].json).toMatchObject({ created: true, replayed: true, status: 'AWAITING_FUNDS' });
		expect(c[0].json.idempotencyKey).not.toBe(a[0].json.idempotencyKey);
		expect(c[0].json.paymentOrderId).not.toBe(a[0].json.paymentOrderId);
		expect(await orderCount(env)).toBe(2);
	});

	test('a business key survives re-running the execution: one order', async () => {
		const expiresAt = new Date(Date.now() + 3 * 3600_000).toISOString();
		const params = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-2026-0042', expiry: 'at', expiresAt });
		const a = await env.run(params, { executionId: '1' });
		const b = await env.run(params, { executionId: '2' });
		expect(a[0].json.idempotencyKey).toBe('INV-2026-0042');
		expect(b[0].json.paymentOrderId).toBe(a[0].json.paymentOrderId);
		// The second run found the order of the first: not created in this run, read anew.
		expect(b[0].json).toMatchObject({ created: false, replayed: true });
		const reqs = (await env.requests()).filter((r) => r.method === 'POST');
		expect(reqs.map((r) => r.body.idempotencyKey)).toEqual(['INV-2026-0042', 'INV-2026-0042']);
		expect(await orderCount(env)).toBe(1);
	});

	test('a business key reused with another amount names the field, both values and the safe next step; no second order', async () => {
		const params = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-7' });
		const [first] = await env.run(params, { executionId: '1' });
		await expect(env.run({ ...params, amountUsd: '200' }, { executionId: '2' })).rejects.toMatchObject({
			message: `This item's Business Key "INV-7" already belongs to payment order ${String(first.json.id)} with other values: Amount (USD) is 125.5 on the order, this run sends 200`,
			description: expect.stringContaining('give it a NEW Business Key: running it anew with a new key pays again'),
		});
		expect(await orderCount(env)).toBe(1);
	});

	test('commit then 500: the transport retries with the same key and exactly one order exists', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 1, commitThen500: true });
		const [item] = await env.run(payment(env));
		const reqs = await env.requests();
		expect(reqs.map((r) => r.status)).toEqual([500, 201]);
		expect(reqs[0].body.idempotencyKey).toBe(reqs[1].body.idempotencyKey);
		expect(reqs[0].body).toEqual(reqs[1].body);
		expect(item.json.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(await orderCount(env)).toBe(1);
	});

	test('Retry On Fail re-runs the node with the same key: one order', async () => {
		// Every transport attempt fails after committing, so the node fails and n8n re-runs it.
		await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
		sleeps.asked = [];
		const [item] = await env.run(payment(env), { retryOnFail: { maxTries: 2 } });
		// The first try: four attempts, 0.5, 1 and 2 s apart; the second try's first attempt succeeds.
		expect(sleeps.asked).toEqual([500, 1000, 2000]);
		const reqs = (await env.requests()).filter((r) => r.method === 'POST');
		expect(reqs).toHaveLength(5);
		expect(new Set(reqs.map((r) => r.body.idempotencyKey)).size).toBe(1);
		expect(item.json).toMatchObject({ created: true, replayed: true }); // the first try of this execution made it
		expect(item.json.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(await orderCount(env)).toBe(1);
	}, 30_000);

	test.each([
		[{ amountUsd: '0' }, 'Amount (USD) must be greater than 0'],
		[{ amountUsd: '-5' }, 'Amount (USD) must be greater than 0'],
		[{ amountUsd: '1.23456' }, 'Amount (USD) must have at most 4 decimal places'],
		[{ amountUsd: '12,50' }, 'Amount (USD) must be plain decimal text: write 12.50 (got "12,50"; no thousands separators, spaces or decimal commas)'],
		[{ amountUsd: '' }, 'Amount (USD) is required'],
		[{ expiry: 'at', expiresAt: '2020-01-01T00:00:00Z' }, 'Expires At must be in the future'],
		[{ expiry: 'at', expiresAt: '' }, 'Expires At is required for standard orders'],
		[{ mode: 'instant', quoteId: '' }, 'Quote ID is required for instant orders'],
		// A fixed Instant mode hides these fields (n8n then drops their values); a mode expression
		// keeps them shown, so each item is checked at run time.
		// A Settlement Mode expression: the quote is in Additional Fields (version 2.1).
		[
			{ mode: '={{ "instant" }}', additionalFields: { quoteId: 'q-1' }, expiry: 'at', expiresAt: '2030-01-01T00:00:00Z' },
			'Expires At is not accepted for instant orders',
		],
		[{ mode: '={{ "instant" }}', additionalFields: { quoteId: 'q-1', subaccountId: 'a-sub' } }, 'Subaccount ID is not accepted for instant orders'],
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

	test('a Standard Quote ID is given in Additional Fields; one left on the panel (instant only) is not sent with a standard order', async () => {
		const standardQuote = async () => {
			const [quote] = await env.run({
				resource: 'quote',
				operation: 'create',
				toChain: 'ethereum',
				asset: 'USDC',
				amountUsd: '125.5',
				additionalFields: { mode: 'standard', toAddress: walletOf(env.bob, 'ethereum') },
			});
			expect(quote.json.mode).toBe('standard');
			return quote.json.quoteId as string;
		};
		const added = await standardQuote();
		await env.mark();
		await env.run(payment(env, { additionalFields: { quoteId: added } }));
		expect((await env.requests()).map((r) => r.body.quoteId)).toEqual([added]);
		// The panel's Quote ID is for instant orders only: n8n drops a value it does not show.
		await env.mark();
		await env.run(payment(env, { quoteId: added }));
		expect((await env.requests()).map((r) => r.body.quoteId)).toEqual([undefined]);
	});

	test('instant order from a quote: quoteId sent, no expiresAt', async () => {
		const quoteId = await instantQuote(env);
		await env.mark();
		const [item] = await env.run(payment(env, { mode: 'instant', amountUsd: '50', quoteId }));
		const [req] = await env.requests();
		expect(req.body).toMatchObject({ mode: 'instant', quoteId, amountUsd: 50 });
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
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/account/limits', 'POST /api/v1/payment']);
	});

	test('a limit the pre-flight cannot read exactly (more than 4 decimal places) stops the order, naming the limit', async () => {
		await env.op('POST', '/account', { limits: { maxTxUsd: 1000.00001 } });
		await env.mark();
		await expect(env.run(payment(env, { options: { checkLimits: true } }))).rejects.toThrow(
			/^The account limit maxTxUsd could not be read exactly \(its limit is 1000\.00001, not a number of at most 4 decimal places\)/,
		);
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/account/limits']);
	});

	test("the limit pre-flight of a subaccount's order reads the limits with its Subaccount ID", async () => {
		const sub = env.state.subaccounts[0].id;
		await env.mark();
		// The order itself is refused (the sender is a user of the parent account): only the requests count here.
		const params = payment(env, { amountUsd: '10', additionalFields: { subaccountId: sub }, options: { checkLimits: true } });
		await env.run(params, { continueOnFail: true });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual(['200 GET /api/v1/account/limits', '400 POST /api/v1/payment']);
		expect(reqs[0].query).toEqual({ subaccountId: sub });
		expect(reqs[1].body).toMatchObject({ subaccountId: sub });
	});

	test('Settlement Mode from an expression: each item gets its own mode and checks', async () => {
		const items = [{ json: { mode: 'standard' } }, { json: { mode: 'instant' } }];
		const out = await env.run(payment(env, { mode: '={{ $json.mode }}' }), { items, continueOnFail: true });
		expect(out[0].json.mode).toBe('standard');
		expect(out[1].json.error).toBe('Quote ID is required for instant orders');
		expect((await env.requests()).map((r) => r.body.mode)).toEqual(['standard']);
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
		expect(await orderCount(env)).toBe(3);
	});

	test('Derived keys work with it too (no key field needed)', async () => {
		const out = await env.run(autoMap(), { items: [{ json: row() }, { json: row() }] });
		expect(out[0].json.idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(out[1].json.idempotencyKey).not.toBe(out[0].json.idempotencyKey);
		expect(await orderCount(env)).toBe(2);
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
			'Input field "toAddress" is missing from the input item (or a column named "Recipient Address" or "Recipient")',
			'Input field "reference" is missing from the input item (it holds the business key; a column named "Invoice", "Invoice Number" or "Invoice ID" also does)',
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

	test("a contractor table maps as it is: the panel's labels and common names, any case, the sender given once", async () => {
		const table = (name: string, wallet: string, amount: string | number, invoice: string): IDataObject => ({
			Name: name,
			Wallet: wallet,
			Chain: 'ethereum',
			Asset: 'USDC',
			'Amount (USD)': amount,
			Invoice: invoice,
		});
		const items = [
			{ json: table('Bob', walletOf(env.bob, 'ethereum'), '10.5', 'INV-7001') },
			{ json: { ...table('Bob again', walletOf(env.bob, 'base'), 20, 'INV-7002'), Chain: 'base', 'Sender User ID': env.bob.id } },
		];
		const out = await env.run(autoMap({ idempotencyKeyMode: 'custom', businessKeyField: 'Invoice', senderForAllRows: env.alice.id }), { items });
		expect(out.map((o) => o.json.idempotencyKey)).toEqual(['INV-7001', 'INV-7002']);
		const sent = (await env.requests()).sort((a, b) => a.body.amountUsd - b.body.amountUsd);
		expect(sent.map((r) => [r.body.fromUserId, r.body.toAddress, r.body.toChain, r.body.asset, r.body.amountUsd, r.body.memo])).toEqual([
			[env.alice.id, walletOf(env.bob, 'ethereum'), 'ethereum', 'USDC', 10.5, 'INV-7001'],
			// A row's own sender wins over the one given once.
			[env.bob.id, walletOf(env.bob, 'base'), 'base', 'USDC', 20, 'INV-7002'],
		]);
	});

	describe('Business Key Field left at "reference" on a table without that column', () => {
		/** A contractor table's row: no API names, the key in its Invoice column. */
		const contractor = (invoice: string | undefined, amount = '10', extra: IDataObject = {}): IDataObject => ({
			Name: 'Bob',
			Wallet: walletOf(env.bob, 'ethereum'),
			Chain: 'ethereum',
			Stablecoin: 'USDC',
			Amount: amount,
			...(invoice === undefined ? {} : { Invoice: invoice }),
			...extra,
		});
		const byDefault = (extra: INodeParameters = {}) =>
			autoMap({ idempotencyKeyMode: 'custom', businessKeyField: 'reference', senderForAllRows: env.alice.id, ...extra });

		test('keys each order by its Invoice column, shown on every output item; a re-run makes nothing new', async () => {
			const items = [{ json: contractor('INV-8001', '10') }, { json: contractor('INV-8002', '20.5', { 'Invoice Number': undefined }) }];
			const out = await env.run(byDefault(), { items });
			expect(out.map((o) => [o.json.idempotencyKey, o.json.created, o.json.memo])).toEqual([
				['INV-8001', true, 'INV-8001'],
				['INV-8002', true, 'INV-8002'],
			]);
			expect((await env.requests()).map((r) => r.body.idempotencyKey).sort()).toEqual(['INV-8001', 'INV-8002']);
			const again = await env.run(byDefault(), { items, executionId: 'second-run' });
			expect(again.map((o) => [o.json.idempotencyKey, o.json.id])).toEqual(out.map((o) => [o.json.idempotencyKey, o.json.id]));
			expect(await orderCount(env)).toBe(2);
		});

		test('Dry Run shows the key it would send', async () => {
			const [item] = await env.run(byDefault({ options: { dryRun: true } }), { items: [{ json: contractor('INV-8101') }] });
			expect(item.json).toMatchObject({ dryRun: true, sent: false, request: { body: { idempotencyKey: 'INV-8101', memo: 'INV-8101' } } });
			expect((await env.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
		});

		test('a row without any key column fails closed, naming the columns accepted; two key columns are refused', async () => {
			const items = [{ json: contractor(undefined) }, { json: contractor('INV-8201', '10', { 'Invoice ID': 'N-1' }) }, { json: contractor('INV-8202') }];
			const out = await env.run(byDefault(), { items, continueOnFail: true });
			expect(out.map((o) => o.json.error ?? o.json.idempotencyKey)).toEqual([
				'Input field "reference" is missing from the input item (it holds the business key; a column named "Invoice", "Invoice Number" or "Invoice ID" also does)',
				'Input field "reference" is given by 2 columns ("Invoice", "Invoice ID"): keep one, or rename the one to use to "reference"',
				'INV-8202',
			]);
			expect((await env.requests()).map((r) => r.body.idempotencyKey)).toEqual(['INV-8202']);
		});

		test('a named Business Key Field is read exactly: no other column stands in for it', async () => {
			await expect(env.run(byDefault({ businessKeyField: 'invoiceId' }), { items: [{ json: contractor('INV-8301') }] })).rejects.toThrow(
				'Input field "invoiceId" is missing from the input item (it holds the business key)',
			);
			expect(await env.requests()).toEqual([]);
		});
	});

	test.each([
		['left at "reference" (the Invoice column)', 'reference'],
		['named "Invoice"', 'Invoice'],
	])(
		'two rows of one run with one key for different payments fail before anything is sent, as do two rows of one payment (Business Key Field %s)',
		async (_how, businessKeyField) => {
			const row = (invoice: string, amount: string, wallet = walletOf(env.bob, 'ethereum')) => ({
				json: { Wallet: wallet, Chain: 'ethereum', Asset: 'USDC', Amount: amount, Invoice: invoice },
			});
			const items = [row('INV-9001', '10'), row('INV-9002', '30'), row('INV-9001', '20'), row('INV-9003', '5'), row('INV-9003', '5.00')];
			const parameters = autoMap({ idempotencyKeyMode: 'custom', businessKeyField, senderForAllRows: env.alice.id, options: { concurrency: 2 } });
			const out = await env.run(parameters, { items, continueOnFail: true });
			expect(out[0].json.error).toBe(
				'Nothing was sent for this row: its Business Key "INV-9001" (column "Invoice") is also the key of row 3 of this run, for another payment (amountUsd "10" here, "20" there)',
			);
			expect(out[2].json.error).toBe(
				'Nothing was sent for this row: its Business Key "INV-9001" (column "Invoice") is also the key of row 1 of this run, for another payment (amountUsd "20" here, "10" there)',
			);
			// 5 and 5.00 are one amount: rows 4 and 5 are one payment listed twice, and fail too rather than show one order as two.
			expect(out[3].json.error).toBe(
				'Nothing was sent for this row: its Business Key "INV-9003" (column "Invoice") is also the key of row 5 of this run, for the same payment (a row listed twice?)',
			);
			expect(out[4].json.error).toMatch(/is also the key of row 4 of this run, for the same payment/);
			expect(out[1].json).toMatchObject({ idempotencyKey: 'INV-9002', created: true });
			expect((await env.requests()).map((r) => r.body.idempotencyKey)).toEqual(['INV-9002']);
			expect(await orderCount(env)).toBe(1);
		},
	);

	test('two columns for one field (Wallet and Address) fail the item before anything is sent: which one pays is not guessed', async () => {
		const json = { ...row(), toAddress: undefined, Wallet: walletOf(env.bob, 'ethereum'), Address: walletOf(env.bob, 'base') };
		await expect(env.run(autoMap(), { items: [{ json }] })).rejects.toThrow('Input field "toAddress" is given by 2 columns ("Wallet", "Address")');
		expect(await env.requests()).toEqual([]);
	});

	test('Max Total per Run counts an amount read from an "Amount" column', async () => {
		const items = [1, 2].map((n) => ({ json: { ...row({ amountUsd: undefined }), Amount: '60', n } }));
		await expect(env.run(autoMap({ spendLimits: { maxTotalPerRun: '100' } }), { items })).rejects.toThrow(/Max Total per Run/);
		expect(await env.requests()).toEqual([]);
	});
});
