/**
 * POST /webhooks/endpoints/{id}/rotate-secret. The output carries `secretNext`, the only place
 * besides Create where a secret appears. Not repeated by the transport: a repeat would rotate
 * again and the secret of the lost answer would never be seen.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	webhookEndpointLocator,
	{
		displayName: 'Rotation',
		name: 'rotation',
		type: 'options',
		default: 'graceful',
		options: [
			{
				name: 'Graceful',
				value: 'graceful',
				description: 'Deliveries are signed with the old and the new secret until you promote the new one',
			},
			{
				name: 'Immediate',
				value: 'immediate',
				description: 'The old secret stops signing at once',
			},
		],
		description: 'How the old secret is retired',
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['rotateSecret'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	const immediate = ctx.getNodeParameter('rotation', itemIndex, 'graceful') === 'immediate';
	const body = await apiRequest(ctx, {
		method: 'POST',
		path: `/webhooks/endpoints/${encodeURIComponent(id)}/rotate-secret`,
		qs: immediate ? { immediate: true } : undefined,
		itemIndex,
	});
	return { ...body, rotation: immediate ? 'immediate' : 'graceful' };
}
