/** GET /account/limits: one item with each limit as {limit, used, remaining}. Some may be absent. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, subaccountReadOption } from '../fields';
import { subaccountQuery } from '../parameters';

const properties: INodeProperties[] = [
	optionsCollection([
		{
			...subaccountReadOption,
			description: 'Name a direct child subaccount (UUID). The ceilings and usage are those of the parent account either way.',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['getLimits'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return await apiRequest(ctx, {
		method: 'GET',
		path: '/account/limits',
		qs: subaccountQuery(options),
		itemIndex,
	});
}
