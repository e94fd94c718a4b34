/**
 * POST /webhooks/deliveries/{id}/replay: queues the same payload (same Webhook-Id) as a new
 * delivery record. Not repeated by the transport: each call creates a new delivery.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';
import { requiredId, recordWithoutSecrets } from '../parameters';
import { deliveryIdField } from './shared';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [deliveryIdField, optionsCollection([dryRunOption])];

export const description = updateDisplayOptions({ show: { resource: ['webhookDelivery'], operation: ['replay'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requiredId(ctx, 'deliveryId', itemIndex, 'Delivery ID');
	const body = await apiRequest(ctx, {
		method: 'POST',
		path: `/webhooks/deliveries/${encodeURIComponent(id)}/replay`,
		itemIndex,
	});
	const answer = recordWithoutSecrets(body) ?? {};
	return { replayedDeliveryId: id, ...answer };
}
