/** GET /webhooks/deliveries/{id}: the signed envelope plus the attempt history. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';
import { requiredId, withoutSecrets } from '../parameters';
import { deliveryIdField } from './shared';

const properties: INodeProperties[] = [deliveryIdField, optionsCollection()];

export const description = updateDisplayOptions({ show: { resource: ['webhookDelivery'], operation: ['get'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requiredId(ctx, 'deliveryId', itemIndex, 'Delivery ID');
	return withoutSecrets(
		await apiRequest(ctx, {
			method: 'GET',
			path: `/webhooks/deliveries/${encodeURIComponent(id)}`,
			itemIndex,
		}),
	);
}
