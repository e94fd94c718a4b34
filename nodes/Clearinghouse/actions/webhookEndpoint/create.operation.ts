/**
 * POST /webhooks/endpoints. The output carries `secret`: the API returns it only here, once; keep
 * it in a credential or secret store. Not repeated by the transport: a repeat would create a
 * second endpoint with a secret nobody saw.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';
import { operationError, httpsUrl, optionalText } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/webhooks/clearinghouse',
		description: 'Public HTTPS URL that receives the events (private and loopback addresses are refused)',
	},
	{
		displayName: 'Event Types',
		name: 'eventTypes',
		type: 'multiOptions',
		default: ['payment_order'],
		options: [{ name: 'Payment Order', value: 'payment_order' }],
		description: 'Events to send to the endpoint',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		placeholder: 'e.g. Payout workflow',
		description: 'Free text to recognise the endpoint',
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['create'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const given = optionalText(ctx.getNodeParameter('url', itemIndex, ''));
	if (!given) throw operationError(ctx, 'URL is required', itemIndex);
	const url = httpsUrl(ctx, given, itemIndex);
	const eventTypes = ctx.getNodeParameter('eventTypes', itemIndex, ['payment_order']) as string[];
	if (!Array.isArray(eventTypes) || eventTypes.length === 0) {
		throw operationError(ctx, 'Event Types: choose at least one event type', itemIndex);
	}
	const body: IDataObject = {
		url,
		description: String(ctx.getNodeParameter('description', itemIndex, '') ?? ''),
		eventTypes,
	};
	return await apiRequest(ctx, { method: 'POST', path: '/webhooks/endpoints', body, itemIndex });
}
