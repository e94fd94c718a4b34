/** POST /webhooks/endpoints/{id}/test: sends a signed webhook.ping now and reports whether the receiver answered 2xx. Safe to repeat: each repeat sends one more ping, nothing else. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue, recordWithoutSecrets } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [webhookEndpointLocator, optionsCollection([dryRunOption])];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['sendTestEvent'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	const body = await apiRequest(ctx, {
		method: 'POST',
		path: `/webhooks/endpoints/${encodeURIComponent(id)}/test`,
		itemIndex,
	});
	// The answer's shape is not specified.
	const answer = recordWithoutSecrets(body) ?? { result: body };
	return { endpointId: id, ...answer };
}
