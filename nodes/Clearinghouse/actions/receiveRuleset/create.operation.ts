/** POST /rulesets, keyed with the `idempotencyKey` body field, so the transport may repeat it. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { assetField, chainField, DYNAMIC_OPTIONS_HINT, idempotencyFieldsFor, optionsCollection, subaccountWriteOption } from '../fields';
import { operationError, jsonObject, optionalText, requiredText } from '../parameters';
import { sendKeyed } from '../keyedSend';
import { dryRunOption } from '../dryRun';
import { checkChainAndAsset } from '../supportedAssets';
import { fromAiProblem, modelInputProblem } from '../../../shared/spendLimits';
import { isToolRun } from '../toolDescriptions';
import { rulesetName } from './rulesetName';

const properties: INodeProperties[] = [
	chainField({
		name: 'deliveredChain',
		displayName: 'Delivered Chain Name or ID',
		description: `Chain the recipient receives on. ${DYNAMIC_OPTIONS_HINT}.`,
	}),
	assetField(
		{
			name: 'deliveredAsset',
			displayName: 'Delivered Asset Name or ID',
			description: `Stablecoin delivered to the recipient (the list shows those of the chosen chain). ${DYNAMIC_OPTIONS_HINT}.`,
		},
		'deliveredChain',
	),
	{
		displayName: 'Recipient Address',
		name: 'toAddress',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 0x52908400098527886e0f7030069857d2e4169ee7',
		description: 'An ACTIVE wallet registered to the owning account; every deposit is delivered here',
	},
	...idempotencyFieldsFor('write'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Metadata',
				name: 'metadata',
				type: 'json',
				default: '{}',
				description: 'Free-form JSON object stored with the ruleset',
			},
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				default: 'NETTED',
				options: [
					{ name: 'Netted', value: 'NETTED' },
					{
						name: 'Instant',
						value: 'INSTANT',
						description: 'A preference: falls back to netted when instant is unavailable',
					},
				],
				description: 'How deposits to the ruleset settle',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: '1-120 characters after trimming',
			},
			subaccountWriteOption,
		],
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['receiveRuleset'], operation: ['create'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	// Every deposit to the ruleset is delivered to Recipient Address: never the model's choice.
	const raw = ctx.getNode().parameters.toAddress;
	const problem = fromAiProblem(raw, 'Recipient Address') ?? (isToolRun(ctx) ? modelInputProblem(raw, 'Recipient Address') : undefined);
	if (problem)
		throw operationError(
			ctx,
			problem,
			itemIndex,
			'Nothing was sent. Every deposit to the ruleset is delivered to this address, so only the workflow owner may set it.',
		);
	const body: IDataObject = {
		deliveredAsset: requiredText(ctx, 'deliveredAsset', itemIndex, 'Delivered Asset'),
		deliveredChain: requiredText(ctx, 'deliveredChain', itemIndex, 'Delivered Chain'),
		toAddress: requiredText(ctx, 'toAddress', itemIndex, 'Recipient Address'),
	};
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const mode = optionalText(additional.mode);
	if (mode) body.mode = mode;
	if (additional.name !== undefined) body.name = rulesetName(ctx, String(additional.name).trim(), itemIndex);
	if (additional.metadata !== undefined) {
		const metadata = jsonObject(ctx, additional.metadata, itemIndex, 'Metadata');
		if (Object.keys(metadata).length > 0) body.metadata = metadata;
	}
	const subaccountId = optionalText(additional.subaccountId);
	if (subaccountId) body.subaccountId = subaccountId;
	const request = { record: 'receive ruleset', method: 'POST', path: '/rulesets', keyIn: 'body', body } as const;
	// After the key: a refused Derived key sends nothing, not even the read of the supported pairs.
	const guard = () => checkChainAndAsset(ctx, itemIndex, body, { operation: 'Receive Ruleset → Create', sends: 'ruleset' });
	const { key, response } = await sendKeyed(ctx, itemIndex, { ...request, guard });
	return { ...response, idempotencyKey: key };
}

export { businessKeyReference as rowReference } from '../idempotencyKey';
