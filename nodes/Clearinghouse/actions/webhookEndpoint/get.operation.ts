/** GET /webhooks/endpoints/{id}. Secrets are never part of this output. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue, withoutSecrets } from '../parameters';

const properties: INodeProperties[] = [webhookEndpointLocator, optionsCollection()];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['get'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	return withoutSecrets(await apiRequest(ctx, { method: 'GET', path: `/webhooks/endpoints/${encodeURIComponent(id)}`, itemIndex }));
}
