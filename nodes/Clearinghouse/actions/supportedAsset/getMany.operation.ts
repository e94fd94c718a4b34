/** GET /supported-assets: the live list of chain/asset pairs, one item per pair. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../fields';

const properties: INodeProperties[] = [optionsCollection()];

export const description = updateDisplayOptions({ show: { resource: ['supportedAsset'], operation: ['getMany'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body = (await apiRequest(ctx, {
		method: 'GET',
		path: '/supported-assets',
		itemIndex,
	})) as unknown;
	return Array.isArray(body) ? (body as IDataObject[]) : [];
}
