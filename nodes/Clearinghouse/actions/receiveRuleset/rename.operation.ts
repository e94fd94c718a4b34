/**
 * PATCH /rulesets/{id} with `{name}`. Not keyed, but safe to repeat by nature (renaming to the
 * current name does nothing), so the transport may repeat it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';
import { requiredId, requiredText } from '../parameters';
import { rulesetName } from './rulesetName';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	{
		displayName: 'Ruleset ID',
		name: 'rulesetId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 8c1d2f4a-6e3b-4c75-a9d2-4b5e6f7a8c90',
		description: 'ID of the receive ruleset to rename',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		description: 'New name, 1-120 characters after trimming. Only the name of a ruleset can change.',
	},
	optionsCollection([dryRunOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['receiveRuleset'], operation: ['rename'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requiredId(ctx, 'rulesetId', itemIndex, 'Ruleset ID');
	const name = rulesetName(ctx, requiredText(ctx, 'name', itemIndex, 'Name'), itemIndex);
	return await apiRequest(ctx, {
		method: 'PATCH',
		path: `/rulesets/${encodeURIComponent(id)}`,
		body: { name },
		idempotent: true,
		itemIndex,
	});
}
