import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { locatorValue, optionsCollection, paymentOrderLocator } from '../common';

const properties: INodeProperties[] = [paymentOrderLocator, optionsCollection()];

export const description = updateDisplayOptions(
	{ show: { resource: ['paymentOrder'], operation: ['get'] } },
	properties,
);

/** GET /payment-orders/{id}: the order plus its `returns` block. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(this, 'paymentOrderId', itemIndex, 'Payment Order');
	return await apiRequest.call(this, {
		method: 'GET',
		path: `/payment-orders/${encodeURIComponent(id)}`,
		itemIndex,
	});
}
