import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES } from '../../../shared/paymentOrderStatus';
import { apiRequest } from '../../../shared/transport';

/**
 * Finds payment orders by the idempotency key they were created with: GET /payment-orders, paged
 * (limit/offset), every status the node knows, from a creation time on. Read-only: safe to repeat.
 * Used by Find by Keys (one listing shared by all items of a run) and by Create (a Business Key met
 * the service's 409: which order holds it?).
 */

export interface OrderSearch {
	/** The keys wanted: the listing stops as soon as all are found. */
	keys: Iterable<string>;
	/** Only orders created at or after this time (ISO); the API's `createdAfter`. */
	createdAfter?: string;
	/** Span this account and all its subaccounts (an order for a subaccount keeps the caller's key). */
	includeSubaccounts?: boolean;
	/** Read one direct child subaccount instead. */
	subaccountId?: string;
	itemIndex: number;
	/** Records per page (1-1000). */
	pageSize?: number;
}

export interface OrderIndex {
	/** Key → the newest order listed with it. */
	byKey: Map<string, IDataObject>;
	/** Orders read, pages requested: for the output's note and for tests. */
	listed: number;
	pages: number;
}

/**
 * Pages through the account's orders newest first (the API lists by creation) until every wanted key
 * is found or the window is exhausted. Orders created while paging push older ones to later offsets:
 * an order may be read twice, never skipped.
 */
export async function findOrdersByKey(this: IExecuteFunctions, search: OrderSearch): Promise<OrderIndex> {
	const wanted = new Set(search.keys);
	const byKey = new Map<string, IDataObject>();
	const qs: IDataObject = { status: [...PAYMENT_ORDER_STATUSES] };
	if (search.createdAfter) qs.createdAfter = search.createdAfter;
	if (search.subaccountId) qs.subaccountId = search.subaccountId;
	else if (search.includeSubaccounts) qs.includeSubaccounts = true;
	const limit = Math.min(1000, Math.max(1, search.pageSize ?? 1000));
	let offset = 0;
	let listed = 0;
	let pages = 0;
	while (wanted.size > 0) {
		const page = await apiRequest.call(this, { method: 'GET', path: '/payment-orders', qs: { ...qs, limit, offset }, itemIndex: search.itemIndex });
		pages++;
		const batch = Array.isArray(page.paymentOrders) ? (page.paymentOrders as IDataObject[]) : [];
		for (const order of batch) {
			const key = typeof order.idempotencyKey === 'string' ? order.idempotencyKey : undefined;
			if (key !== undefined && wanted.has(key) && !byKey.has(key)) {
				byKey.set(key, order);
				wanted.delete(key);
			}
		}
		listed += batch.length;
		offset += batch.length;
		const hasMore = typeof page.hasMore === 'boolean' ? page.hasMore : typeof page.total === 'number' ? offset < page.total : batch.length === limit;
		if (!hasMore || batch.length === 0) break;
	}
	return { byKey, listed, pages };
}
