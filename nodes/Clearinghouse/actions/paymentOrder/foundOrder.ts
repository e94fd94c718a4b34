import type { IDataObject } from 'n8n-workflow';

import { fromPips, toPips } from '../../../shared/amounts';
import type { Lineage } from '../../../shared/idempotency';
import { PAYMENT_ORDER_STATUSES } from '../../../shared/paymentOrderStatus';

/**
 * What an order found by its idempotency key means for the payee: whether it can still pay, and how long
 * before this execution it was made. Create fails an item on a dead order or one of an earlier period;
 * Find by Keys and Check Batch report the same as data. Pure but for the clock.
 */

/** Statuses from which the spec's status machine allows no delivery (REFUNDED reopens only to refund a late deposit). */
export const DEAD_STATUSES: ReadonlySet<string> = new Set(['EXPIRED', 'CANCELED', 'REFUNDED', 'REMEDIATING_EXPIRED']);

/** `live`: the order pays or has paid; `dead`: it never will. */
export type OrderState = 'live' | 'dead' | 'unknown';

const KNOWN: ReadonlySet<string> = new Set(PAYMENT_ORDER_STATUSES);

/** Whether the order can still deliver (or has delivered), and why not when it cannot. */
export function orderState(order: IDataObject, nowMs: number): { state: OrderState; why?: string } {
	const status = String(order.status ?? '');
	if (DEAD_STATUSES.has(status)) return { state: 'dead', why: `it is ${status}` };
	if (!KNOWN.has(status)) return { state: 'unknown', why: `its status ${status === '' ? '(none)' : status} is not one this node knows` };
	if (status === 'AWAITING_FUNDS') {
		// A deferred cancel, or a funding window already closed: the order moves to CANCELED or EXPIRED.
		if (typeof order.cancelRequestedAt === 'string' && order.cancelRequestedAt !== '') return { state: 'dead', why: 'its cancellation was requested' };
		const expires = typeof order.expiresAt === 'string' ? Date.parse(order.expiresAt) : NaN;
		if (!Number.isNaN(expires) && expires <= nowMs) return { state: 'dead', why: `its funding window closed at ${String(order.expiresAt)}` };
	}
	return { state: 'live' };
}

/** Default of Create's Options → Reuse Orders Made Within (Hours). */
export const DEFAULT_REUSE_WINDOW_HOURS = 12;

/** How long before `startMs` the order was made, in ms (0 when after it); undefined without a readable createdAt. */
export function madeBefore(order: IDataObject, startMs: number): number | undefined {
	const created = typeof order.createdAt === 'string' ? Date.parse(order.createdAt) : NaN;
	if (Number.isNaN(created)) return undefined;
	return Math.max(0, startMs - created);
}

/** A duration as a person reads it: "40 minutes", "13 hours", "31 days". */
export function inWords(ms: number): string {
	// Rounded: the service's Date header has whole seconds, so 31 days can read as a second less.
	const minutes = Math.round(ms / 60_000);
	if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
	const hours = Math.round(ms / 3_600_000);
	if (hours < 48) return `${hours} hours`;
	return `${Math.round(ms / 86_400_000)} days`;
}

/** Inbound transfers that no longer count toward funding. */
const NOT_FUNDING: ReadonlySet<string> = new Set(['RETURNING', 'RETURNED', 'FAILED']);

/** Funds the service has seen for the order, not returned: the larger of `receivedTotal` and its inbound transfers still counting. */
export function fundsSeen(order: IDataObject): { fundsSeen: boolean; fundsSeenUsd: string } {
	let pips = 0n;
	let unreadable = false;
	const transfers = Array.isArray(order.inboundTransfers) ? (order.inboundTransfers as IDataObject[]) : [];
	for (const transfer of transfers) {
		if (NOT_FUNDING.has(String(transfer.status ?? ''))) continue;
		try {
			pips += toPips(transfer.amountUsd);
		} catch {
			unreadable = true; // seen funds of an amount the node cannot read
		}
	}
	try {
		const received = toPips(order.receivedTotal ?? 0);
		if (received > pips) pips = received;
	} catch {
		// receivedTotal unreadable: the transfers stand
	}
	return { fundsSeen: unreadable || pips > 0n, fundsSeenUsd: fromPips(pips).text };
}

/** The service's clock less this computer's (ms), from an answer's HTTP Date header (RFC 9110); 0 without a readable one. */
export function clockSkew(date: unknown, localMs: number): number {
	const serviceMs = typeof date === 'string' ? Date.parse(date) : NaN;
	if (Number.isNaN(serviceMs)) return 0;
	// The header has whole seconds: a difference within them is no difference.
	const skew = serviceMs - localMs;
	return Math.abs(skew) < 2_000 ? 0 : skew;
}

/**
 * `localMs` on whichever clock is later, n8n's or the service's: a found order is judged at its oldest.
 * Either may lag (n8n's, or the Date of a gateway or cache), which would make last month's order look recent.
 */
export function laterNow(localMs: number, skewMs: number): number {
	return localMs + Math.max(0, skewMs);
}

export interface FoundCheck {
	key: string;
	keyKind: 'custom' | 'derived';
	lineage?: Lineage;
	reuseWindowHours: number;
}

/**
 * Why an order found by this item's key is not its payment, or undefined when it is: a dead order, an
 * unknown status, or, for a Business Key, one made before the reuse window (an earlier period's key).
 */
export function foundOrderProblem(order: IDataObject, found: FoundCheck, skewMs: number): { message: string; description: string } | undefined {
	const { key } = found;
	const id = String(order.id ?? order.paymentOrderId ?? '');
	const status = String(order.status ?? '(none)');
	const made = `made ${String(order.createdAt ?? 'at an unknown time')}`;
	const keyName = found.keyKind === 'custom' ? `Business Key "${key}"` : `idempotency key ${key}`;
	const { state, why } = orderState(order, laterNow(Date.now(), skewMs));
	if (state === 'dead') {
		return {
			message: `Payee unpaid: this item's ${keyName} belongs to payment order ${id} (${made}), which can no longer pay: ${why}`,
			description: `Nothing new was created, and this key will only ever return that order. Only a new key pays: ${found.keyKind === 'custom' ? "give this payment a new Business Key (e.g. add the period or a suffix: {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}-2)" : 'run the workflow anew for this item'}.`,
		};
	}
	if (state === 'unknown') {
		return {
			message: `This item's ${keyName} belongs to payment order ${id} (${made}), whose status ${status} this node does not know, so it cannot say whether the payee is paid`,
			description: `Nothing new was created. Check the order (Payment Order → Get) before paying again; ${found.keyKind === 'custom' ? 'a new Business Key pays anew' : 'a new key pays anew: run the workflow anew for this item'}.`,
		};
	}
	if (found.keyKind !== 'custom') return undefined;
	// This execution's start (its retries keep it), on the later clock.
	const startMs = found.lineage?.anchorMs ?? Date.now();
	const before = madeBefore(order, laterNow(startMs, skewMs));
	const windowMs = found.reuseWindowHours * 3_600_000;
	if (before === undefined || before > windowMs) {
		const when = before === undefined ? 'at a time the service did not give' : `${inWords(before)} before this execution began`;
		// By the other clock the order would have counted as this payment: say that the clocks disagree.
		const byOther = madeBefore(order, startMs + Math.min(0, skewMs));
		const clocks =
			byOther !== undefined && byOther <= windowMs
				? `By ${skewMs > 0 ? "the service's clock (the Date header of its answers)" : "n8n's clock"}; by ${skewMs > 0 ? "n8n's clock" : "the service's Date header"} it was made ${inWords(byOther)} before: the two clocks differ by ${inWords(Math.abs(skewMs))}. The node judges an order's age by the later of the two, so a clock that lags (n8n's, or the Date of a gateway or cache in front of the service) never makes an old order count as this payment. Set the clock that is wrong (n8n's host, or what sits in front of the Base URL). `
				: '';
		return {
			message: `Business Key "${key}" was already used ${when}, by payment order ${id} (${made}, status ${status}): nothing new was paid for this item`,
			description:
				clocks +
				`A key names one payment: running it again returns that order. If this is a new period's payment, put the period or the invoice number in the key, e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}. ` +
				`If this run finishes that same batch (a re-run after a fix, a crash or an outage), set Options → Reuse Orders Made Within (Hours) above ${Math.ceil((before ?? 0) / 3_600_000)} (now ${found.reuseWindowHours}).`,
		};
	}
	return undefined;
}

/** A dry run's line about the order that already holds the item's key. */
export function existingOrderFinding(order: IDataObject, found: FoundCheck, skewMs: number): string {
	const said = `Business Key "${found.key}" already belongs to payment order ${String(order.id ?? '')} (made ${String(order.createdAt ?? '?')}, status ${String(order.status ?? '?')})`;
	const problem = foundOrderProblem(order, found, skewMs);
	return problem
		? `${said}: a real run fails this item. ${problem.message}.`
		: `${said}: a real run returns that order (created: false) if its payment values are the same, and pays nothing new.`;
}

/** What the key means for the payee, as data a workflow branches on (`live`, `dead`, `unknown`) with a note. */
export function keyStateOf(order: IDataObject, serviceNowMs: number): { keyState: string; note: string } {
	const { state, why } = orderState(order, serviceNowMs);
	const used = `This key was used on ${String(order.createdAt ?? '(unknown date)')} by payment order ${String(order.id ?? '')} (status ${String(order.status ?? '(none)')})`;
	if (state === 'dead') {
		return { keyState: 'dead', note: `${used}, which can no longer pay: ${why}. The payee is unpaid, and only a new key pays: Create with this key fails.` };
	}
	if (state === 'unknown') return { keyState: 'unknown', note: `${used}: ${why}. Check the order before paying again.` };
	return { keyState: 'live', note: `${used}. Create with this key returns that order and pays nothing new.` };
}
