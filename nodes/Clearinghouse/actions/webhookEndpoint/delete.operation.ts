/** DELETE /webhooks/endpoints/{id}: soft delete. Not repeated by the transport (a repeat may meet a deleted endpoint). */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue, recordWithoutSecrets } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [webhookEndpointLocator, optionsCollection([dryRunOption])];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['delete'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	const body = await apiRequest(ctx, {
		method: 'DELETE',
		path: `/webhooks/endpoints/${encodeURIComponent(id)}`,
		itemIndex,
	});
	const answer = recordWithoutSecrets(body) ?? {};
	return { id, deleted: true, ...answer };
}
