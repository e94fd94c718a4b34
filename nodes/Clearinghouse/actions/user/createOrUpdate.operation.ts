/**
 * POST /add-user-record. Not keyed, but an upsert by label: the same body twice leaves the same user and
 * wallets, so the transport may repeat it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, subaccountWriteOption, walletsField } from '../fields';
import { chainWallets, operationError, optionalText, requiredText } from '../parameters';
import { dryRunOption } from '../dryRun';
import { checkChainAndAsset } from '../supportedAssets';

const properties: INodeProperties[] = [
	{
		displayName: 'Label',
		name: 'label',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. customer-4711',
		description: 'Your identifier for the user, unique within the account. An existing label updates that user.',
	},
	{
		...walletsField('wallets', 'Wallets', 'Addresses the user controls (sending and receiving). New wallets start PENDING until the operator activates them.'),
		required: true,
	},
	{
		displayName: 'Default Return Wallets',
		name: 'returnWalletsMode',
		type: 'options',
		default: 'unchanged',
		options: [
			{
				name: 'Leave Unchanged',
				value: 'unchanged',
				description: 'Do not send the field; the user keeps their current default return wallets',
			},
			{
				name: 'Replace With List Below',
				value: 'replace',
				description: 'Send the full list: wallets left out are removed, and an empty list clears every default',
			},
		],
		description: 'Where deposits of this user are returned when an order has no return details of its own',
	},
	{
		...walletsField(
			'returnWallets',
			'Return Wallets',
			'One wallet per chain. A default return wallet is used only once it is ACTIVE. Leave empty to clear all defaults.',
		),
		displayOptions: { show: { returnWalletsMode: ['replace'] } },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [subaccountWriteOption],
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['user'], operation: ['createOrUpdate'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const label = requiredText(ctx, 'label', itemIndex, 'Label');
	const wallets = chainWallets(ctx, ctx.getNodeParameter('wallets', itemIndex, {}), itemIndex, 'Wallets', false);
	if (wallets.length === 0) {
		throw operationError(ctx, 'Wallets: add at least one wallet', itemIndex);
	}
	const body: IDataObject = { label, wallets };
	if (ctx.getNodeParameter('returnWalletsMode', itemIndex, 'unchanged') === 'replace') {
		body.returnWallets = chainWallets(ctx, ctx.getNodeParameter('returnWallets', itemIndex, {}), itemIndex, 'Return Wallets', true);
	}
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const subaccountId = optionalText(additional.subaccountId);
	if (subaccountId) body.subaccountId = subaccountId;

	await checkChainAndAsset(ctx, itemIndex, body, { operation: 'User → Create or Update', sends: 'user record' });
	const response = await apiRequest(ctx, {
		method: 'POST',
		path: '/add-user-record',
		body,
		idempotent: true,
		itemIndex,
	});
	const data = (response.data as IDataObject | undefined) ?? {};
	return { ...data, message: response.message };
}
