/**
 * The payment-order state machine: creation, deposit attribution and confirmation, funding, returns
 * (cancel, expiry, overfunding, late deposits), the netting window and distribution.
 */
import type { Core } from './core';
import type { Webhooks } from './webhooks';
import type { Account, InboundTransfer, Order, OrderStatus, Quote, ReturnItem, Ruleset, Usage } from './state';
import { seedWallet } from './state';
import { dict, fail, fromPips, hex, toPips, txHashFor, uuid, base58From, evmFrom } from './util';

/** Service waits before timeScale compression (ms). */
export const WAIT = {
	depositStep: 5_000,
	returnSettle: 5_000,
	cancelSettle: 5_000,
	instantDistribution: 5_000,
	rulesetProvision: 5_000,
	instantFundingWindow: 30 * 60_000,
	instantQuoteTtl: 5 * 60_000,
	standardQuoteTtl: 60 * 60_000,
};
export const UNDERFUND_TOLERANCE_USD = 0.01;
/** Deposit statuses on the way to CONFIRMED (seen on chain, not yet swept into clearing). */
export const IN_FLIGHT = new Set(['PENDING_VERIFICATION', 'ONCHAIN_CONFIRMED']);

export interface CreateOrderInput {
	account: Account;
	fromUserId: string | null;
	toAddress: string;
	toChain: string;
	asset: string;
	amountUsd: number;
	memo: string | null;
	mode: 'standard' | 'instant';
	expiresAt: string;
	idempotencyKey?: string;
	quote?: Quote;
	rulesetId?: string;
}

/** The one place an order record is written: a new order with no deposits, returns or timers yet. */
function newOrder(f: {
	account: Account;
	fromUserId: string | null;
	status: OrderStatus;
	mode: string;
	asset: string;
	toChain: string;
	toAddress: string;
	amountUsd: number;
	memo: string | null;
	createdAt: string;
	expiresAt: string;
	idempotencyKey?: string;
	rulesetId?: string;
}): Order {
	return {
		id: uuid(),
		...(f.rulesetId ? { rulesetId: f.rulesetId } : {}),
		mode: f.mode,
		senderAccountId: f.account.id,
		receiverAccountIds: [f.account.id],
		fromUserId: f.fromUserId,
		status: f.status,
		version: 1,
		asset: f.asset,
		toChain: f.toChain,
		toAddress: f.toAddress,
		amountUsd: f.amountUsd,
		memo: f.memo,
		...(f.idempotencyKey !== undefined ? { idempotencyKey: f.idempotencyKey } : {}),
		createdAt: f.createdAt,
		expiresAt: f.expiresAt,
		receivedTotal: 0,
		inboundTransfers: [],
		internal: {
			accountId: f.account.id,
			returnDetails: null,
			returnRevision: 0,
			returnIdem: dict(),
			returns: [],
			pendingFinal: null,
			failNextDistribution: false,
			expireDueAt: null,
			cancelDueAt: null,
		},
	};
}

export class Engine {
	constructor(
		private core: Core,
		private webhooks: Webhooks,
	) {
		core.onResume.push(() => this.resume());
	}

	publicOrder(o: Order): Record<string, unknown> {
		const { internal: _internal, ...rest } = o;
		void _internal;
		return rest;
	}

	private event(o: Order): void {
		this.core.dirty = true;
		this.webhooks.emit(o.internal.accountId, 'payment_order', { payment_order: this.publicOrder(o) });
	}
	private setStatus(o: Order, s: OrderStatus): void {
		o.status = s;
		o.version++;
	}

	// ---- limits -------------------------------------------------------------------------------
	usage(acc: Account): Usage {
		const root = this.core.familyRoot(acc);
		const day = this.core.iso().slice(0, 10);
		let u = this.core.data.usage[root.id];
		if (!u) u = this.core.data.usage[root.id] = { epoch: this.core.data.epoch, epochCount: 0, epochValuePips: 0, day, dayCount: 0, dayValuePips: 0 };
		if (u.epoch !== this.core.data.epoch) Object.assign(u, { epoch: this.core.data.epoch, epochCount: 0, epochValuePips: 0 });
		if (u.day !== day) Object.assign(u, { day, dayCount: 0, dayValuePips: 0 });
		return u;
	}

	/** Throws 400 `limit_exceeded` when one more order of `amountUsd` would break a ceiling of the parent. */
	checkLimits(acc: Account, amountUsd: number, countsOrder = true): void {
		const L = this.core.familyRoot(acc).limits;
		const u = this.usage(acc);
		const p = toPips(amountUsd);
		const n = countsOrder ? 1 : 0;
		const breach = (name: string, detail: string) => fail(400, 'limit_exceeded', `${name} exceeded: ${detail}`, { limit: name });
		if (L.maxTxUsd !== undefined && amountUsd > L.maxTxUsd) breach('maxTxUsd', `${amountUsd} > ${L.maxTxUsd}`);
		if (L.maxCountPerEpoch !== undefined && u.epochCount + n > L.maxCountPerEpoch) breach('maxCountPerEpoch', `${L.maxCountPerEpoch} orders per epoch`);
		if (L.maxValuePerEpochUsd !== undefined && u.epochValuePips + p > toPips(L.maxValuePerEpochUsd))
			breach('maxValuePerEpochUsd', `${L.maxValuePerEpochUsd} USD per epoch`);
		if (L.maxCountPerDay !== undefined && u.dayCount + n > L.maxCountPerDay) breach('maxCountPerDay', `${L.maxCountPerDay} orders per day`);
		if (L.maxValuePerDayUsd !== undefined && u.dayValuePips + p > toPips(L.maxValuePerDayUsd))
			breach('maxValuePerDayUsd', `${L.maxValuePerDayUsd} USD per day`);
	}

	limitsView(acc: Account): Record<string, unknown> {
		const L = this.core.familyRoot(acc).limits;
		const u = this.usage(acc);
		const used: Record<string, number> = {
			maxTxUsd: 0,
			maxCountPerEpoch: u.epochCount,
			maxValuePerEpochUsd: fromPips(u.epochValuePips),
			maxCountPerDay: u.dayCount,
			maxValuePerDayUsd: fromPips(u.dayValuePips),
		};
		const out: Record<string, unknown> = { accountId: acc.id };
		for (const [k, limit] of Object.entries(L)) {
			if (limit === undefined) continue;
			out[k] = { limit, used: used[k], remaining: Math.max(0, fromPips(toPips(limit) - toPips(used[k]))) };
		}
		return out;
	}

	// ---- creation -----------------------------------------------------------------------------
	createOrder(i: CreateOrderInput): Order {
		const core = this.core;
		const o = newOrder({ ...i, status: 'AWAITING_FUNDS', createdAt: core.iso() });
		if (i.mode === 'instant') {
			o.payoutDestinationId = uuid();
			o.instantFeeBps = i.quote?.feeBps ?? 10;
		}
		if (i.quote) {
			o.quoteId = i.quote.quoteId;
			o.quoteFeeBps = i.quote.feeBps;
			o.estimatedSettlementAt = i.quote.estimatedSettlement.estimatedSettlementAt;
			i.quote.status = 'CONSUMED';
		} else {
			o.estimatedSettlementAt = core.iso(core.scheduler.dueIn(WAIT.standardQuoteTtl));
		}
		const u = this.usage(i.account);
		u.epochCount++;
		u.dayCount++;
		u.epochValuePips += toPips(i.amountUsd);
		u.dayValuePips += toPips(i.amountUsd);
		core.data.orders.push(o);
		core.orders.set(o.id, o);
		this.scheduleExpiry(o);
		this.event(o);
		return o;
	}

	private scheduleExpiry(o: Order): void {
		const now = this.core.now();
		const due = now + Math.max(0, Date.parse(o.expiresAt) - now) / this.core.opts.timeScale;
		o.internal.expireDueAt = due;
		this.core.scheduler.at(due, () => this.expire(o));
	}

	/** Fast path for benchmarks: no webhooks, no limits, no expiry timers. */
	createBulk(acc: Account, count: number, fromUserId: string | null, status: OrderStatus): number {
		const core = this.core;
		const now = core.now();
		const expiresAt = core.iso(now + 30 * 86400_000);
		const chains = ['ethereum', 'solana', 'base'];
		// bob's address on each chain, derived once (a hash each, and base58 for solana), not once per order.
		const toAddresses = chains.map((chain) => seedWallet('bob', chain));
		for (let n = 0; n < count; n++) {
			const toChain = chains[n % 3];
			const o = newOrder({
				account: acc,
				fromUserId,
				status,
				mode: 'standard',
				asset: 'USDC',
				toChain,
				toAddress: toAddresses[n % 3],
				amountUsd: 1 + (n % 1000) / 100,
				memo: `bulk ${n}`,
				createdAt: core.iso(now - count + n),
				expiresAt,
			});
			core.data.orders.push(o);
			core.orders.set(o.id, o);
		}
		core.dirty = true;
		return count;
	}

	// ---- deposits -----------------------------------------------------------------------------
	/** Attributes a simulated transfer to the order (caller checked sender and state). */
	attribute(o: Order, hash: string, sender: string, chain: string, asset: string, amountUsd: number): InboundTransfer {
		const t: InboundTransfer = {
			sender,
			amountUsd,
			chain,
			asset,
			transactionHash: hash,
			observedAt: this.core.iso(),
			status: 'PENDING_VERIFICATION',
			version: 1,
		};
		o.inboundTransfers.push(t);
		o.version++;
		this.event(o);
		this.scheduleDepositStep(o, t);
		return t;
	}

	private scheduleDepositStep(o: Order, t: InboundTransfer): void {
		const from = t.status;
		const to = from === 'PENDING_VERIFICATION' ? 'ONCHAIN_CONFIRMED' : 'CONFIRMED';
		this.core.scheduler.after(WAIT.depositStep, () => {
			if (t.status === from) this.setDepositStatus(o, t, to);
		});
	}

	/** Moves one deposit (automatic progression or operator), bumping both versions and firing one event. */
	setDepositStatus(o: Order, t: InboundTransfer, status: string): void {
		if (t.status === status) return;
		t.status = status;
		t.version++;
		o.version++;
		this.recomputeTotals(o);
		if (status === 'CONFIRMED') return this.onConfirmed(o, t);
		this.event(o);
		if (IN_FLIGHT.has(status)) this.scheduleDepositStep(o, t);
		if (status === 'FAILED') this.afterDepositResolved(o);
	}

	private recomputeTotals(o: Order): void {
		o.receivedTotal = fromPips(
			o.inboundTransfers.filter((t) => ['CONFIRMED', 'RETURNING', 'RETURNED'].includes(t.status)).reduce((s, t) => s + toPips(t.amountUsd), 0),
		);
	}

	private onConfirmed(o: Order, t: InboundTransfer): void {
		const cancelPending = !!o.cancelRequestedAt && (o.status === 'AWAITING_FUNDS' || o.status === 'FUNDED');
		if (o.status === 'AWAITING_FUNDS' && !cancelPending) {
			const funding = o.inboundTransfers.filter((d) => d.status === 'CONFIRMED' && !o.internal.returns.some((r) => r.transactionHash === d.transactionHash));
			const total = funding.reduce((s, d) => s + toPips(d.amountUsd), 0);
			if (total >= toPips(o.amountUsd - UNDERFUND_TOLERANCE_USD)) {
				this.setStatus(o, 'FUNDED');
				this.event(o);
				const excess = total - toPips(o.amountUsd);
				if (excess > 0) this.enqueueReturn(o, t, 'excess', fromPips(excess));
				if (o.mode === 'instant')
					this.core.scheduler.after(WAIT.instantDistribution, () => o.status === 'FUNDED' && !o.cancelRequestedAt && this.distribute(o));
				this.processReturns(o);
			} else {
				this.event(o); // partial funding: deposit-level event, order stays AWAITING_FUNDS
			}
			return;
		}
		this.event(o);
		if (cancelPending) return this.afterDepositResolved(o);
		// Anything else (funded already, expired, refunded, ...) is a late deposit: it goes back.
		if (o.status === 'REFUNDED' || o.status === 'CANCELED' || o.status === 'EXPIRED') {
			o.internal.pendingFinal = o.status === 'EXPIRED' ? 'EXPIRED' : 'REFUNDED';
			if (o.status === 'REFUNDED') o.internal.refundReason = 'LATE_DEPOSIT';
		}
		this.enqueueReturn(o, t, 'deposit', t.amountUsd);
		this.processReturns(o);
	}

	private afterDepositResolved(o: Order): void {
		if (o.cancelRequestedAt && o.internal.cancelDueAt !== null && this.core.now() >= o.internal.cancelDueAt) this.settleCancel(o);
		else this.maybeFinal(o);
	}

	// ---- returns ------------------------------------------------------------------------------
	private enqueueReturn(o: Order, t: InboundTransfer, kind: 'deposit' | 'excess', amountUsd: number): void {
		let amount = amountUsd;
		if (kind === 'deposit') {
			// A whole-deposit return replaces a not-yet-committed excess return of the same deposit.
			o.internal.returns = o.internal.returns.filter((r) => !(r.transactionHash === t.transactionHash && r.kind === 'excess' && r.state === 'AWAITING'));
			const sent = o.internal.returns.filter((r) => r.transactionHash === t.transactionHash).reduce((s, r) => s + toPips(r.amountUsd), 0);
			amount = fromPips(toPips(t.amountUsd) - sent);
			if (amount <= 0) return;
		}
		o.internal.returns.push({ transactionHash: t.transactionHash, chain: t.chain, asset: t.asset, amountUsd: amount, kind, state: 'AWAITING' });
		this.core.dirty = true;
	}

	/** Where a return on `chain` would go now: order details, else user default (not for ruleset orders). */
	route(o: Order, chain: string): { status: 'ROUTED' | 'AWAITING_DETAILS'; reason?: string; destination?: { source: string; address: string } } {
		const d = o.internal.returnDetails;
		if (d) {
			const w = d.wallets.find((x) => x.chain === chain);
			return w
				? { status: 'ROUTED', destination: { source: 'details', address: w.address } }
				: { status: 'AWAITING_DETAILS', reason: 'RETURN_DETAILS_INCOMPATIBLE' };
		}
		if (!o.rulesetId && o.fromUserId) {
			const u = this.core.users.get(o.fromUserId);
			const rw = u?.returnWallets.find((x) => x.chain === chain);
			if (u && rw && u.wallets.some((w) => w.chain === chain && w.address === rw.address && w.status === 'ACTIVE')) {
				return { status: 'ROUTED', destination: { source: 'user', address: rw.address } };
			}
		}
		return { status: 'AWAITING_DETAILS', reason: 'RETURN_DETAILS_MISSING' };
	}

	/** Commits a destination for every waiting return that can be routed, and sends it. */
	processReturns(o: Order): void {
		for (const r of o.internal.returns) {
			if (r.state !== 'AWAITING') continue;
			const route = this.route(o, r.chain);
			if (route.status !== 'ROUTED') continue;
			r.destination = route.destination;
			r.refundReference = 'rfd_' + hex(8);
			r.state = 'RETURNING';
			this.returnOnTransfer(o, r, 'RETURNING', { refundReference: r.refundReference });
			this.event(o);
			this.scheduleReturnSettle(o, r);
		}
	}

	/** Shows a return's progress on its deposit (whose status moves only for a whole-deposit return). */
	private returnOnTransfer(o: Order, r: ReturnItem, depositStatus: string, progress: Partial<InboundTransfer>): void {
		const t = o.inboundTransfers.find((x) => x.transactionHash === r.transactionHash)!;
		if (r.kind === 'deposit') t.status = depositStatus;
		Object.assign(t, progress);
		t.version++;
		o.version++;
		this.recomputeTotals(o);
	}

	private scheduleReturnSettle(o: Order, r: ReturnItem): void {
		this.core.scheduler.after(WAIT.returnSettle, () => r.state === 'RETURNING' && this.completeReturn(o, r));
	}

	private completeReturn(o: Order, r: ReturnItem): void {
		r.state = 'RETURNED';
		r.refundTransactionHash = txHashFor(r.chain, 'refund:' + r.refundReference);
		this.returnOnTransfer(o, r, 'RETURNED', { refundTransactionHash: r.refundTransactionHash });
		if (!this.finalize(o)) this.event(o);
	}

	/** Reaches the pending terminal state once every return settled and no deposit is in flight. */
	private finalize(o: Order): boolean {
		if (!o.internal.pendingFinal) return false;
		if (o.internal.returns.some((r) => r.state !== 'RETURNED') || o.inboundTransfers.some((t) => IN_FLIGHT.has(t.status))) return false;
		const final = o.internal.pendingFinal;
		o.internal.pendingFinal = null;
		if (final === 'REFUNDED') {
			const last = [...o.internal.returns].reverse().find((r) => r.refundTransactionHash);
			o.refundReason = o.internal.refundReason ?? 'CANCELED';
			o.refundedAt = this.core.iso();
			if (last) o.refundTransactionHash = last.refundTransactionHash;
		}
		this.setStatus(o, final);
		this.event(o);
		return true;
	}
	private maybeFinal(o: Order): void {
		this.finalize(o);
	}

	returnsBlock(o: Order): Record<string, unknown> {
		const transfers: Record<string, unknown>[] = [];
		for (const t of o.inboundTransfers) {
			const items = o.internal.returns.filter((r) => r.transactionHash === t.transactionHash);
			const committed = items.find((r) => r.destination);
			const base = { transactionHash: t.transactionHash, chain: t.chain, asset: t.asset, amountUsd: t.amountUsd };
			if (committed) {
				transfers.push({
					...base,
					status: 'ROUTED',
					destination: committed.destination,
					committed: true,
					returnStatus: committed.state,
					returnAmountUsd: committed.amountUsd,
					refundReference: committed.refundReference,
					refundTransactionHash: committed.refundTransactionHash,
				});
			} else {
				const r = this.route(o, t.chain);
				transfers.push({ ...base, ...r, committed: false, ...(items[0] ? { returnStatus: 'AWAITING_DETAILS', returnAmountUsd: items[0].amountUsd } : {}) });
			}
		}
		return { details: o.internal.returnDetails, revision: o.internal.returnRevision, transfers };
	}

	/** Deposits whose return destination can still change. */
	uncommitted(o: Order): InboundTransfer[] {
		return o.inboundTransfers.filter((t) => t.status !== 'FAILED' && !o.internal.returns.some((r) => r.transactionHash === t.transactionHash && r.destination));
	}

	// ---- cancel and expiry --------------------------------------------------------------------
	requestCancel(o: Order, reason: string | undefined): void {
		if (o.status !== 'AWAITING_FUNDS' && o.status !== 'FUNDED')
			fail(409, 'order_not_cancelable', `Order is ${o.status}; only AWAITING_FUNDS or FUNDED orders can be canceled`);
		if (o.cancelRequestedAt) return;
		o.cancelRequestedAt = this.core.iso();
		if (reason !== undefined) o.cancelReason = reason;
		o.version++;
		o.internal.cancelDueAt = this.core.scheduler.dueIn(WAIT.cancelSettle);
		this.core.dirty = true;
		this.core.scheduler.at(o.internal.cancelDueAt, () => this.settleCancel(o));
	}

	private settleCancel(o: Order): void {
		if (o.status !== 'AWAITING_FUNDS' && o.status !== 'FUNDED') return;
		if (o.internal.pendingFinal) return this.processReturns(o);
		if (o.inboundTransfers.some((t) => IN_FLIGHT.has(t.status))) return; // settles when they resolve
		const confirmed = o.inboundTransfers.filter((t) => t.status === 'CONFIRMED');
		if (confirmed.length === 0 && !o.internal.returns.length) {
			o.canceledAt = this.core.iso();
			this.setStatus(o, 'CANCELED');
			this.event(o);
			return;
		}
		o.internal.pendingFinal = 'REFUNDED';
		o.internal.refundReason = 'CANCELED';
		for (const t of confirmed) this.enqueueReturn(o, t, 'deposit', t.amountUsd);
		this.processReturns(o);
		this.finalize(o);
	}

	expire(o: Order): void {
		if (o.status !== 'AWAITING_FUNDS' || o.cancelRequestedAt) return;
		const live = o.inboundTransfers.filter((t) => t.status !== 'FAILED' && t.status !== 'RETURNED');
		if (live.length === 0) {
			this.setStatus(o, 'EXPIRED');
			this.event(o);
			return;
		}
		this.setStatus(o, 'REMEDIATING_EXPIRED');
		o.internal.pendingFinal = 'EXPIRED';
		for (const t of live) if (t.status === 'CONFIRMED') this.enqueueReturn(o, t, 'deposit', t.amountUsd);
		this.event(o);
		this.processReturns(o);
	}

	/** Orders and returns waiting on something the operator changed (wallet activation, new details). */
	retryWaitingReturns(): void {
		for (const o of this.core.data.orders) if (o.internal.returns.some((r) => r.state === 'AWAITING')) this.processReturns(o);
	}

	// ---- netting and distribution -------------------------------------------------------------
	/** Nets every order FUNDED now (and retries failed distributions); an order funded later waits for the next window. */
	closeNetting(): { epochId: number; processed: number; distributed: number; failed: number; distributedIds: string[]; failedIds: string[] } {
		const core = this.core;
		const epochId = core.data.epoch;
		const distributedIds: string[] = [];
		const failedIds: string[] = [];
		const due = core.data.orders.filter((o) => (o.status === 'FUNDED' && !o.cancelRequestedAt) || o.status === 'DISTRIBUTION_FAILED');
		for (const o of due) {
			o.internal.nettedInEpoch = epochId;
			if (this.distribute(o)) distributedIds.push(o.id);
			else failedIds.push(o.id);
		}
		core.data.epoch++;
		core.dirty = true;
		return { epochId, processed: due.length, distributed: distributedIds.length, failed: failedIds.length, distributedIds, failedIds };
	}

	/** Runs one distribution attempt to DISTRIBUTED (or DISTRIBUTION_FAILED); true on success. */
	distribute(o: Order): boolean {
		const now = () => this.core.iso();
		if (o.status === 'FUNDED') {
			if (o.mode !== 'instant') this.setStatus(o, 'LOCKED');
			o.settlementReference = 'stl_' + hex(8);
			if (o.mode !== 'instant') this.setStatus(o, 'PENDING_NET_SETTLEMENT');
		}
		this.setStatus(o, 'READY_TO_DISTRIBUTE');
		o.distributionReference = 'dst_' + hex(8); // fresh per attempt
		this.setStatus(o, 'DISTRIBUTION_PENDING');
		o.distributionTransactionHash = txHashFor(o.toChain, 'dist:' + o.distributionReference);
		this.setStatus(o, 'DISTRIBUTION_SUBMITTED');
		if (o.internal.failNextDistribution) {
			o.internal.failNextDistribution = false;
			this.setStatus(o, 'DISTRIBUTION_FAILED');
			this.event(o);
			return false;
		}
		o.distributionExecutedAt = now();
		o.settledAt = now();
		this.setStatus(o, 'DISTRIBUTED');
		this.event(o);
		return true;
	}

	// ---- rulesets -----------------------------------------------------------------------------
	scheduleProvision(r: Ruleset): void {
		this.core.scheduler.after(WAIT.rulesetProvision, () => {
			for (const a of r.addresses) {
				if (a.status !== 'PENDING') continue;
				a.status = 'ACTIVE';
				a.address = a.chain === 'solana' ? base58From(`ruleset:${r.id}:${a.chain}`) : evmFrom(`ruleset:${r.id}:${a.chain}`);
			}
			this.core.dirty = true;
		});
	}

	/** After loading a data file: re-arm every wait that was in progress. */
	private resume(): void {
		const core = this.core;
		for (const o of core.data.orders) {
			for (const t of o.inboundTransfers) if (IN_FLIGHT.has(t.status)) this.scheduleDepositStep(o, t);
			for (const r of o.internal.returns) if (r.state === 'RETURNING') this.scheduleReturnSettle(o, r);
			if (o.cancelRequestedAt && (o.status === 'AWAITING_FUNDS' || o.status === 'FUNDED') && o.internal.cancelDueAt !== null)
				core.scheduler.at(o.internal.cancelDueAt, () => this.settleCancel(o));
			if (o.status === 'AWAITING_FUNDS' && o.internal.expireDueAt !== null) core.scheduler.at(o.internal.expireDueAt, () => this.expire(o));
		}
		for (const r of core.data.rulesets) if (r.addresses.some((a) => a.status === 'PENDING')) this.scheduleProvision(r);
	}
}
