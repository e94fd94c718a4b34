/** GET /rewards/rules?status= on the rewards API (`{rules}`, sorted by name): one item per rule. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, returnAllFields } from '../fields';
import { listLimit } from '../parameters';

const properties: INodeProperties[] = [
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		default: 'active',
		options: [
			{ name: 'Active', value: 'active' },
			{ name: 'Archived', value: 'archived', description: 'Archived rules appear only with this status' },
		],
		description: 'Which rules to list',
	},
	...returnAllFields(),
	optionsCollection(),
];

export const description = updateDisplayOptions({ show: { resource: ['rewardRule'], operation: ['getMany'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const status = ctx.getNodeParameter('status', itemIndex, 'active') as string;
	const body = await apiRequest(ctx, {
		api: 'rewards',
		method: 'GET',
		path: '/rewards/rules',
		qs: { status },
		itemIndex,
	});
	const rules = (body.rules as IDataObject[] | undefined) ?? [];
	const limit = listLimit(ctx, itemIndex);
	return limit === undefined ? rules : rules.slice(0, limit);
}
