/**
 * POST /rewards/rules on the rewards API, with the `Idempotency-Key` header the API requires on
 * every write; keyed, so the transport may repeat it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idempotencyFieldsFor, optionsCollection } from '../fields';
import { jsonObject, requiredText } from '../parameters';
import { sendKeyed } from '../keyedSend';
import { dryRunOption } from '../dryRun';

const EXAMPLE_DEFINITION = {
	measure: { type: 'daily_balance', metricKey: 'balance_usd' },
	condition: { type: 'always' },
	payout: { type: 'fixed', amount: '1.00' },
	limits: [{ type: 'cap_per_period', amount: '100.00' }],
};

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Daily balance bonus',
		description: 'Name of the rule in the library',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		description: 'What the rule rewards',
	},
	{
		displayName: 'Definition',
		name: 'definition',
		type: 'json',
		required: true,
		default: JSON.stringify(EXAMPLE_DEFINITION, null, 2),
		description: 'The rule as JSON with measure, condition, payout and limits. Get Rule Blocks lists the types the service accepts.',
	},
	...idempotencyFieldsFor('write'),
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['rewardRule'], operation: ['create'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body: IDataObject = {
		name: requiredText(ctx, 'name', itemIndex, 'Name'),
		description: String(ctx.getNodeParameter('description', itemIndex, '') ?? ''),
		definition: jsonObject(ctx, ctx.getNodeParameter('definition', itemIndex, ''), itemIndex, 'Definition'),
	};
	const { key, response } = await sendKeyed(ctx, itemIndex, {
		record: 'reward rule',
		api: 'rewards',
		method: 'POST',
		path: '/rewards/rules',
		keyIn: 'header',
		body,
	});
	return { ...response, idempotencyKey: key };
}

export { businessKeyReference as rowReference } from '../idempotencyKey';
