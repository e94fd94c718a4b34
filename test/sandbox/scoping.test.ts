/** Subaccount scoping, deposit addresses, limits over the family, and the bulk path. */
import { Client, walletOf } from '../../harness/sandboxClient';
import { SandboxEnv, future, orders, setup } from './support';

let env: SandboxEnv;
beforeAll(async () => {
	env = await setup({ timeScale: 1000 });
});
afterAll(() => env.sb.close());

const subOrder = (extra: Record<string, unknown> = {}) => ({
	fromUserId: env.carol.id,
	toAddress: walletOf(env.carol, 'base'),
	toChain: 'base',
	asset: 'USDG',
	amountUsd: 20,
	expiresAt: future(),
	subaccountId: env.sub.id,
	...extra,
});

describe('subaccount scoping', () => {
	let subOrderId: string;
	let ownOrderId: string;

	it('a parent writes into a direct child with subaccountId in the body', async () => {
		const r = await env.api.post('/payment', subOrder());
		expect(r.status).toBe(201);
		expect(r.body.paymentOrder.senderAccountId).toBe(env.sub.id);
		subOrderId = r.body.paymentOrderId;
		const own = await env.api.post('/payment', {
			fromUserId: env.alice.id,
			toAddress: walletOf(env.bob, 'base'),
			toChain: 'base',
			asset: 'USDC',
			amountUsd: 3,
			expiresAt: future(),
		});
		ownOrderId = own.body.paymentOrderId;
	});

	it('reads take subaccountId as a query parameter; includeSubaccounts spans both; both together → 400', async () => {
		const own = await env.api.get(orders('limit=1000'));
		expect(own.body.paymentOrders.map((o: any) => o.id)).not.toContain(subOrderId);
		expect(own.body.paymentOrders.map((o: any) => o.id)).toContain(ownOrderId);
		const sub = await env.api.get(orders(`subaccountId=${env.sub.id}`));
		expect(sub.body.paymentOrders.map((o: any) => o.id)).toEqual([subOrderId]);
		const all = await env.api.get(orders('includeSubaccounts=true&limit=1000'));
		expect(all.body.paymentOrders.map((o: any) => o.id)).toEqual(expect.arrayContaining([subOrderId, ownOrderId]));
		const same = await env.api.get(orders(`includeSubaccounts=false&subaccountId=${env.sub.id}`));
		expect(same.body.total).toBe(1);
		expect((await env.api.get(orders(`includeSubaccounts=true&subaccountId=${env.sub.id}`))).status).toBe(400);
		expect((await env.api.get(`/payment-orders/${subOrderId}?subaccountId=${env.sub.id}`)).status).toBe(200);
	});

	it("a child's order by id: 404 for the parent's key without subaccountId (get, transactions, return details, cancel); found with it", async () => {
		const r = await env.api.post('/payment', subOrder());
		const id = r.body.paymentOrderId;
		const sub = { subaccountId: env.sub.id };
		const details = { userId: env.carol.id, wallets: [{ chain: 'base', address: walletOf(env.carol, 'base') }] };
		const headers = { 'If-Match': '"0"', 'Idempotency-Key': `scope-${id}` };
		const tx = { transactions: [{ hash: '0x' + 'ab'.repeat(32), chain: 'base' }] };
		expect((await env.api.get(`/payment-orders/${id}`)).status).toBe(404);
		expect((await env.api.post(`/payment-orders/${id}/transactions`, tx)).status).toBe(404);
		expect((await env.api.put(`/payment-orders/${id}/return-details`, details, headers)).status).toBe(404);
		expect((await env.api.post(`/payment-orders/${id}/cancel`, { reason: 'x' })).status).toBe(404);
		expect((await env.api.get(`/payment-orders/${id}?subaccountId=${env.sub.id}`)).status).toBe(200);
		expect((await env.api.post(`/payment-orders/${id}/transactions`, { ...tx, ...sub })).status).toBe(200);
		expect((await env.api.put(`/payment-orders/${id}/return-details`, { ...details, ...sub }, headers)).status).toBe(200);
		expect((await env.api.post(`/payment-orders/${id}/cancel`, { reason: 'x', ...sub })).status).toBe(202);
		// The child's own key needs no parameter; a parent's order stays invisible to it.
		const subClient = new Client(env.sb.mainUrl + '/api/v1', env.sub.apiKey);
		expect((await subClient.get(`/payment-orders/${id}`)).status).toBe(200);
	});

	it('403 for a subaccount the caller does not own, and for a sibling', async () => {
		const stranger = '00000000-0000-4000-8000-000000000001';
		expect((await env.api.get(orders(`subaccountId=${stranger}`))).status).toBe(403);
		expect((await env.api.post('/payment', subOrder({ subaccountId: stranger }))).status).toBe(403);
		const sibling = await env.op.post('/subaccounts', { name: 'sibling' });
		expect(sibling.status).toBe(201);
		const subClient = new Client(env.sb.mainUrl + '/api/v1', env.sub.apiKey);
		expect((await subClient.get(orders(`subaccountId=${sibling.body.id}`))).status).toBe(403);
		const childIds = (await subClient.get(orders())).body.paymentOrders.map((o: any) => o.id);
		expect(childIds).toContain(subOrderId);
		expect(childIds).not.toContain(ownOrderId);
		// the child cannot see the parent's orders
		expect((await subClient.get(`/payment-orders/${ownOrderId}`)).status).toBe(404);
	});

	it('a paused child is read-only; an archived child is outside every scope', async () => {
		await env.op.post(`/subaccounts/${env.sub.id}`, { status: 'SUSPENDED' });
		expect((await env.api.get(orders(`subaccountId=${env.sub.id}`))).status).toBe(200);
		expect((await env.api.post('/payment', subOrder())).status).toBe(403);
		expect((await env.api.post(`/payment-orders/${subOrderId}/cancel`, { subaccountId: env.sub.id })).status).toBe(403);
		await env.op.post(`/subaccounts/${env.sub.id}`, { status: 'ACTIVE', kyb: 'PENDING' });
		expect((await env.api.post('/add-user-record', { label: 'x', wallets: [], subaccountId: env.sub.id })).status).toBe(403);
		await env.op.post(`/subaccounts/${env.sub.id}`, { kyb: 'APPROVED', archived: true });
		expect((await env.api.get(orders(`subaccountId=${env.sub.id}`))).status).toBe(403);
		expect((await env.api.get(`/payment-orders/${subOrderId}`)).status).toBe(404);
		const all = await env.api.get(orders('includeSubaccounts=true&limit=1000'));
		expect(all.body.paymentOrders.map((o: any) => o.id)).not.toContain(subOrderId);
		await env.op.post(`/subaccounts/${env.sub.id}`, { archived: false });
		expect((await env.api.get(orders(`subaccountId=${env.sub.id}`))).status).toBe(200);
	});

	it('instant: subaccountId goes on the quote, never on the order', async () => {
		const q = await env.api.post('/quotes', { toChain: 'base', asset: 'USDG', amountUsd: 20, subaccountId: env.sub.id });
		expect(q.status).toBe(201);
		const body = {
			fromUserId: env.carol.id,
			toAddress: walletOf(env.carol, 'base'),
			toChain: 'base',
			asset: 'USDG',
			amountUsd: 20,
			mode: 'instant',
			quoteId: q.body.quoteId,
		};
		expect((await env.api.post('/payment', { ...body, subaccountId: env.sub.id })).status).toBe(400);
		const r = await env.api.post('/payment', body);
		expect(r.status).toBe(201);
		expect(r.body.paymentOrder.senderAccountId).toBe(env.sub.id);
	});

	it('webhook management for a subaccount uses its own key; scoping parameters do not apply', async () => {
		const subClient = new Client(env.sb.mainUrl + '/api/v1', env.sub.apiKey);
		const e = await subClient.post('/webhooks/endpoints', { url: 'https://hooks.example.com/sub', description: 'sub', eventTypes: ['payment_order'] });
		expect(e.status).toBe(201);
		expect(e.body.accountId).toBe(env.sub.id);
		expect((await env.api.get('/webhooks/endpoints')).body.endpoints.map((x: any) => x.id)).not.toContain(e.body.id);
		expect((await env.api.get(`/webhooks/endpoints?subaccountId=${env.sub.id}`)).body.endpoints.map((x: any) => x.id)).not.toContain(e.body.id);
		expect((await env.api.get(`/webhooks/endpoints/${e.body.id}`)).status).toBe(404);
	});
});

describe('deposit addresses and limits', () => {
	it('returns account-scoped deposit addresses; 412 for an unprovisioned subaccount (and payments there)', async () => {
		const own = await env.api.get('/deposit-addresses');
		expect(own.status).toBe(200);
		expect(own.body.depositAddresses).toHaveLength(9);
		expect(own.body.depositAddresses[0]).toEqual({ chain: 'ethereum', symbol: 'USDC', address: expect.stringMatching(/^0x[0-9a-f]{40}$/) });
		expect(own.body.depositAddresses.find((d: any) => d.chain === 'solana').address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
		const sub = await env.api.get(`/deposit-addresses?subaccountId=${env.sub.id}`);
		expect(sub.body.depositAddresses[0].address).not.toBe(own.body.depositAddresses[0].address);
		const fresh = await env.op.post('/subaccounts', { name: 'new', provisioned: false });
		const r = await env.api.get(`/deposit-addresses?subaccountId=${fresh.body.id}`);
		expect(r.status).toBe(412);
		expect(r.body.error).toEqual(expect.any(String));
		const user = await env.api.post('/add-user-record', {
			label: 'nu',
			wallets: [{ chain: 'base', address: '0x' + '6'.repeat(40) }],
			subaccountId: fresh.body.id,
		});
		await env.op.post('/wallets/activate', { userId: user.body.data.id });
		const pay = await env.api.post('/payment', {
			fromUserId: user.body.data.id,
			toAddress: '0x' + '6'.repeat(40),
			toChain: 'base',
			asset: 'USDC',
			amountUsd: 1,
			expiresAt: future(),
			subaccountId: fresh.body.id,
		});
		expect(pay.status).toBe(412);
		await env.op.post(`/subaccounts/${fresh.body.id}`, { provisioned: true });
		expect((await env.api.get(`/deposit-addresses?subaccountId=${fresh.body.id}`)).status).toBe(200);
	});

	it("limits are the parent's ceilings with usage over parent and subaccounts; subaccountId changes only accountId", async () => {
		const parent = await env.api.get('/account/limits');
		const child = await env.api.get(`/account/limits?subaccountId=${env.sub.id}`);
		expect(child.body.accountId).toBe(env.sub.id);
		expect(parent.body.accountId).toBe(env.state.accountId);
		const { accountId: _a, ...p } = parent.body;
		const { accountId: _b, ...c } = child.body;
		expect(c).toEqual(p);
		await env.api.post('/payment', subOrder({ amountUsd: 7 }));
		const after = await env.api.get('/account/limits');
		expect(after.body.maxCountPerEpoch.used).toBe(parent.body.maxCountPerEpoch.used + 1);
		expect(after.body.maxValuePerDayUsd.used).toBeCloseTo(parent.body.maxValuePerDayUsd.used + 7, 4);
		await env.op.post('/account', { limits: { maxTxUsd: 5 } });
		expect((await env.api.post('/payment', subOrder({ amountUsd: 6 }))).status).toBe(400);
		await env.op.post('/account', { limits: { maxTxUsd: 10_000_000 } });
	});

	it('a limit removed by the operator is absent from the response and not enforced', async () => {
		await env.op.post('/account', { limits: { maxCountPerDay: null, maxValuePerDayUsd: null } });
		const r = await env.api.get('/account/limits');
		expect(Object.keys(r.body).sort()).toEqual(['accountId', 'maxCountPerEpoch', 'maxTxUsd', 'maxValuePerEpochUsd']);
		await env.op.post('/account', { limits: { maxCountPerDay: 5_000_000, maxValuePerDayUsd: 5_000_000_000 } });
	});
});

describe('bulk orders', () => {
	// Speed is measured in bench/, not here: a wall-clock bound made this test fail under load.
	it('creates 100,000 orders and lists them a page at a time', async () => {
		const r = await env.op.post('/payment-orders/bulk', { count: 100_000, fromUserId: env.alice.id, status: 'DISTRIBUTED' });
		expect(r.status).toBe(201);
		expect(r.body.created).toBe(100_000);
		const page = await env.api.get('/payment-orders?limit=1000&status=DISTRIBUTED');
		expect(page.body.paymentOrders).toHaveLength(1000);
		expect(page.body.total).toBeGreaterThanOrEqual(100_000);
		expect(page.body.hasMore).toBe(true);
		const deep = await env.api.get('/payment-orders?limit=1000&offset=99000&status=DISTRIBUTED');
		expect(deep.body.paymentOrders.length).toBeGreaterThan(0);
	}, 60_000);
});

describe('the user list (GET /users, as the field notes saw a client use it)', () => {
	it("pages the caller's own users with limit and offset, {users, total}; a subaccount's users are not listed", async () => {
		const all = await env.api.get('/users');
		expect(all.status).toBe(200);
		const labels = all.body.users.map((u: any) => u.label);
		expect(labels).toEqual(expect.arrayContaining(['alice', 'bob']));
		expect(labels).not.toContain('carol');
		expect(all.body.total).toBe(all.body.users.length);
		expect(all.body.users.find((u: any) => u.label === 'alice')).toMatchObject({ id: env.alice.id, wallets: expect.any(Array) });
		const page = await env.api.get('/users?limit=1&offset=1');
		expect(page.body).toEqual({ users: [all.body.users[1]], total: all.body.total });
		expect((await env.api.get('/users?limit=0')).status).toBe(400);
		expect((await env.api.get('/users?offset=-1')).status).toBe(400);
	});
});
