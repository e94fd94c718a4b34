/**
 * POST /quotes. Not keyed and not repeated: a second quote reserves instant capacity again, and a named
 * one expires the first. A quote that cannot be serviced is an item with `serviceable: false`, not an error.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { amountField, assetField, chainField, optionsCollection, subaccountWriteOption } from '../fields';
import { operationError, optionalText, requiredText, usdAmount } from '../parameters';
import { dryRunOption } from '../dryRun';
import { checkChainAndAsset } from '../supportedAssets';

const properties: INodeProperties[] = [
	chainField(),
	assetField(),
	amountField,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				default: 'standard',
				options: [{ name: 'Standard', value: 'standard' }],
				description: 'Ask for a Standard quote (needs the NETTED_QUOTES capability). Leave out for automatic selection.',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: '1-64 characters. A new quote with the same name expires the previous unconsumed quote of that name.',
			},
			{
				displayName: 'Recipient Address',
				name: 'toAddress',
				type: 'string',
				default: '',
				description: 'Leave out to price the corridor; the order supplies the address',
			},
			{
				...subaccountWriteOption,
				description: 'An instant order made from this quote is created for this direct child subaccount (UUID)',
			},
		],
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['quote'], operation: ['create'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body: IDataObject = {
		toChain: requiredText(ctx, 'toChain', itemIndex, 'Chain'),
		asset: requiredText(ctx, 'asset', itemIndex, 'Asset'),
		amountUsd: usdAmount(ctx, ctx.getNodeParameter('amountUsd', itemIndex, ''), itemIndex).value,
	};
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const toAddress = optionalText(additional.toAddress);
	if (toAddress) body.toAddress = toAddress;
	const mode = optionalText(additional.mode);
	if (mode) body.mode = mode;
	const name = optionalText(additional.name);
	if (name !== undefined) {
		if (name.length > 64) throw operationError(ctx, `Name must be 1-64 characters (got ${name.length})`, itemIndex);
		body.name = name;
	}
	const subaccountId = optionalText(additional.subaccountId);
	if (subaccountId) body.subaccountId = subaccountId;
	await checkChainAndAsset(ctx, itemIndex, body, { operation: 'Quote → Create', sends: 'quote' });
	return await apiRequest(ctx, { method: 'POST', path: '/quotes', body, itemIndex });
}
