/** GET /deposit-addresses: one item per {chain, symbol, address}. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, subaccountReadOption } from '../fields';
import { subaccountQuery } from '../parameters';
import { depositAddressEntries } from './depositAddresses';

const properties: INodeProperties[] = [optionsCollection([subaccountReadOption])];

export const description = updateDisplayOptions({ show: { resource: ['depositAddress'], operation: ['getMany'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body = await apiRequest(ctx, {
		method: 'GET',
		path: '/deposit-addresses',
		qs: subaccountQuery(options),
		itemIndex,
	});
	return depositAddressEntries(body);
}
