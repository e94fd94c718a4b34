import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';

async function supportedAssets(ctx: ILoadOptionsFunctions): Promise<IDataObject[]> {
	return (await apiRequest.call(ctx, {
		method: 'GET',
		path: '/supported-assets',
	})) as unknown as IDataObject[];
}

function unique(values: string[]): INodePropertyOptions[] {
	return [...new Set(values)].sort().map((value) => ({ name: value, value }));
}

/** Chains from GET /supported-assets, the live list. */
export async function getChains(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return unique((await supportedAssets(this)).map((a) => String(a.chain)));
}

/** Asset symbols from GET /supported-assets. */
export async function getAssets(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return unique((await supportedAssets(this)).map((a) => String(a.symbol)));
}
