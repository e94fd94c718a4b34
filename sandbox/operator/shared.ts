/** What the operator API's topics share: the answer shape, the account and order a call names, and the state only the operator API keeps. */
import type { Core } from '../core';
import type { Account, Order } from '../state';
import { fail } from '../util';

export const ok = (body: unknown = { ok: true }, status = 200) => ({ status, body });

/** The root account, or the direct child named by `subaccountId` (404 otherwise). */
export function accountOf(core: Core, subaccountId?: string): Account {
	if (!subaccountId) return core.root();
	const a = core.accounts.get(subaccountId);
	if (!a || !a.parentId) fail(404, 'subaccount_not_found');
	return a;
}

/** The payment order with this id, of any account (404 otherwise). */
export function orderOf(core: Core, id: string): Order {
	const o = core.orders.get(id);
	if (!o) fail(404, 'payment_order_not_found');
	return o;
}

export interface OutboxMessage {
	seq: number;
	channel: string;
	at: string;
	body: unknown;
}

/** Kept by the operator API itself (not in the data file): the outbox and the last netting close in words. */
export interface OperatorState {
	outbox: OutboxMessage[];
	outboxSeq: number;
	/** The last netting close, said in words, for the console; cleared by a reset. */
	lastNetting: { at: string; says: string } | null;
}
