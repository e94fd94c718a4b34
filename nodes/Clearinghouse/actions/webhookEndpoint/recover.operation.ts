/**
 * Per endpoint: PATCH /webhooks/endpoints/{id} `{status: ENABLED}` when the service disabled it after failed
 * deliveries, GET /webhooks/deliveries since Since, and POST /webhooks/deliveries/{id}/replay for each event that
 * never reached the receiver (shared/endpointRecovery.ts). Safe to repeat: an event with a delivery DELIVERED or
 * on its way is never replayed. "This n8n": the endpoints under this execution's `$execution.resumeUrl`.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DEFAULT_MAX_AGE_MS, DEFAULT_MAX_REPLAYS, getEndpoint, isUnder, liveEndpoints, recoverEndpoint, webhookBaseOf } from '../../../shared/endpointRecovery';
import { dryRunOption } from '../dryRun';
import { optionsCollection, webhookEndpointLocator } from '../fields';
import { locatorValue, operationError } from '../parameters';

const properties: INodeProperties[] = [
	{
		displayName: 'Endpoints',
		name: 'scope',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All Endpoints of the Account', value: 'all' },
			{
				name: "This N8n's Endpoints",
				value: 'thisN8n',
				description: "Endpoints whose URL is under this n8n's webhook URL (WEBHOOK_URL): not another n8n's or system's",
			},
			{ name: 'One Endpoint', value: 'one' },
		],
		description:
			'Which webhook endpoints to recover. Only endpoints the service disabled after failed deliveries are re-enabled; one disabled through the API (by a person) is left disabled.',
	},
	{ ...webhookEndpointLocator, displayOptions: { show: { scope: ['one'] } } },
	{
		displayName: 'Since',
		name: 'since',
		type: 'dateTime',
		default: '',
		description: 'Replay events of deliveries created at or after this time. Leave empty for the last 7 days.',
	},
	{
		displayName: 'Maximum Replays per Endpoint',
		name: 'maxReplays',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 1000 },
		default: DEFAULT_MAX_REPLAYS,
		description: 'At most this many events are replayed per endpoint and run; the output says when more are left (run again)',
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['recover'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const scope = ctx.getNodeParameter('scope', itemIndex, 'all') as string;
	const sinceValue = String(ctx.getNodeParameter('since', itemIndex, '') ?? '').trim();
	const since = sinceValue === '' ? Date.now() - DEFAULT_MAX_AGE_MS : Date.parse(sinceValue);
	if (!Number.isFinite(since)) throw operationError(ctx, 'Since must be a date and time, for example 2026-01-31T12:00:00Z', itemIndex);
	const maxReplays = Number(ctx.getNodeParameter('maxReplays', itemIndex, DEFAULT_MAX_REPLAYS));
	if (!Number.isInteger(maxReplays) || maxReplays < 0) throw operationError(ctx, 'Maximum Replays per Endpoint must be a whole number of 0 or more', itemIndex);

	let endpoints: IDataObject[];
	if (scope === 'one') endpoints = [await getEndpoint(ctx, locatorValue(ctx, 'endpointId', itemIndex, 'Webhook Endpoint'))];
	else if (scope === 'thisN8n') {
		const base = webhookBaseOf(ctx.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex));
		if (!base)
			throw operationError(
				ctx,
				"Endpoints: this n8n's webhook address could not be read from its resume URL. Choose All Endpoints of the Account or One Endpoint",
				itemIndex,
			);
		endpoints = (await liveEndpoints(ctx)).filter((e) => isUnder(e.url, base));
	} else endpoints = await liveEndpoints(ctx);
	const results: IDataObject[] = [];
	for (const endpoint of endpoints) {
		if (endpoint.deletedAt) {
			results.push({ endpointId: endpoint.id, url: endpoint.url ?? null, statusBefore: endpoint.status ?? null, deleted: true });
			continue;
		}
		const result = await recoverEndpoint(ctx, endpoint, { since, maxReplays, onlyDisabledByFailures: true });
		results.push({ ...result } as unknown as IDataObject);
	}
	return results;
}
