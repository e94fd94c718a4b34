/** GET /payment-orders with limit/offset pages; one item per order. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES, paymentOrderStatusOptions } from '../../../shared/paymentOrderStatus';
import { apiRequestAllItems } from '../../../shared/transport';
import { includeSubaccountsOption, optionsCollection, pageSizeOption, returnAllFields, subaccountReadOption } from '../fields';
import { operationError, listLimit, optionalText, pageSize } from '../parameters';

const properties: INodeProperties[] = [
	...returnAllFields(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'Only orders created after this time',
			},
			{
				displayName: 'Created Before',
				name: 'createdBefore',
				type: 'dateTime',
				default: '',
				description: 'Only orders created before this time',
			},
			includeSubaccountsOption,
			{
				displayName: 'Sender User ID',
				name: 'fromUserId',
				type: 'string',
				default: '',
				description: 'Only orders funded by this user (system user ID, not the label)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				options: paymentOrderStatusOptions(),
				description: 'Only orders in one of these statuses. Leave empty for every status the node knows (the API requires the filter, so it is always sent).',
			},
			subaccountReadOption,
		],
	},
	optionsCollection([pageSizeOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['getMany'] } }, properties);

/** The query of GET /payment-orders from the Filters collection; refuses subaccount plus include. */
function paymentOrderQuery(ctx: IExecuteFunctions, filters: IDataObject, itemIndex: number): IDataObject {
	const qs: IDataObject = {};
	const subaccountId = optionalText(filters.subaccountId);
	const includeSubaccounts = filters.includeSubaccounts === true;
	if (subaccountId && includeSubaccounts) {
		throw operationError(
			ctx,
			'Use either Subaccount ID or Include Subaccounts, not both',
			itemIndex,
			'Subaccount ID reads one subaccount; Include Subaccounts spans this account and all its subaccounts.',
		);
	}
	if (subaccountId) qs.subaccountId = subaccountId;
	if (includeSubaccounts) qs.includeSubaccounts = true;
	const fromUserId = optionalText(filters.fromUserId);
	if (fromUserId) qs.fromUserId = fromUserId;
	const bounds = { createdAfter: 'Created After', createdBefore: 'Created Before' };
	for (const [bound, label] of Object.entries(bounds)) {
		const text = optionalText(filters[bound]);
		if (text === undefined) continue;
		const at = Date.parse(text);
		if (Number.isNaN(at)) throw operationError(ctx, `${label} must be a date and time (got "${text}")`, itemIndex);
		qs[bound] = new Date(at).toISOString();
	}
	const status = Array.isArray(filters.status) ? (filters.status as string[]) : [];
	// The reference marks `status` required: none picked means every known status.
	qs.status = status.length > 0 ? status : [...PAYMENT_ORDER_STATUSES];
	return qs;
}

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs = paymentOrderQuery(ctx, filters, itemIndex);
	return await apiRequestAllItems(ctx, {
		path: '/payment-orders',
		qs,
		listKey: 'paymentOrders',
		limit: listLimit(ctx, itemIndex),
		pageSize: pageSize(ctx, itemIndex),
		itemIndex,
	});
}
