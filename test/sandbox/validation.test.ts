/** Validation rules, auth, idempotency, quotes, lists, return details and rulesets, status code by status code. */
import { waitFor } from '../../harness/wait';
import { Client, walletOf } from '../../harness/sandboxClient';
import { SandboxEnv, createOrder, fund, future, getOrder, paymentBody, payWithQuote, setup, waitStatus, orders } from './support';

let env: SandboxEnv;
beforeAll(async () => {
	env = await setup({ timeScale: 1000 });
});
afterAll(() => env.sb.close());

describe('authentication', () => {
	it('401 without or with an unknown key, on both APIs', async () => {
		for (const c of [new Client(env.sb.mainUrl + '/api/v1'), new Client(env.sb.mainUrl + '/api/v1', 'nope')]) {
			const r = await c.get('/supported-assets');
			expect(r.status).toBe(401);
			expect(r.body).toEqual({ error: expect.any(String), message: expect.any(String) });
		}
		expect((await new Client(env.sb.rewardsUrl + '/api/v1').get('/rewards/rules')).status).toBe(401);
	});

	it('403 on everything while the account is not ACTIVE or KYB not APPROVED', async () => {
		await env.op.post('/account', { status: 'SUSPENDED' });
		expect((await env.api.get('/supported-assets')).status).toBe(403);
		expect((await env.rewards.get('/rewards/rules')).status).toBe(403);
		await env.op.post('/account', { status: 'ACTIVE', kyb: 'PENDING' });
		expect((await env.api.post('/payment', paymentBody(env))).status).toBe(403);
		await env.op.post('/account', { kyb: 'APPROVED' });
		expect((await env.api.get('/supported-assets')).status).toBe(200);
	});

	it('404 with {error} for unknown paths and orders', async () => {
		const r = await env.api.get('/payment-orders/00000000-0000-4000-8000-000000000000');
		expect(r.status).toBe(404);
		expect(r.body.error).toEqual(expect.any(String));
		expect((await env.api.get('/nope')).status).toBe(404);
	});
});

describe('supported assets and users', () => {
	it('lists chain/asset pairs with token addresses and decimals', async () => {
		const r = await env.api.get('/supported-assets');
		expect(r.body).toHaveLength(9);
		expect(r.body[0]).toEqual({ chain: 'ethereum', symbol: 'USDC', tokenAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/), tokenDecimals: 6 });
	});

	it('creates users with PENDING wallets, lowercases EVM addresses, updates by label', async () => {
		const addr = '0x' + 'AbCd'.repeat(10);
		const r = await env.api.post('/add-user-record', { label: 'frank', wallets: [{ chain: 'ethereum', address: addr }] });
		expect(r.status).toBe(201);
		expect(r.body).toEqual({
			message: expect.any(String),
			data: expect.objectContaining({
				id: expect.any(String),
				label: 'frank',
				accountId: env.state.accountId,
				wallets: [{ address: addr.toLowerCase(), chain: 'ethereum', status: 'PENDING' }],
			}),
		});
		await env.op.post('/wallets/activate', { address: addr, chain: 'ethereum' });
		const sol = 'So11111111111111111111111111111111111111112';
		const u = await env.api.post('/add-user-record', {
			label: 'frank',
			wallets: [{ chain: 'solana', address: sol }],
			returnWallets: [{ chain: 'ethereum', address: addr }],
		});
		expect(u.status).toBe(200);
		expect(u.body.data.id).toBe(r.body.data.id);
		expect(u.body.data.wallets).toEqual([
			{ address: addr.toLowerCase(), chain: 'ethereum', status: 'ACTIVE' },
			{ address: sol, chain: 'solana', status: 'PENDING' },
		]);
		expect(u.body.data.returnWallets).toEqual([{ chain: 'ethereum', address: addr.toLowerCase() }]);
		const keep = await env.api.post('/add-user-record', { label: 'frank', wallets: [] });
		expect(keep.body.data.returnWallets).toHaveLength(1); // omitted: unchanged
		const cleared = await env.api.post('/add-user-record', { label: 'frank', wallets: [], returnWallets: [] });
		expect(cleared.body.data.returnWallets).toHaveLength(0); // full list: removed
	});

	it.each<[Record<string, unknown>, string]>([
		[{ wallets: [] }, 'label missing'],
		[{ label: 'x', wallets: [{ chain: 'ethereum', address: '0x123' }] }, 'bad EVM address'],
		[{ label: 'x', wallets: [{ chain: 'ethereum', address: 'So11111111111111111111111111111111111111112' }] }, 'solana address on ethereum'],
		[{ label: 'x', wallets: [{ chain: 'tron', address: 'T' + 'a'.repeat(33) }] }, 'unsupported chain'],
		[
			{
				label: 'x',
				wallets: [],
				returnWallets: [
					{ chain: 'base', address: '0x' + '1'.repeat(40) },
					{ chain: 'base', address: '0x' + '2'.repeat(40) },
				],
			},
			'two return wallets on one chain',
		],
		[{ label: 'x', wallets: [], subaccountId: 'not-a-uuid' }, 'bad subaccountId'],
	])('400 on %j (%s)', async (body) => {
		const r = await env.api.post('/add-user-record', body);
		expect(r.status).toBe(400);
		expect(r.body.error).toEqual(expect.any(String));
	});

	it('400 on a body that is not JSON', async () => {
		const r = await env.api.req('POST', '/add-user-record', '{nope');
		expect(r.status).toBe(400);
	});
});

describe('POST /payment validation', () => {
	const cases: [string, (e: SandboxEnv) => Record<string, unknown>][] = [
		['amountUsd 0', (e) => paymentBody(e, { amountUsd: 0 })],
		['negative amountUsd', (e) => paymentBody(e, { amountUsd: -5 })],
		['amountUsd with 5 decimals', (e) => paymentBody(e, { amountUsd: 1.00001 })],
		['amountUsd below one pip', (e) => paymentBody(e, { amountUsd: 0.00005 })],
		['amountUsd as string', (e) => paymentBody(e, { amountUsd: '10' })],
		['standard without expiresAt', (e) => paymentBody(e, { expiresAt: undefined })],
		['expiresAt in the past', (e) => paymentBody(e, { expiresAt: new Date(Date.now() - 60_000).toISOString() })],
		['expiresAt not a date-time', (e) => paymentBody(e, { expiresAt: 'tomorrow' })],
		['instant with expiresAt', (e) => paymentBody(e, { mode: 'instant', quoteId: 'q' })],
		['instant with subaccountId', (e) => paymentBody(e, { mode: 'instant', expiresAt: undefined, quoteId: 'q', subaccountId: e.sub.id })],
		['instant without quoteId', (e) => paymentBody(e, { mode: 'instant', expiresAt: undefined })],
		['unknown mode', (e) => paymentBody(e, { mode: 'netted' })],
		['unregistered recipient', (e) => paymentBody(e, { toAddress: '0x' + '9'.repeat(40) })],
		['recipient on another chain', (e) => paymentBody(e, { toChain: 'base', toAddress: walletOf(e.bob, 'ethereum').replace(/.$/, '0') })],
		['unknown fromUserId', (e) => paymentBody(e, { fromUserId: 'nobody' })],
		['fromUserId of a subaccount user', (e) => paymentBody(e, { fromUserId: e.carol.id })],
		['unsupported chain', (e) => paymentBody(e, { toChain: 'tron' })],
		['unsupported asset', (e) => paymentBody(e, { asset: 'DAI' })],
		['missing toAddress', (e) => paymentBody(e, { toAddress: undefined })],
		['idempotencyKey too long', (e) => paymentBody(e, { idempotencyKey: 'k'.repeat(256) })],
		['unknown quoteId', (e) => paymentBody(e, { quoteId: 'nope' })],
	];
	it.each(cases)('400: %s', async (_name, body) => {
		const r = await env.api.post('/payment', body(env));
		expect(r.status).toBe(400);
		expect(r.body.error).toEqual(expect.any(String));
	});

	it('accepts a one-pip amount with 4 decimals and memo null', async () => {
		const r = await env.api.post('/payment', paymentBody(env, { amountUsd: 0.0001, memo: null }));
		expect(r.status).toBe(201);
		expect(r.body.paymentOrder.amountUsd).toBe(0.0001);
		expect((await env.api.post('/payment', paymentBody(env, { amountUsd: 12.3456 }))).status).toBe(201);
	});

	it('400 for a PENDING recipient wallet', async () => {
		const addr = '0x' + '5e'.repeat(20);
		await env.api.post('/add-user-record', { label: 'gina', wallets: [{ chain: 'ethereum', address: addr }] });
		expect((await env.api.post('/payment', paymentBody(env, { toAddress: addr }))).status).toBe(400);
		await env.op.post('/wallets/activate', { address: addr, chain: 'ethereum' });
		expect((await env.api.post('/payment', paymentBody(env, { toAddress: addr }))).status).toBe(201);
	});

	it('replays an idempotencyKey with the same body (201, same order) and 409 with another body', async () => {
		const body = paymentBody(env, { idempotencyKey: 'idem-1' });
		const a = await env.api.post('/payment', body);
		const b = await env.api.post('/payment', body);
		expect(a.status).toBe(201);
		expect(b.status).toBe(201);
		expect(b.body).toEqual(a.body);
		const c = await env.api.post('/payment', { ...body, amountUsd: 101 });
		expect(c.status).toBe(409);
		const list = await env.api.get(orders('limit=1000'));
		expect(list.body.paymentOrders.filter((o: any) => o.idempotencyKey === 'idem-1')).toHaveLength(1);
	});

	it('instant needs the INSTANT_PAYMENT capability (403)', async () => {
		const q = await env.api.post('/quotes', { toChain: 'ethereum', asset: 'USDC', amountUsd: 10 });
		await env.op.post('/account', { capabilities: ['STANDARD_QUOTE_FALLBACK'] });
		const r = await env.api.post('/payment', paymentBody(env, { amountUsd: 10, mode: 'instant', expiresAt: undefined, quoteId: q.body.quoteId }));
		expect(r.status).toBe(403);
		await env.op.post('/account', { capabilities: ['INSTANT_PAYMENT', 'STANDARD_QUOTE_FALLBACK', 'NETTED_QUOTES'] });
	});

	it('limit breaches are errors and the limits endpoint counts usage', async () => {
		const before = await env.api.get('/account/limits');
		expect(before.status).toBe(200);
		expect(before.body).toMatchObject({
			accountId: env.state.accountId,
			maxTxUsd: { limit: expect.any(Number), used: 0, remaining: expect.any(Number) },
			maxCountPerEpoch: { used: expect.any(Number) },
		});
		await env.op.post('/account', { limits: { maxTxUsd: 1000 } });
		const r = await env.api.post('/payment', paymentBody(env, { amountUsd: 1000.01 }));
		expect(r.status).toBe(400);
		expect(r.body.error).toBe('limit_exceeded');
		expect((await env.api.post('/quotes', { toChain: 'ethereum', asset: 'USDC', amountUsd: 5000 })).status).toBe(400);
		const used = before.body.maxCountPerEpoch.used;
		await env.op.post('/account', { limits: { maxTxUsd: 10_000_000, maxCountPerEpoch: used + 1 } });
		expect((await env.api.post('/payment', paymentBody(env))).status).toBe(201);
		expect((await env.api.post('/payment', paymentBody(env))).status).toBe(400);
		const after = await env.api.get('/account/limits');
		expect(after.body.maxCountPerEpoch).toEqual({ limit: used + 1, used: used + 1, remaining: 0 });
		await env.op.post('/netting/close'); // a new epoch resets epoch usage
		expect((await env.api.post('/payment', paymentBody(env))).status).toBe(201);
		await env.op.post('/account', { limits: { maxCountPerEpoch: 1_000_000 } });
	});
});

describe('quotes', () => {
	const q = (b: Record<string, unknown>) => env.api.post('/quotes', { toChain: 'base', asset: 'USDC', amountUsd: 100, ...b });
	it('prices instant by default, standard above the instant threshold, serviceable:false above what can be serviced', async () => {
		const a = await q({});
		expect(a.status).toBe(201);
		expect(a.body).toMatchObject({
			serviceable: true,
			mode: 'instant',
			quoteId: expect.any(String),
			feeBps: expect.any(Number),
			feeUsd: expect.any(Number),
			status: 'ACTIVE',
			estimatedSettlement: { estimatedSettlementAt: expect.any(String), estimatedDurationSeconds: expect.any(Number), basis: 'funded_now' },
			createdAt: expect.any(String),
			expiresAt: expect.any(String),
		});
		expect((await q({ amountUsd: 500_000 })).body.mode).toBe('standard');
		expect((await q({ mode: 'standard' })).body.mode).toBe('standard');
		const no = await q({ amountUsd: 9_000_000 });
		expect(no.status).toBe(201);
		expect(no.body).toMatchObject({ serviceable: false, reason: 'UNABLE_TO_SERVICE' });
	});
	it('a new quote with the same name expires the previous unconsumed one', async () => {
		const first = await q({ name: 'weekly' });
		await q({ name: 'weekly' });
		const use = await payWithQuote(env, first.body.quoteId, 'base', 100);
		expect(use.status).toBe(400);
		expect(use.body.error).toBe('quote_not_active');
	});
	it('a quote expires at expiresAt (operator clock); an expired quote cannot be used', async () => {
		const a = await q({});
		expect(Date.parse(a.body.expiresAt)).toBeGreaterThan(Date.now());
		await env.op.post('/clock/advance', { seconds: 3600 });
		const use = await payWithQuote(env, a.body.quoteId, 'base', 100);
		expect(use.status).toBe(400);
		expect(use.body.error).toBe('quote_not_active');
	});
	it('rejects quotes against the terms: mismatch 400, standard quote clamps expiresAt', async () => {
		const a = await q({ toAddress: walletOf(env.bob, 'base') });
		const mismatch = await payWithQuote(env, a.body.quoteId, 'base', 99);
		expect(mismatch.status).toBe(400);
		const s = await q({ mode: 'standard' });
		const o = await env.api.post('/payment', {
			...paymentBody(env, { toChain: 'base', toAddress: walletOf(env.bob, 'base'), expiresAt: future(30 * 86400_000) }),
			quoteId: s.body.quoteId,
		});
		expect(o.status).toBe(201);
		expect(o.body.paymentOrder.expiresAt).toBe(s.body.expiresAt);
		expect(o.body.paymentOrder.quoteFeeBps).toBe(s.body.feeBps);
	});
	it.each([
		[{ name: 'n'.repeat(65) }, 400],
		[{ name: '' }, 400],
		[{ amountUsd: 0 }, 400],
		[{ amountUsd: 1.23456 }, 400],
		[{ mode: 'instant' }, 400],
		[{ asset: 'DAI' }, 400],
		[{ toAddress: '0x' + '3'.repeat(40) }, 400],
	])('%j → %i', async (b, status) => {
		expect((await q(b)).status).toBe(status);
	});
	it('capabilities: none → 403; mode standard without NETTED_QUOTES → 403', async () => {
		await env.op.post('/account', { capabilities: [] });
		expect((await q({})).status).toBe(403);
		await env.op.post('/account', { capabilities: ['INSTANT_PAYMENT', 'STANDARD_QUOTE_FALLBACK'] });
		expect((await q({ mode: 'standard' })).status).toBe(403);
		await env.op.post('/account', { capabilities: ['STANDARD_QUOTE_FALLBACK'] });
		expect((await q({})).body.mode).toBe('standard');
		await env.op.post('/account', { capabilities: ['INSTANT_PAYMENT', 'STANDARD_QUOTE_FALLBACK', 'NETTED_QUOTES'] });
	});
});

describe('GET /payment-orders', () => {
	it('lists newest first with direction SENT and no returns; paginates with total and hasMore', async () => {
		const a = await createOrder(env, { memo: 'list-a' });
		const b = await createOrder(env, { memo: 'list-b' });
		const r = await env.api.get(orders('limit=2'));
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({ limit: 2, offset: 0, hasMore: true, total: expect.any(Number) });
		expect(r.body.paymentOrders.map((o: any) => o.id)).toEqual([b.id, a.id]);
		expect(r.body.paymentOrders[0].direction).toBe('SENT');
		expect(r.body.paymentOrders[0].returns).toBeUndefined();
		const page2 = await env.api.get(orders('limit=1&offset=1'));
		expect(page2.body.paymentOrders[0].id).toBe(a.id);
		const last = await env.api.get(orders(`limit=1000&offset=${r.body.total - 1}`));
		expect(last.body.hasMore).toBe(false);
		expect(last.body.paymentOrders).toHaveLength(1);
	});

	it('filters by status (repeated and comma-separated), fromUserId and creation window', async () => {
		const o = await createOrder(env);
		await env.api.post(`/payment-orders/${o.id}/cancel`, {});
		await waitStatus(env, o.id, 'CANCELED');
		const one = await env.api.get('/payment-orders?status=CANCELED&limit=1000');
		expect(one.body.paymentOrders.every((x: any) => x.status === 'CANCELED')).toBe(true);
		expect(one.body.paymentOrders.map((x: any) => x.id)).toContain(o.id);
		const rep = await env.api.get('/payment-orders?status=CANCELED&status=AWAITING_FUNDS&limit=1000');
		const comma = await env.api.get('/payment-orders?status=CANCELED,AWAITING_FUNDS&limit=1000');
		expect(rep.body.total).toBe(comma.body.total);
		expect(rep.body.total).toBeGreaterThan(one.body.total);
		expect((await env.api.get(orders(`fromUserId=${env.bob.id}`))).body.total).toBe(0);
		const created = Date.parse(o.createdAt);
		const win = await env.api.get(orders(`createdAfter=${new Date(created).toISOString()}&createdBefore=${new Date(created + 1).toISOString()}&limit=1000`));
		expect(win.body.paymentOrders.map((x: any) => x.id)).toContain(o.id);
		const none = await env.api.get(orders(`createdAfter=${new Date(created + 3600_000).toISOString()}`));
		expect(none.body.total).toBe(0);
	});

	it.each(['epochId=5', 'limit=0', 'limit=1001', 'limit=abc', 'offset=-1', 'createdAfter=yesterday', 'includeSubaccounts=yes', 'subaccountId=x'])(
		'400 on %s',
		async (qs) => {
			const r = await env.api.get(orders(qs));
			expect(r.status).toBe(400);
			expect(r.body.error).toEqual(expect.any(String));
		},
	);

	it.each([
		['no status', 'limit=5'],
		['an empty status', 'status=&limit=5'],
		['an unknown status', 'status=NOPE'],
	])('status is required (marked so in the reference): 400 with %s', async (_what, qs) => {
		const r = await env.api.get(`/payment-orders?${qs}`);
		expect(r.status).toBe(400);
		expect(r.body).toMatchObject({ error: 'validation_error', path: expect.stringMatching(/^status/) });
	});
});

describe('PUT return-details', () => {
	let order: any;
	const put = (body: unknown, h: Record<string, string>) => env.api.put(`/payment-orders/${order.id}/return-details`, body, h);
	const details = () => ({ userId: env.alice.id, wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] });
	beforeAll(async () => {
		order = await createOrder(env, { expiresAt: future(365 * 86400_000) });
	});

	it.each<[Record<string, string>, string]>([
		[{}, 'no headers'],
		[{ 'If-Match': '0', 'Idempotency-Key': 'a' }, 'unquoted revision'],
		[{ 'If-Match': '"x"', 'Idempotency-Key': 'a' }, 'non-integer revision'],
		[{ 'If-Match': '"0"' }, 'no Idempotency-Key'],
		[{ 'If-Match': '"0"', 'Idempotency-Key': 'k'.repeat(256) }, 'Idempotency-Key too long'],
	])('400 with %j (%s)', async (h) => {
		expect((await put(details(), h)).status).toBe(400);
	});

	it('400 on duplicate chains, 0 or 33 wallets', async () => {
		const h = { 'If-Match': '"0"', 'Idempotency-Key': 'v1' };
		const dup = {
			userId: env.alice.id,
			wallets: [
				{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') },
				{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') },
			],
		};
		expect((await put(dup, h)).status).toBe(400);
		expect((await put({ userId: env.alice.id, wallets: [] }, h)).status).toBe(400);
		expect((await put({ userId: env.alice.id, wallets: Array.from({ length: 33 }, (_, i) => ({ chain: `c${i}`, address: 'a' })) }, h)).status).toBe(400);
	});

	it('422 naming chain and asset when a wallet is not an active wallet of the user; 404 for a user of another account', async () => {
		const h = { 'If-Match': '"0"', 'Idempotency-Key': 'v2' };
		const r = await put({ userId: env.alice.id, wallets: [{ chain: 'base', address: walletOf(env.bob, 'base') }] }, h);
		expect(r.status).toBe(422);
		expect(r.body.error).toMatch(/base/);
		expect(r.body.error).toMatch(/USDC/);
		const unsupported = await put({ userId: env.alice.id, wallets: [{ chain: 'tron', address: 'Tabc' }] }, { ...h, 'Idempotency-Key': 'v3' });
		expect(unsupported.status).toBe(422);
		expect(
			(await put({ userId: env.carol.id, wallets: [{ chain: 'ethereum', address: walletOf(env.carol, 'ethereum') }] }, { ...h, 'Idempotency-Key': 'v4' }))
				.status,
		).toBe(404);
	});

	it('409 while a wallet of the list is being activated (retry shortly)', async () => {
		const addr = '0x' + '7a'.repeat(20);
		await env.api.post('/add-user-record', { label: 'alice', wallets: [{ chain: 'base', address: addr }] });
		await env.op.post('/wallets/activate', { address: addr, chain: 'base', status: 'ACTIVATING' });
		const o = await createOrder(env, { expiresAt: future(365 * 86400_000) });
		const r = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'base', address: addr }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'act-1' },
		);
		expect(r.status).toBe(409);
		await env.op.post('/wallets/activate', { address: addr, chain: 'base' });
		const again = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'base', address: addr }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'act-1' },
		);
		expect(again.status).toBe(200);
	});

	it('registers, replays the recorded response, 409 on a reused key with other details, 409 on a stale revision', async () => {
		const ok = await put(details(), { 'If-Match': '"0"', 'Idempotency-Key': 'good-1' });
		expect(ok.status).toBe(200);
		expect(ok.body).toEqual({
			details: { ...details(), revision: 1, registeredAt: expect.any(String), requestId: expect.any(String) },
			revision: 1,
			transfers: [],
			affectedTransfers: [],
		});
		const replay = await put(details(), { 'If-Match': '"0"', 'Idempotency-Key': 'good-1' });
		expect(replay.status).toBe(200);
		expect(replay.body).toEqual(ok.body);
		const other = await put(
			{ userId: env.alice.id, wallets: [{ chain: 'base', address: walletOf(env.alice, 'base') }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'good-1' },
		);
		expect(other.status).toBe(409);
		const stale = await put(details(), { 'If-Match': '"0"', 'Idempotency-Key': 'good-2' });
		expect(stale.status).toBe(409);
		const next = await put(details(), { 'If-Match': '"1"', 'Idempotency-Key': 'good-3' });
		expect(next.body.revision).toBe(2);
		expect((await getOrder(env, order.id)).returns.revision).toBe(2);
	});

	it('a list that leaves out the chain of an observed deposit is 422; once every transfer is committed, 409', async () => {
		const o = await createOrder(env, { expiresAt: future(365 * 86400_000) });
		const hash = await fund(env, o.id, 5, 'base');
		const miss = await env.api.put(`/payment-orders/${o.id}/return-details`, details(), { 'If-Match': '"0"', 'Idempotency-Key': 'm1' });
		expect(miss.status).toBe(422);
		expect(miss.body.error).toMatch(/base/);
		const good = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'base', address: walletOf(env.alice, 'base') }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'm2' },
		);
		expect(good.status).toBe(200);
		expect(good.body.affectedTransfers).toEqual([hash]);
		await env.api.post(`/payment-orders/${o.id}/cancel`, {});
		await waitStatus(env, o.id, 'REFUNDED');
		const late = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'base', address: walletOf(env.alice, 'base') }] },
			{ 'If-Match': '"1"', 'Idempotency-Key': 'm3' },
		);
		expect(late.status).toBe(409);
	});
});

describe('receive rulesets', () => {
	const body = () => ({
		deliveredAsset: 'USDC',
		deliveredChain: 'ethereum',
		toAddress: walletOf(env.bob, 'ethereum'),
		mode: 'NETTED',
		name: '  Payroll  ',
		metadata: { team: 'ops' },
		idempotencyKey: 'rs-1',
	});
	it('creates with PENDING addresses that provision, replays by key, 409 on another body', async () => {
		const r = await env.api.post('/rulesets', body());
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({
			id: expect.any(String),
			accountId: env.state.accountId,
			name: 'Payroll',
			status: 'ACTIVE',
			mode: 'NETTED',
			deliveredAsset: 'USDC',
			metadata: { team: 'ops' },
		});
		expect(r.body.addresses.every((a: any) => a.status === 'PENDING' && a.address === null)).toBe(true);
		const again = await env.api.post('/rulesets', body());
		expect(again.body.id).toBe(r.body.id);
		expect((await env.api.post('/rulesets', { ...body(), deliveredChain: 'base', toAddress: walletOf(env.bob, 'base') })).status).toBe(409);
		await waitFor(async () => {
			const s = env.sb.services.core.rulesets.get(r.body.id)!;
			return s.addresses.every((a) => a.status === 'ACTIVE' && a.address);
		});
	});
	it('renames with trimming; same name is a no-op; 400 outside 1-120; 409 when deactivated; 404 unknown', async () => {
		const r = await env.api.post('/rulesets', { ...body(), idempotencyKey: 'rs-2' });
		const id = r.body.id;
		const renamed = await env.api.patch(`/rulesets/${id}`, { name: '  Salaries ' });
		expect(renamed.status).toBe(200);
		expect(renamed.body.name).toBe('Salaries');
		const same = await env.api.patch(`/rulesets/${id}`, { name: 'Salaries' });
		expect(same.body.updatedAt).toBe(renamed.body.updatedAt);
		expect((await env.api.patch(`/rulesets/${id}`, { name: '   ' })).status).toBe(400);
		expect((await env.api.patch(`/rulesets/${id}`, { name: 'x'.repeat(121) })).status).toBe(400);
		expect((await env.api.patch(`/rulesets/00000000-0000-4000-8000-000000000000`, { name: 'x' })).status).toBe(404);
		await env.op.post(`/rulesets/${id}/deactivate`);
		expect((await env.api.patch(`/rulesets/${id}`, { name: 'Other' })).status).toBe(409);
	});
	it('400 when toAddress is not an ACTIVE wallet of the account or fields are missing', async () => {
		expect((await env.api.post('/rulesets', { ...body(), idempotencyKey: undefined, toAddress: '0x' + '4'.repeat(40) })).status).toBe(400);
		expect((await env.api.post('/rulesets', { deliveredChain: 'ethereum', toAddress: 'x' })).status).toBe(400);
		expect((await env.api.post('/rulesets', { ...body(), idempotencyKey: undefined, mode: 'FAST' })).status).toBe(400);
	});
});
