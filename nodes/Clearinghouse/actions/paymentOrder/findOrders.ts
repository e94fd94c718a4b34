import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES } from '../../../shared/paymentOrderStatus';
import { listPages } from '../../../shared/transport';
import { readOncePerRun } from '../readOnce';
import { clockSkew } from './foundOrder';

/** Payment orders by the idempotency key they were created with: GET /payment-orders, paged, every known status. A read. */

export interface OrderSearch {
	/** The listing stops as soon as all are found. */
	keys: Iterable<string>;
	createdAfter?: string;
	/** An order for a subaccount keeps the caller's key. */
	includeSubaccounts?: boolean;
	subaccountId?: string;
	itemIndex: number;
	pageSize?: number;
}

export interface OrderIndex {
	/** Key → the newest order listed with it. */
	byKey: Map<string, IDataObject>;
	listed: number;
	pages: number;
	/** The service's clock less this computer's, from the first page's Date header. */
	skewMs: number;
}

/** Pages newest first until every key is found; orders created while paging push older ones on: read twice, never skipped. */
export async function findOrdersByKey(ctx: IExecuteFunctions, search: OrderSearch): Promise<OrderIndex> {
	const wanted = new Set(search.keys);
	const index: OrderIndex = { byKey: new Map(), listed: 0, pages: 0, skewMs: 0 };
	const qs: IDataObject = { status: [...PAYMENT_ORDER_STATUSES] };
	if (search.createdAfter) qs.createdAfter = search.createdAfter;
	if (search.subaccountId) qs.subaccountId = search.subaccountId;
	else if (search.includeSubaccounts) qs.includeSubaccounts = true;
	const pageSize = Math.min(1000, Math.max(1, search.pageSize ?? 1000));
	if (wanted.size === 0) return index;
	for await (const { records, date } of listPages(ctx, {
		path: '/payment-orders',
		listKey: 'paymentOrders',
		qs,
		pageSize,
		itemIndex: search.itemIndex,
	})) {
		if (index.pages++ === 0) index.skewMs = clockSkew(date, Date.now());
		index.listed += records.length;
		for (const order of records) {
			const key = typeof order.idempotencyKey === 'string' ? order.idempotencyKey : undefined;
			if (key !== undefined && wanted.delete(key)) index.byKey.set(key, order);
		}
		if (wanted.size === 0) break;
	}
	return index;
}

/** How far back Create and Check Batch Against Limits look for the order holding a Business Key. */
export const KEY_LOOKUP_DAYS = 90;

/** Orders made after a run's shared listing began are looked for from this long before it (clock skew). */
const LISTING_MARGIN_MS = 5 * 60_000;

const listingOnce = readOncePerRun<Promise<{ startedMs: number; index: OrderIndex }>, string>();

/**
 * The order holding `key`, from one listing per run and scope for every key of the run (N items that meet
 * a 409 cost one listing, not N). A key it lacks is looked for once more among the orders made since it
 * began (another item may have made it), unless `alsoRecent` is false (a dry run makes none).
 */
export async function orderByKeyInRun(
	ctx: IExecuteFunctions,
	search: { key: string; runKeys: () => Iterable<string>; subaccountId?: string; itemIndex: number; alsoRecent?: boolean },
): Promise<{ order: IDataObject; skewMs: number } | undefined> {
	const scope = { subaccountId: search.subaccountId, includeSubaccounts: !search.subaccountId };
	const { startedMs, index } = await listingOnce(ctx, search.subaccountId ?? '', async () => {
		const started = Date.now();
		const keys = new Set(search.runKeys());
		keys.add(search.key);
		const createdAfter = new Date(started - KEY_LOOKUP_DAYS * 86_400_000).toISOString();
		return { startedMs: started, index: await findOrdersByKey(ctx, { keys, createdAfter, ...scope, itemIndex: search.itemIndex }) };
	});
	const found = index.byKey.get(search.key);
	if (found) return { order: found, skewMs: index.skewMs };
	if (search.alsoRecent === false) return undefined;
	const recent = await findOrdersByKey(ctx, {
		keys: [search.key],
		// From the earlier clock: a Date header that leads must not hide an order this run made.
		createdAfter: new Date(startedMs + Math.min(0, index.skewMs) - LISTING_MARGIN_MS).toISOString(),
		...scope,
		itemIndex: search.itemIndex,
	});
	const order = recent.byKey.get(search.key);
	return order ? { order, skewMs: recent.skewMs } : undefined;
}
