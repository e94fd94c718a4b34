/** GET /payment-orders/{id}: the order plus its `returns` block. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, paymentOrderLocator, subaccountReadOption } from '../fields';
import { locatorValue, subaccountQuery } from '../parameters';

const properties: INodeProperties[] = [
	paymentOrderLocator,
	optionsCollection([
		{
			...subaccountReadOption,
			description: 'Read the order in the scope of this direct child subaccount (UUID). Leave empty for this account.',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['get'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'paymentOrderId', itemIndex, 'Payment Order');
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return await apiRequest(ctx, {
		method: 'GET',
		path: `/payment-orders/${encodeURIComponent(id)}`,
		qs: subaccountQuery(options),
		itemIndex,
	});
}
