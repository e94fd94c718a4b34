import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { paymentOrderLabel } from '../../shared/labels';
import { PAYMENT_ORDER_STATUSES } from '../../shared/paymentOrderStatus';
import { apiRequest } from '../../shared/transport';
import { failureOf, loadForEditor, noUserListMessage, targetOf } from './listError';

const PAGE_SIZE = 50;

function matches(filter: string | undefined, ...fields: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return fields.some((f) => typeof f === 'string' && f.toLowerCase().includes(needle));
}

/** Payment orders for From List, newest first. The API has no text search: the filter matches within each page. */
export async function searchPaymentOrders(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	const offset = Number(paginationToken ?? 0) || 0;
	const page = await loadForEditor(this, async () =>
		apiRequest(this, {
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
	const body = await loadForEditor(this, async () => apiRequest(this, { method: 'GET', path: '/webhooks/endpoints' }));
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

/** Users per request, and the pages one search reads at most while a filter finds too few. */
const USER_PAGE_SIZE = 100;
const USER_PAGES_PER_SEARCH = 10;

/**
 * Users for a sender's From List, by label and id (the id is sent, never the label). GET /users is not in
 * the reference (the field notes saw a client read `{users, total}`), so it is read tolerantly and never
 * relied on: no list, or another answer, says to use By ID. With a filter, pages are read until a page's worth matches.
 */
export async function searchUsers(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	let offset = Number(paginationToken ?? 0) || 0;
	const results: INodeListSearchItems[] = [];
	for (let pages = 1; ; pages++) {
		const { users, total } = await usersPage(this, offset);
		for (const user of users) {
			const label = typeof user.label === 'string' && user.label.trim() !== '' ? user.label : undefined;
			if (matches(filter, user.id, label)) results.push({ name: label ? `${label} (${String(user.id)})` : String(user.id), value: String(user.id) });
		}
		offset += users.length;
		// Without a total, a full page means there may be more; a longer one, a service that sent all at once.
		const more = users.length > 0 && (total !== undefined ? offset < total : users.length === USER_PAGE_SIZE);
		if (!more) return { results };
		if (!filter || results.length >= USER_PAGE_SIZE || pages >= USER_PAGES_PER_SEARCH) return { results, paginationToken: String(offset) };
	}
}

/** One page of GET /users, or the error the editor shows. */
async function usersPage(ctx: ILoadOptionsFunctions, offset: number): Promise<{ users: IDataObject[]; total?: number }> {
	let body: unknown;
	try {
		body = await apiRequest(ctx, { method: 'GET', path: '/users', qs: { limit: USER_PAGE_SIZE, offset } });
	} catch (error) {
		const { status } = failureOf(error);
		if (status !== 404 && status !== 405) return await loadForEditor(ctx, async () => Promise.reject(error));
		// A wrong Base URL answers 404 too: GET /supported-assets (in the reference) fails then, and says so.
		await loadForEditor(ctx, async () => apiRequest(ctx, { method: 'GET', path: '/supported-assets' }));
		throw new NodeOperationError(ctx.getNode(), noUserListMessage(status, await targetOf(ctx)));
	}
	const answer = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as IDataObject;
	const users = answer.users as unknown[] | undefined;
	const readable = (user: unknown): user is IDataObject =>
		typeof user === 'object' && user !== null && typeof (user as IDataObject).id === 'string' && (user as IDataObject).id !== '';
	if (!Array.isArray(users) || !users.every(readable)) throw new NodeOperationError(ctx.getNode(), noUserListMessage(undefined, await targetOf(ctx)));
	const total = typeof answer.total === 'number' && Number.isInteger(answer.total) && answer.total >= 0 ? answer.total : undefined;
	return { users, total };
}
