/**
 * PATCH /webhooks/endpoints/{id}. Not keyed, but it sets values rather than changing them by a
 * step, so a repeat leaves the same endpoint: the transport may repeat it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { operationError, httpsUrl, locatorValue, withoutSecrets } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	webhookEndpointLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description: 'Free text to recognise the endpoint',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'ENABLED',
				options: [
					{ name: 'Enabled', value: 'ENABLED', description: 'Also re-enables an auto-disabled endpoint' },
					{ name: 'Disabled', value: 'DISABLED' },
				],
				description: 'Whether events are sent to the endpoint',
			},
			{
				displayName: 'URL',
				name: 'url',
				type: 'string',
				default: '',
				placeholder: 'https://example.com/webhooks/clearinghouse',
				description: 'New public HTTPS URL',
			},
		],
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['update'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint');
	const fields = ctx.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.url !== undefined) {
		body.url = httpsUrl(ctx, String(fields.url).trim(), itemIndex);
	}
	if (fields.description !== undefined) body.description = String(fields.description);
	if (fields.status !== undefined) body.status = fields.status;
	if (Object.keys(body).length === 0) throw operationError(ctx, 'Update Fields: add at least one field to change', itemIndex);
	return withoutSecrets(
		await apiRequest(ctx, {
			method: 'PATCH',
			path: `/webhooks/endpoints/${encodeURIComponent(id)}`,
			body,
			idempotent: true,
			itemIndex,
		}),
	);
}
