/** The payment-order state machine over real HTTP, with signed webhooks arriving at a local receiver. */
import { Receiver } from '../../harness/receiver';
import { waitFor } from '../../harness/wait';
import { walletOf } from '../../harness/sandboxClient';
import { SandboxEnv, addEndpoint, orderEvents, createOrder, deposit, fund, future, getOrder, paymentBody, payWithQuote, setup, waitStatus } from './support';
import { verifySignature } from '../../harness/signer';

let env: SandboxEnv;
let rx: Receiver;
let endpoint: { id: string; secret: string };

/** A fresh user with active wallets and no default return wallets. */
async function freshUser(label: string): Promise<any> {
	const addr = (n: number) => '0x' + (label.charCodeAt(0).toString(16) + n.toString(16)).padStart(40, '7');
	const r = await env.api.post('/add-user-record', {
		label,
		wallets: [
			{ chain: 'ethereum', address: addr(1) },
			{ chain: 'base', address: addr(2) },
		],
	});
	expect(r.status).toBe(201);
	expect(r.body.data.wallets.every((w: any) => w.status === 'PENDING')).toBe(true);
	await env.op.post('/wallets/activate', { userId: r.body.data.id });
	return { ...r.body.data, wallets: r.body.data.wallets.map((w: any) => ({ ...w, status: 'ACTIVE' })) };
}

beforeAll(async () => {
	// The attempt timeout stays at 5 s (10 s ÷ 1000 would be the 250 ms floor): a receiver slowed by a loaded
	// machine is then not taken for a timeout and sent the event again (seen: 13 events with 5 versions).
	env = await setup({ timeScale: 1000, attemptTimeoutMs: 5_000 });
	rx = await new Receiver().start();
	endpoint = await addEndpoint(env, rx.url);
});
afterAll(async () => {
	await env.sb.close();
	await rx.close();
});

describe('standard order to DISTRIBUTED', () => {
	it('creates, funds, nets and distributes with signed webhooks on the listed statuses only', async () => {
		const created = await env.api.post('/payment', paymentBody(env, { amountUsd: 250.5 }));
		expect(created.status).toBe(201);
		const { paymentOrderId, paymentOrder, depositAddresses } = created.body;
		expect(paymentOrder).toMatchObject({
			id: paymentOrderId,
			status: 'AWAITING_FUNDS',
			version: 1,
			mode: 'standard',
			amountUsd: 250.5,
			underfundToleranceUsd: expect.any(Number),
		});
		expect(depositAddresses).toHaveLength(9);
		expect(depositAddresses[0]).toEqual({ chain: expect.any(String), symbol: expect.any(String), address: expect.any(String) });

		const hash = await fund(env, paymentOrderId, 250.5);
		const funded = await waitStatus(env, paymentOrderId, 'FUNDED');
		expect(funded.receivedTotal).toBe(250.5);
		expect(funded.inboundTransfers[0]).toMatchObject({ transactionHash: hash, status: 'CONFIRMED', version: 3, amountUsd: 250.5 });

		const close = await env.op.post('/netting/close');
		expect(close.body.distributed).toBeGreaterThanOrEqual(1);
		const done = await getOrder(env, paymentOrderId);
		expect(done.status).toBe('DISTRIBUTED');
		expect(done).toMatchObject({
			settlementReference: expect.any(String),
			distributionReference: expect.any(String),
			distributionTransactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
			distributionExecutedAt: expect.any(String),
			settledAt: expect.any(String),
		});
		expect(done.returns).toEqual({ details: null, revision: 0, transfers: expect.any(Array) });

		await env.op.post('/webhooks/flush');
		const events = await waitFor(() => {
			const ev = orderEvents(rx, paymentOrderId);
			return ev.some((e) => e.data.payment_order.status === 'DISTRIBUTED') ? ev : null;
		});
		const statuses = events.map((e) => e.data.payment_order.status);
		expect(statuses).toEqual(expect.arrayContaining(['AWAITING_FUNDS', 'FUNDED', 'DISTRIBUTED']));
		for (const s of ['LOCKED', 'PENDING_NET_SETTLEMENT', 'READY_TO_DISTRIBUTE', 'DISTRIBUTION_PENDING', 'DISTRIBUTION_SUBMITTED'])
			expect(statuses).not.toContain(s);
		// deposit observed and confirmed on-chain fire while the order is still AWAITING_FUNDS
		const depositStatuses = events.map((e) => e.data.payment_order.inboundTransfers[0]?.status).filter(Boolean);
		expect(depositStatuses).toEqual(expect.arrayContaining(['PENDING_VERIFICATION', 'ONCHAIN_CONFIRMED', 'CONFIRMED']));
		const versions = events.map((e) => e.data.payment_order.version);
		expect(new Set(versions).size).toBe(versions.length);
		const dist = events.find((e) => e.data.payment_order.status === 'DISTRIBUTED');
		expect(dist.data.payment_order.version).toBe(Math.max(...versions));
		expect(dist.data.payment_order.version).toBe(done.version);

		for (const r of rx.received.filter((x) => x.body.data?.payment_order?.id === paymentOrderId)) {
			expect(r.headers['content-type']).toMatch(/^application\/json/);
			expect(r.headers['x-service-event']).toBe('payment_order');
			expect(r.headers['x-service-webhook-id']).toBe(r.body.id);
			expect(r.headers['x-service-webhook-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
			expect(r.body).toMatchObject({
				id: expect.stringMatching(/^evt_[0-9a-f-]{36}_payment_order$/),
				type: 'payment_order',
				created: expect.any(String),
				accountId: env.state.accountId,
			});
			expect(r.body.data.payment_order.returns).toBeUndefined();
			expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, endpoint.secret)).toBe(true);
			expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, 'whsec_wrong')).toBe(false);
		}
	});

	it('fails a distribution on demand and retries it with a fresh distributionReference', async () => {
		const o = await createOrder(env);
		await fund(env, o.id, 100);
		await waitStatus(env, o.id, 'FUNDED');
		await env.op.post(`/payment-orders/${o.id}/fail-distribution`);
		await env.op.post('/netting/close');
		const failed = await getOrder(env, o.id);
		expect(failed.status).toBe('DISTRIBUTION_FAILED');
		await env.op.post('/netting/close');
		const retried = await getOrder(env, o.id);
		expect(retried.status).toBe('DISTRIBUTED');
		expect(retried.distributionReference).not.toBe(failed.distributionReference);
		expect(retried.version).toBeGreaterThan(failed.version);
		await env.op.post('/webhooks/flush');
		const st = await waitFor(() => {
			const s = orderEvents(rx, o.id).map((e) => e.data.payment_order.status);
			return s.includes('DISTRIBUTED') && s;
		});
		expect(st).toContain('DISTRIBUTION_FAILED');
	});

	it('keeps a partially funded order AWAITING_FUNDS until the rest arrives', async () => {
		const o = await createOrder(env, { amountUsd: 100 });
		await fund(env, o.id, 40);
		const partial = await waitFor(async () => {
			const x = await getOrder(env, o.id);
			return x.inboundTransfers[0].status === 'CONFIRMED' && x;
		});
		expect(partial.status).toBe('AWAITING_FUNDS');
		expect(partial.receivedTotal).toBe(40);
		await fund(env, o.id, 60, 'base');
		const funded = await waitStatus(env, o.id, 'FUNDED');
		expect(funded.receivedTotal).toBe(100);
	});

	it('runs an instant order from a quote to DISTRIBUTED without a netting window', async () => {
		const q = await env.api.post('/quotes', { toChain: 'solana', asset: 'USDC', amountUsd: 50, toAddress: walletOf(env.bob, 'solana') });
		expect(q.status).toBe(201);
		expect(q.body).toMatchObject({ serviceable: true, mode: 'instant', status: 'ACTIVE', feeBps: expect.any(Number) });
		const r = await payWithQuote(env, q.body.quoteId, 'solana', 50, { memo: null });
		expect(r.status).toBe(201);
		expect(r.body.paymentOrder).toMatchObject({
			mode: 'instant',
			quoteId: q.body.quoteId,
			payoutDestinationId: expect.any(String),
			instantFeeBps: expect.any(Number),
			expiresAt: expect.any(String),
		});
		await fund(env, r.body.paymentOrderId, 50, 'solana');
		await waitStatus(env, r.body.paymentOrderId, 'DISTRIBUTED');
		// the quote is consumed
		const again = await payWithQuote(env, q.body.quoteId, 'solana', 50);
		expect(again.status).toBe(400);
	});
});

describe('deposit attribution', () => {
	it('answers transfersProcessed 0 for an unindexed hash until the indexer sees it', async () => {
		const o = await createOrder(env);
		// a partial amount keeps the order AWAITING_FUNDS, so the repeated submission below still answers 200
		const d = await deposit(env, o.id, 60, { indexed: false });
		const body = { transactions: [{ hash: d.body.transactionHash, chain: 'ethereum' }] };
		const first = await env.api.post(`/payment-orders/${o.id}/transactions`, body);
		expect(first.status).toBe(200);
		expect(first.body).toEqual({ message: expect.any(String), data: { paymentOrderId: o.id, transfersProcessed: 0 } });
		await env.op.post(`/deposits/${d.body.transactionHash}/index`);
		const second = await env.api.post(`/payment-orders/${o.id}/transactions`, body);
		expect(second.body).toMatchObject({ data: { transfersProcessed: 1 } });
		const third = await env.api.post(`/payment-orders/${o.id}/transactions`, body);
		expect([third.status, third.body]).toEqual([200, expect.objectContaining({ data: expect.objectContaining({ transfersProcessed: 0 }) })]); // already attributed
		await waitFor(async () => (await getOrder(env, o.id)).receivedTotal === 60);
	});

	it('rejects a hash that carries more than one funding transfer (400)', async () => {
		const o = await createOrder(env);
		const d = await deposit(env, o.id, 10, { transferCount: 2 });
		const r = await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain: 'ethereum' }] });
		expect(r.status).toBe(400);
		expect(r.body.error).toBe('multiple_transfers_in_hash');
		expect((await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [] })).status).toBe(400);
		expect(
			(await env.api.post('/payment-orders/00000000-0000-4000-8000-000000000000/transactions', { transactions: [{ hash: '0x1', chain: 'ethereum' }] })).status,
		).toBe(404);
	});

	it('attributes only deposits from ACTIVE registered sender wallets, and only while AWAITING_FUNDS', async () => {
		const o = await createOrder(env);
		const stranger = await deposit(env, o.id, 100, { sender: '0x' + '12'.repeat(20) });
		let r = await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: stranger.body.transactionHash, chain: 'ethereum' }] });
		expect(r.body.data.transfersProcessed).toBe(0);
		const u = await env.api.post('/add-user-record', { label: 'erin', wallets: [{ chain: 'ethereum', address: '0x' + 'AB'.repeat(20) }] });
		const pending = await deposit(env, o.id, 100, { sender: '0x' + 'ab'.repeat(20) });
		r = await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: pending.body.transactionHash, chain: 'ethereum' }] });
		expect(r.body.data.transfersProcessed).toBe(0);
		await env.op.post('/wallets/activate', { address: '0x' + 'ab'.repeat(20), chain: 'ethereum' });
		r = await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: pending.body.transactionHash, chain: 'ethereum' }] });
		expect(r.body.data.transfersProcessed).toBe(1);
		expect(u.status).toBe(201);
		await waitStatus(env, o.id, 'FUNDED');
		await env.op.post('/netting/close');
		const late = await deposit(env, o.id, 1);
		r = await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: late.body.transactionHash, chain: 'ethereum' }] });
		expect(r.status).toBe(409);
	});
});

describe('cancel, refunds and returns', () => {
	it('cancels an unfunded order with 202 and a deferred CANCELED', async () => {
		const o = await createOrder(env);
		const r = await env.api.post(`/payment-orders/${o.id}/cancel`, { reason: 'changed my mind' });
		expect(r.status).toBe(202);
		const done = await waitStatus(env, o.id, 'CANCELED');
		expect(done).toMatchObject({ cancelReason: 'changed my mind', cancelRequestedAt: expect.any(String), canceledAt: expect.any(String) });
		const again = await env.api.post(`/payment-orders/${o.id}/cancel`, { reason: 'x' });
		expect(again.status).toBe(409);
		await env.op.post('/webhooks/flush');
		await waitFor(() => orderEvents(rx, o.id).some((e) => e.data.payment_order.status === 'CANCELED'));
	});

	it('refunds a funded order: waits for details (RETURN_DETAILS_MISSING), then routes, returns and REFUNDED; a late deposit re-refunds', async () => {
		const dave = await freshUser('dave');
		const o = await createOrder(env, { fromUserId: dave.id });
		const hash = await fund(env, o.id, 100, 'ethereum', walletOf(dave, 'ethereum'));
		await waitStatus(env, o.id, 'FUNDED');
		expect((await env.api.post(`/payment-orders/${o.id}/cancel`, { reason: 'refund me' })).status).toBe(202);
		const waiting = await waitFor(async () => {
			const x = await getOrder(env, o.id);
			return x.returns.transfers[0]?.returnStatus === 'AWAITING_DETAILS' && x;
		});
		expect(waiting.returns.transfers[0]).toMatchObject({ transactionHash: hash, status: 'AWAITING_DETAILS', reason: 'RETURN_DETAILS_MISSING' });
		const put = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: dave.id, wallets: [{ chain: 'ethereum', address: walletOf(dave, 'ethereum') }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'rd-dave-1' },
		);
		expect(put.status).toBe(200);
		expect(put.body).toMatchObject({ details: { userId: dave.id, revision: 1 }, revision: 1, affectedTransfers: [hash] });
		const refunded = await waitStatus(env, o.id, 'REFUNDED');
		expect(refunded).toMatchObject({ refundReason: expect.any(String), refundedAt: expect.any(String), refundTransactionHash: expect.any(String) });
		expect(refunded.inboundTransfers[0]).toMatchObject({ status: 'RETURNED', refundReference: expect.any(String), refundTransactionHash: expect.any(String) });
		expect(refunded.returns.transfers[0]).toMatchObject({ status: 'ROUTED', destination: { source: 'details', address: walletOf(dave, 'ethereum') } });

		// late deposit on REFUNDED: reopens and refunds again
		const late = await fund(env, o.id, 5, 'ethereum', walletOf(dave, 'ethereum'));
		const again = await waitFor(async () => {
			const x = await getOrder(env, o.id);
			return x.inboundTransfers.find((t: any) => t.transactionHash === late)?.status === 'RETURNED' && x.status === 'REFUNDED' && x;
		});
		expect(again.version).toBeGreaterThan(refunded.version);
		expect(again.refundTransactionHash).not.toBe(refunded.refundTransactionHash);
		expect(again.refundReason).toBe('LATE_DEPOSIT');
		await env.op.post('/webhooks/flush');
		await waitFor(() => orderEvents(rx, o.id).filter((e) => e.data.payment_order.status === 'REFUNDED').length >= 2, 8000, 'two REFUNDED events');
	});

	it('uses the user default return wallet when the order has no details', async () => {
		await env.api.post('/add-user-record', { label: 'alice', wallets: [], returnWallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] });
		const o = await createOrder(env);
		await fund(env, o.id, 100);
		await waitStatus(env, o.id, 'FUNDED');
		await env.api.post(`/payment-orders/${o.id}/cancel`, { reason: 'r' });
		const done = await waitStatus(env, o.id, 'REFUNDED');
		expect(done.returns.transfers[0].destination).toEqual({ source: 'user', address: walletOf(env.alice, 'ethereum') });
	});

	it('orders from a receive ruleset ignore user defaults: they wait for explicit return details', async () => {
		await env.api.post('/add-user-record', { label: 'alice', wallets: [], returnWallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] });
		const rs = await env.api.post('/rulesets', { deliveredAsset: 'USDC', deliveredChain: 'base', toAddress: walletOf(env.bob, 'base') });
		expect(rs.status).toBe(201);
		await waitFor(() => env.sb.services.core.rulesets.get(rs.body.id)!.addresses.every((a) => a.status === 'ACTIVE'));
		const d = await env.op.post(`/rulesets/${rs.body.id}/deposits`, {
			sender: walletOf(env.alice, 'ethereum'),
			chain: 'ethereum',
			asset: 'USDC',
			amountUsd: 25,
		});
		expect(d.body.attributed).toBe(true);
		const o = await waitStatus(env, d.body.paymentOrderId, 'FUNDED');
		expect(o).toMatchObject({ rulesetId: rs.body.id, toAddress: walletOf(env.bob, 'base'), amountUsd: 25, fromUserId: env.alice.id });
		await env.api.post(`/payment-orders/${o.id}/cancel`, {});
		const waiting = await waitFor(async () => {
			const x = await getOrder(env, o.id);
			return x.returns.transfers[0]?.returnStatus === 'AWAITING_DETAILS' && x;
		});
		expect(waiting.returns.transfers[0].reason).toBe('RETURN_DETAILS_MISSING');
		const put = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'rs-order' },
		);
		expect(put.status).toBe(200);
		await waitStatus(env, o.id, 'REFUNDED');
	});

	it('returns the excess of an overfunded order', async () => {
		const o = await createOrder(env, { amountUsd: 100 });
		const hash = await fund(env, o.id, 150);
		await waitStatus(env, o.id, 'FUNDED');
		const x = await waitFor(async () => {
			const y = await getOrder(env, o.id);
			return y.inboundTransfers[0].refundTransactionHash && y;
		});
		expect(x.status).toBe('FUNDED');
		expect(x.returns.transfers[0]).toMatchObject({ transactionHash: hash, status: 'ROUTED', returnAmountUsd: 50, returnStatus: 'RETURNED' });
	});

	it('explicit details that cannot cover a deposit give RETURN_DETAILS_INCOMPATIBLE (no fall-through to defaults)', async () => {
		const o = await createOrder(env);
		await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'solana', address: walletOf(env.alice, 'solana') }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'k-incompat' },
		);
		await fund(env, o.id, 10, 'base');
		await env.api.post(`/payment-orders/${o.id}/cancel`, {});
		const x = await waitFor(async () => {
			const y = await getOrder(env, o.id);
			return y.returns.transfers[0]?.returnStatus === 'AWAITING_DETAILS' && y;
		});
		expect(x.returns.transfers[0]).toMatchObject({ status: 'AWAITING_DETAILS', reason: 'RETURN_DETAILS_INCOMPATIBLE' });
	});
});

describe('expiry', () => {
	it('expires an unfunded order when expiresAt passes (time compressed) with an EXPIRED webhook', async () => {
		const o = await createOrder(env, { expiresAt: future(3000) });
		await waitStatus(env, o.id, 'EXPIRED');
		await env.op.post('/webhooks/flush');
		await waitFor(() => orderEvents(rx, o.id).some((e) => e.data.payment_order.status === 'EXPIRED'));
	});

	it('expires through the operator clock, and REMEDIATING_EXPIRED returns partial funds before EXPIRED', async () => {
		const plain = await createOrder(env, { expiresAt: future(30 * 86400_000) });
		const partial = await createOrder(env, { expiresAt: future(30 * 86400_000) });
		await fund(env, partial.id, 30);
		await waitFor(async () => (await getOrder(env, partial.id)).inboundTransfers[0].status === 'CONFIRMED');
		const adv = await env.op.post('/clock/advance', { seconds: 31 * 86400 });
		expect(adv.status).toBe(200);
		expect((await getOrder(env, plain.id)).status).toBe('EXPIRED');
		const x = await getOrder(env, partial.id);
		expect(['REMEDIATING_EXPIRED', 'EXPIRED']).toContain(x.status);
		const done = await waitStatus(env, partial.id, 'EXPIRED');
		expect(done.inboundTransfers[0].status).toBe('RETURNED');
		await env.op.post('/webhooks/flush');
		await waitFor(() => orderEvents(rx, partial.id).some((e) => e.data.payment_order.status === 'REMEDIATING_EXPIRED'));
	});
});
