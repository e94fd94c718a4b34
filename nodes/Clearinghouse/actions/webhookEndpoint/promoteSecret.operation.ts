/**
 * POST /webhooks/endpoints/{id}/rotate-secret/promote: retires the old secret after a graceful
 * rotation. Not repeated by the transport.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue, recordWithoutSecrets } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [webhookEndpointLocator, optionsCollection([dryRunOption])];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['promoteSecret'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	const body = await apiRequest(ctx, {
		method: 'POST',
		path: `/webhooks/endpoints/${encodeURIComponent(id)}/rotate-secret/promote`,
		itemIndex,
	});
	const answer = recordWithoutSecrets(body) ?? {};
	return { id, promoted: true, ...answer };
}
