/** Payment orders: create, list, get, attribute transactions, cancel, return details. */
import type { Ctx, Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';
import type { Account, Order, Quote } from '../state';
import type { z } from 'zod';
import { ApiError, canonical, fail, isPipMultiple, normalizeAddress, sha, uuid } from '../util';
import { UNDERFUND_TOLERANCE_USD, WAIT } from '../engine';
import { replayOrRecord } from '../idempotency';

type PaymentBody = z.output<typeof requestSchemas.payment>;
type ReturnDetailsBody = z.output<typeof requestSchemas.returnDetails>;

/**
 * The order in the scope the request names: the caller's own account, or the direct child given as
 * `subaccountId` (query on reads, body on writes). A child's order without it is 404, as the
 * service answers: the parent's key does not reach into children implicitly.
 */
export function scopedOrder(svc: Services, ctx: Ctx, subaccountId?: string): Order {
	const account = subaccountId ? svc.core.child(ctx.auth, subaccountId) : ctx.auth.account;
	const o = svc.core.orders.get(ctx.params.id);
	if (!o || o.internal.accountId !== account.id) fail(404, 'payment_order_not_found', `Payment order ${ctx.params.id} not found`);
	return o;
}

function writableOrder(svc: Services, ctx: Ctx, subaccountId?: string): Order {
	const o = scopedOrder(svc, ctx, subaccountId);
	svc.core.assertWritable(svc.core.accounts.get(o.internal.accountId)!);
	return o;
}

export function checkAmount(amountUsd: number): void {
	if (!isPipMultiple(amountUsd)) fail(400, 'validation_error', 'amountUsd must be a multiple of 0.0001 with at most 4 decimals', { path: 'amountUsd' });
}

/** A quote usable by the caller, refreshing its status if its window has passed. */
export function liveQuote(svc: Services, ctx: Ctx, quoteId: string): Quote {
	const q = svc.core.quotes.get(quoteId);
	if (!q || !svc.core.visibleAccountIds(ctx.auth).has(q.accountId)) fail(400, 'quote_not_found', `Quote ${quoteId} not found`, { path: 'quoteId' });
	if (q.status === 'ACTIVE' && svc.core.now() >= q.expireDueAt) q.status = 'EXPIRED';
	if (q.status !== 'ACTIVE') fail(400, 'quote_not_active', `Quote ${quoteId} is ${q.status}`, { path: 'quoteId' });
	if (!q.serviceable) fail(400, 'quote_not_serviceable', `Quote ${quoteId} is not serviceable`, { path: 'quoteId' });
	return q;
}

export function registerOrders(r: Router, svc: Services): void {
	const { core, engine } = svc;

	r.add('POST', '/api/v1/payment', (ctx) => {
		const b = parse(requestSchemas.payment, ctx.body);
		checkAmount(b.amountUsd);
		const mode = b.mode ?? 'standard';
		if (mode === 'instant') {
			if (b.subaccountId) fail(400, 'validation_error', 'subaccountId is not accepted on an instant order; pass it to POST /quotes', { path: 'subaccountId' });
			if (b.expiresAt) fail(400, 'validation_error', 'expiresAt is not accepted on an instant order', { path: 'expiresAt' });
			if (!b.quoteId) fail(400, 'validation_error', 'quoteId is required for an instant order', { path: 'quoteId' });
		} else if (!b.expiresAt) fail(400, 'validation_error', 'expiresAt is required for a standard order', { path: 'expiresAt' });

		const writeAccount = core.writeScope(ctx.auth, b.subaccountId);
		return replayOrRecord(
			{
				store: core.data.paymentIdem,
				key: b.idempotencyKey ? `${ctx.auth.account.id}:${b.idempotencyKey}` : null,
				hash: sha(canonical(b)),
				status: 201,
				reused: { message: 'idempotencyKey was already used with a different body' },
			},
			() => createPayment(svc, ctx, b, writeAccount),
		);
	});
	r.add('GET', '/api/v1/payment-orders', (ctx) => {
		if (ctx.query.has('epochId')) fail(400, 'validation_error', 'epochId has been removed', { path: 'epochId' });
		const q = parse(requestSchemas.listOrders, queryObject(ctx.query, ['status']));
		const accounts = new Set(core.readScope(ctx.auth, q.subaccountId, q.includeSubaccounts).map((a) => a.id));
		const statuses = new Set<string>(q.status);
		const after = q.createdAfter ? Date.parse(q.createdAfter) : null;
		const before = q.createdBefore ? Date.parse(q.createdBefore) : null;
		const limit = q.limit ?? 100;
		const offset = q.offset ?? 0;
		const page: Record<string, unknown>[] = [];
		let total = 0;
		const all = core.data.orders;
		for (let i = all.length - 1; i >= 0; i--) {
			const o = all[i]; // insertion order is creation order: newest first without sorting
			if (!accounts.has(o.internal.accountId)) continue;
			if (!statuses.has(o.status)) continue;
			if (q.fromUserId && o.fromUserId !== q.fromUserId) continue;
			if (after !== null || before !== null) {
				const c = Date.parse(o.createdAt);
				if (after !== null && c < after) continue;
				if (before !== null && c >= before) continue;
			}
			if (total >= offset && page.length < limit) page.push({ ...engine.publicOrder(o), direction: 'SENT' });
			total++;
		}
		return { status: 200, body: { paymentOrders: page, total, limit, offset, hasMore: offset + page.length < total } };
	});

	r.add('GET', '/api/v1/payment-orders/:id', (ctx) => {
		const q = parse(requestSchemas.scopeQuery, queryObject(ctx.query));
		if (q.subaccountId && q.includeSubaccounts) fail(400, 'validation_error', 'includeSubaccounts=true cannot be combined with subaccountId');
		const o = scopedOrder(svc, ctx, q.subaccountId);
		return { status: 200, body: { ...engine.publicOrder(o), returns: engine.returnsBlock(o) } };
	});

	r.add('POST', '/api/v1/payment-orders/:id/transactions', (ctx) => {
		const b = parse(requestSchemas.transactions, ctx.body);
		const o = writableOrder(svc, ctx, b.subaccountId);
		// REFUNDED is reopenable: a late deposit there is attributed and returned again.
		if (o.status !== 'AWAITING_FUNDS' && o.status !== 'REFUNDED')
			fail(409, 'order_not_awaiting_funds', `Order is ${o.status}; transactions are accepted while AWAITING_FUNDS`);
		for (const t of b.transactions) {
			const tx = core.chainTxs.get(t.hash);
			if (tx?.indexed && (tx.transferCount ?? 1) > 1) {
				fail(
					400,
					'multiple_transfers_in_hash',
					`Transaction ${t.hash} carries ${tx.transferCount} funding transfers from the wallet; send each funding transfer in its own transaction`,
					{ path: 'transactions' },
				);
			}
		}
		let processed = 0;
		for (const t of b.transactions) {
			const tx = core.chainTxs.get(t.hash);
			if (!tx || !tx.indexed || tx.chain !== t.chain || tx.accountId !== o.internal.accountId || tx.attributedTo) continue;
			const sender = core.accountWallet(o.internal.accountId, tx.chain, tx.sender);
			if (!sender || sender.status !== 'ACTIVE') continue; // only activated senders are matched
			tx.attributedTo = o.id;
			engine.attribute(o, tx.hash, tx.sender, tx.chain, tx.asset, tx.amountUsd);
			processed++;
		}
		return {
			status: 200,
			body: { message: processed ? 'Transactions submitted' : 'No matching transfers found', data: { paymentOrderId: o.id, transfersProcessed: processed } },
		};
	});

	r.add('POST', '/api/v1/payment-orders/:id/cancel', (ctx) => {
		const b = parse(requestSchemas.cancel, ctx.body);
		const o = writableOrder(svc, ctx, b.subaccountId);
		engine.requestCancel(o, b.reason);
		return {
			status: 202,
			body: { message: 'Cancellation requested', data: { paymentOrderId: o.id, status: o.status, cancelRequestedAt: o.cancelRequestedAt } },
		};
	});

	r.add('PUT', '/api/v1/payment-orders/:id/return-details', (ctx) => {
		const ifMatch = ctx.headers['if-match'];
		const m = typeof ifMatch === 'string' ? /^(?:W\/)?"(\d+)"$/.exec(ifMatch.trim()) : null;
		if (!m) fail(400, 'validation_error', 'If-Match must be the quoted current returns.revision, e.g. "0"', { path: 'headers.if-match' });
		const key = ctx.headers['idempotency-key'];
		if (typeof key !== 'string' || key.length < 1 || key.length > 255)
			fail(400, 'validation_error', 'Idempotency-Key header is required (up to 255 characters)', { path: 'headers.idempotency-key' });
		const b = parse(requestSchemas.returnDetails, ctx.body);
		if (new Set(b.wallets.map((w) => w.chain)).size !== b.wallets.length)
			fail(400, 'validation_error', 'wallets: one wallet per chain (duplicate chain)', { path: 'wallets' });
		const o = writableOrder(svc, ctx, b.subaccountId);
		const expected = Number(m[1]);
		// The revision is part of the request: the same details against another revision are another request.
		return replayOrRecord(
			{
				store: o.internal.returnIdem,
				key,
				hash: `${sha(canonical(b))}:${expected}`,
				status: 200,
				reused: { message: 'Idempotency-Key was already used with different details' },
			},
			() => registerReturnDetails(svc, o, b, expected),
		);
	});
}

/** New return details for the order, once If-Match, scope and idempotency passed: the 200 body. */
function registerReturnDetails(svc: Services, o: Order, b: ReturnDetailsBody, expected: number): unknown {
	const { core, engine } = svc;
	if (expected !== o.internal.returnRevision)
		fail(409, 'stale_revision', `If-Match revision ${expected} is stale; current revision is ${o.internal.returnRevision}`);
	const user = core.users.get(b.userId);
	if (!user || user.accountId !== o.internal.accountId) fail(404, 'return_user_not_found', `User ${b.userId} is not in the order's account`);
	const open = engine.uncommitted(o);
	if (o.inboundTransfers.filter((t) => t.status !== 'FAILED').length > 0 && open.length === 0) {
		fail(409, 'returns_committed', 'Every observed transfer already has a committed return destination');
	}
	const assetOf = (chain: string) => open.find((t) => t.chain === chain)?.asset ?? o.asset;
	const wallets = b.wallets.map((w) => {
		if (!core.isSupported(w.chain))
			fail(422, `Unsupported return chain ${w.chain} (asset ${assetOf(w.chain)})`, undefined, { chain: w.chain, asset: assetOf(w.chain) });
		const address = normalizeAddress(w.chain, w.address);
		const owned = address && user.wallets.find((x) => x.chain === w.chain && x.address === address);
		if (owned && owned.status === 'ACTIVATING') {
			fail(409, 'activation_in_progress', `Wallet ${w.address} on ${w.chain} is being activated; retry the same request shortly`);
		}
		if (!owned || owned.status !== 'ACTIVE') {
			const why = owned ? `is not active (${owned.status})` : 'is not registered to the user';
			fail(422, `Return wallet ${w.address} on chain ${w.chain} (asset ${assetOf(w.chain)}) ${why}`, undefined, { chain: w.chain, asset: assetOf(w.chain) });
		}
		return { chain: w.chain, address: address! };
	});
	for (const t of open) {
		if (!wallets.some((w) => w.chain === t.chain)) {
			fail(422, `Chain ${t.chain} (asset ${t.asset}) is missing from the complete wallet list: deposit ${t.transactionHash} needs it`, undefined, {
				chain: t.chain,
				asset: t.asset,
			});
		}
	}
	o.internal.returnRevision++;
	o.internal.returnDetails = { userId: user.id, wallets, revision: o.internal.returnRevision, registeredAt: core.iso(), requestId: uuid() };
	o.version++;
	const body = { ...engine.returnsBlock(o), affectedTransfers: open.map((t) => t.transactionHash) };
	// Registration does not send a return at once: waiting returns pick the new details up shortly.
	core.scheduler.after(WAIT.returnSettle, () => engine.processReturns(o));
	return body;
}

/** A new order once the request passed validation, scope and idempotency: its 201 body. */
function createPayment(svc: Services, ctx: Ctx, b: PaymentBody, writeAccount: Account): unknown {
	const { core, engine } = svc;
	const mode = b.mode ?? 'standard';
	let account = writeAccount;
	let quote: Quote | undefined;
	if (b.quoteId) {
		quote = liveQuote(svc, ctx, b.quoteId);
		if (quote.mode !== mode) fail(400, 'quote_mismatch', `Quote ${quote.quoteId} is a ${quote.mode} quote`, { path: 'quoteId' });
		if (mode === 'instant') account = core.accounts.get(quote.accountId)!;
		else if (quote.accountId !== account.id) fail(400, 'quote_mismatch', 'Quote belongs to another account', { path: 'quoteId' });
		core.assertWritable(account);
	}
	if (mode === 'instant' && !account.capabilities.includes('INSTANT_PAYMENT'))
		fail(403, 'capability_required', 'Instant payments need the INSTANT_PAYMENT capability');
	const now = core.now();
	let expiresAt: string;
	if (mode === 'standard') {
		const exp = Date.parse(b.expiresAt!);
		if (!(exp > now)) fail(400, 'validation_error', 'expiresAt must be in the future', { path: 'expiresAt' });
		// A standard quote clamps the funding deadline to its window's lock.
		expiresAt = quote && Date.parse(quote.expiresAt) < exp ? quote.expiresAt : new Date(exp).toISOString();
	} else {
		expiresAt = core.iso(now + WAIT.instantFundingWindow);
	}
	if (!core.isSupported(b.toChain)) fail(400, 'validation_error', `Unsupported toChain ${b.toChain}`, { path: 'toChain' });
	if (!core.isSupported(b.toChain, b.asset)) fail(400, 'validation_error', `Unsupported asset ${b.asset} on ${b.toChain}`, { path: 'asset' });
	const user = core.users.get(b.fromUserId);
	if (!user || user.accountId !== account.id)
		fail(400, 'validation_error', `fromUserId ${b.fromUserId} is not a user of account ${account.id}`, { path: 'fromUserId' });
	const toAddress = normalizeAddress(b.toChain, b.toAddress);
	const w = toAddress ? core.accountWallet(account.id, b.toChain, toAddress) : null;
	if (!w || w.status !== 'ACTIVE') {
		fail(
			400,
			'recipient_not_active',
			`Recipient ${b.toAddress} on ${b.toChain} is ${w ? `not active (${w.status})` : 'not a registered wallet of the account'}`,
			{ path: 'toAddress' },
		);
	}
	if (quote) {
		const mismatch =
			quote.toChain !== b.toChain || quote.asset !== b.asset || quote.amountUsd !== b.amountUsd || (quote.toAddress && quote.toAddress !== toAddress);
		if (mismatch) fail(400, 'quote_mismatch', 'The request does not match the quoted terms (toChain, asset, amountUsd, toAddress)', { path: 'quoteId' });
	}
	if (!account.provisioned) {
		if (mode === 'instant')
			throw new ApiError(503, 'deposit_address_unavailable', { message: 'A deposit address is momentarily unavailable; retry' }, { 'retry-after': '5' });
		fail(412, 'custody_wallet_not_provisioned', `The custody wallet of account ${account.id} is not provisioned yet`);
	}
	engine.checkLimits(account, b.amountUsd);
	const o = engine.createOrder({
		account,
		fromUserId: user.id,
		toAddress: toAddress!,
		toChain: b.toChain,
		asset: b.asset,
		amountUsd: b.amountUsd,
		memo: b.memo ?? null,
		mode,
		expiresAt,
		idempotencyKey: b.idempotencyKey,
		quote,
	});
	return {
		paymentOrderId: o.id,
		paymentOrder: { ...engine.publicOrder(o), underfundToleranceUsd: UNDERFUND_TOLERANCE_USD },
		depositAddresses: core.depositAddresses(account),
	};
}
