import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { paymentOrderLabel } from '../../shared/labels';
import { PAYMENT_ORDER_STATUSES } from '../../shared/paymentOrderStatus';
import { apiRequest } from '../../shared/transport';
import { loadForEditor } from './listError';

const PAGE_SIZE = 50;

function matches(filter: string | undefined, ...fields: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return fields.some((f) => typeof f === 'string' && f.toLowerCase().includes(needle));
}

/**
 * Payment orders for the From List mode, newest pages first as the API returns them. The API has
 * no text search: the filter matches the id, recipient, memo or status within each page, and the
 * pagination token is the next offset.
 */
export async function searchPaymentOrders(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	const offset = Number(paginationToken ?? 0) || 0;
	const page = await loadForEditor(this, async () =>
		apiRequest.call(this, {
			method: 'GET',
			path: '/payment-orders',
			// `status` is required by the reference: every known status.
			qs: { limit: PAGE_SIZE, offset, status: [...PAYMENT_ORDER_STATUSES] },
		}),
	);
	const orders = (page.paymentOrders as IDataObject[] | undefined) ?? [];
	const results = orders.filter((o) => matches(filter, o.id, o.toAddress, o.memo, o.status)).map((o) => ({ name: paymentOrderLabel(o), value: String(o.id) }));
	const next = offset + orders.length;
	const hasMore = typeof page.hasMore === 'boolean' ? page.hasMore : orders.length === PAGE_SIZE;
	return { results, paginationToken: hasMore && orders.length > 0 ? String(next) : undefined };
}

/** Webhook endpoints for the From List mode; the filter matches the URL, description or id. */
export async function searchWebhookEndpoints(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const body = await loadForEditor(this, async () => apiRequest.call(this, { method: 'GET', path: '/webhooks/endpoints' }));
	const endpoints = (body.endpoints as IDataObject[] | undefined) ?? [];
	return {
		results: endpoints
			.filter((e) => !e.deletedAt && matches(filter, e.id, e.url, e.description))
			.map((e) => ({
				name: `${String(e.url ?? e.id)}${e.description ? ` (${String(e.description)})` : ''}`,
				value: String(e.id),
			})),
	};
}
