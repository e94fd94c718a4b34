/** GET /deposit-addresses: one item per {chain, symbol, address}. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, subaccountReadOption } from '../fields';
import { subaccountQuery } from '../parameters';

const properties: INodeProperties[] = [optionsCollection([subaccountReadOption])];

export const description = updateDisplayOptions({ show: { resource: ['depositAddress'], operation: ['getMany'] } }, properties);

/** The entries of a response whose envelope the specification does not show. */
export function depositAddressEntries(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return body as IDataObject[];
	if (body && typeof body === 'object') {
		for (const key of ['depositAddresses', 'addresses', 'data']) {
			const value = (body as IDataObject)[key];
			if (Array.isArray(value)) return value as IDataObject[];
			if (value && typeof value === 'object') return depositAddressEntries(value);
		}
	}
	return [];
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body = await apiRequest.call(this, {
		method: 'GET',
		path: '/deposit-addresses',
		qs: subaccountQuery(options),
		itemIndex,
	});
	return depositAddressEntries(body);
}
