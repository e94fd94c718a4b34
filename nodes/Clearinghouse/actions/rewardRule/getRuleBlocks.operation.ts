/** GET /rewards/rule-blocks on the rewards API: one item holding the whole catalog. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';

const properties: INodeProperties[] = [optionsCollection()];

export const description = updateDisplayOptions({ show: { resource: ['rewardRule'], operation: ['getRuleBlocks'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await apiRequest(ctx, {
		api: 'rewards',
		method: 'GET',
		path: '/rewards/rule-blocks',
		itemIndex,
	});
}
