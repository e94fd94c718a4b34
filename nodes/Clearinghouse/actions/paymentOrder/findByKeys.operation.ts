/**
 * GET /payment-orders (paged), a read, safe to repeat: which input items' keys already have an order, and
 * in which status (before paying again after a crash or outage, or a daily reconciliation).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { validateIdempotencyKey } from '../../../shared/idempotency';
import { FieldError } from '../../../shared/fieldError';
import { optionsCollection, pageSizeOption, subaccountReadOption } from '../fields';
import { itemParameter, operationError, optionalText } from '../parameters';
import { findOrdersByKey, type OrderIndex } from './findOrders';
import { laterNow, keyStateOf } from './foundOrder';

export const DEFAULT_WINDOW_DAYS = 30;

const properties: INodeProperties[] = [
	{
		displayName: 'Business Key',
		name: 'businessKey',
		type: 'string',
		default: '={{ $json.reference }}',
		required: true,
		placeholder: 'e.g. {{ $json.invoiceId }}',
		description:
			"The key each order was created with: the Business Key of Payment Order → Create (e.g. the invoice number), or an order's idempotencyKey from an earlier output. One lookup per input item.",
	},
	optionsCollection([
		{
			displayName: 'Created After',
			name: 'createdAfter',
			type: 'dateTime',
			default: '',
			description: `Look only at orders created after this time. Empty: the last ${DEFAULT_WINDOW_DAYS} days. An order older than this is reported as not found.`,
		},
		{
			displayName: 'Include Subaccounts',
			name: 'includeSubaccounts',
			type: 'boolean',
			default: true,
			description: 'Whether to look through the orders of this account and all its subaccounts (an order made for a subaccount keeps the key it was sent with)',
		},
		pageSizeOption,
		{
			...subaccountReadOption,
			description: 'Look only in this direct child subaccount (UUID), instead of this account and its subaccounts',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['findByKeys'] } }, properties);

/** One listing per run, shared by its items. */
const listings = new WeakMap<IExecuteFunctions, Promise<{ index: OrderIndex; createdAfter: string }>>();

function keyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	try {
		return validateIdempotencyKey(itemParameter(ctx, 'businessKey', itemIndex, ''), 'Business Key');
	} catch (error) {
		const reason = error instanceof FieldError ? `${error.field} ${error.rule}` : (error as Error).message;
		throw operationError(ctx, reason, itemIndex);
	}
}

/** The listing for every item's key, by the first item's options. */
async function listing(ctx: IExecuteFunctions): Promise<{ index: OrderIndex; createdAfter: string }> {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const text = optionalText(options.createdAfter);
	const at = text === undefined ? Date.now() - DEFAULT_WINDOW_DAYS * 86_400_000 : Date.parse(text);
	if (Number.isNaN(at)) throw operationError(ctx, `Created After must be a date and time (got "${text}")`, 0);
	const createdAfter = new Date(at).toISOString();
	const keys = new Set<string>();
	for (let itemIndex = 0; itemIndex < ctx.getInputData().length; itemIndex++) {
		try {
			keys.add(keyOf(ctx, itemIndex));
		} catch {
			// that item fails on its own, with its own message
		}
	}
	const subaccountId = optionalText(options.subaccountId);
	const index = await findOrdersByKey(ctx, {
		keys,
		createdAfter,
		subaccountId,
		includeSubaccounts: !subaccountId && options.includeSubaccounts !== false,
		pageSize: Number(options.pageSize ?? 1000) || 1000,
		itemIndex: 0,
	});
	return { index, createdAfter };
}

/** The order holding the item's key, with its current status, or `found: false`. */
export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const key = keyOf(ctx, itemIndex);
	let shared = listings.get(ctx);
	if (!shared) {
		shared = listing(ctx);
		listings.set(ctx, shared);
	}
	const { index, createdAfter } = await shared;
	const order = index.byKey.get(key);
	if (!order) {
		return {
			found: false,
			businessKey: key,
			keyState: 'unused',
			searchedFrom: createdAfter,
			note: `No payment order was created with this key since ${createdAfter} (${index.listed} orders looked through). Nothing in that window was paid with it: Payment Order → Create with it makes a new order.`,
		};
	}
	return { found: true, businessKey: key, ...keyStateOf(order, laterNow(Date.now(), index.skewMs)), searchedFrom: createdAfter, ...order };
}
