/** GET /webhooks/deliveries, newest first, with limit/offset pages; one item per delivery. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequestAllItems } from '../../../shared/transport';
import { optionsCollection, pageSizeOption, returnAllFields } from '../fields';
import { listLimit, optionalText, pageSize, withoutSecrets } from '../parameters';
import { DELIVERY_STATUSES } from './shared';

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
				displayName: 'Endpoint ID',
				name: 'endpointId',
				type: 'string',
				default: '',
				description: 'Only deliveries to this webhook endpoint (UUID)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'FAILED',
				options: DELIVERY_STATUSES.map((value) => ({
					name: value.charAt(0) + value.slice(1).toLowerCase(),
					value,
				})),
				description: 'Only deliveries in this status',
			},
			{
				displayName: 'Event Type',
				name: 'type',
				type: 'options',
				default: 'payment_order',
				options: [{ name: 'Payment Order', value: 'payment_order' }],
				description: 'Only deliveries of this event type',
			},
		],
	},
	optionsCollection([pageSizeOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['webhookDelivery'], operation: ['getMany'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	for (const name of ['endpointId', 'status', 'type']) {
		const value = optionalText(filters[name]);
		if (value) qs[name] = value;
	}
	const deliveries = await apiRequestAllItems(ctx, {
		path: '/webhooks/deliveries',
		qs,
		listKey: 'deliveries',
		limit: listLimit(ctx, itemIndex),
		pageSize: pageSize(ctx, itemIndex),
		itemIndex,
	});
	return deliveries.map(withoutSecrets);
}
