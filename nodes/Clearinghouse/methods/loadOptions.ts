import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { chainDisplayName } from '../../shared/labels';
import { apiRequest } from '../../shared/transport';
import { loadForEditor } from './listError';

/** GET /supported-assets; a failure is said so that the editor shows why. */
async function supportedAssets(ctx: ILoadOptionsFunctions): Promise<IDataObject[]> {
	return await loadForEditor(ctx, async () => (await apiRequest(ctx, { method: 'GET', path: '/supported-assets' })) as unknown as IDataObject[]);
}

function unique(values: string[], name: (value: string) => string = (value) => value): INodePropertyOptions[] {
	return [...new Set(values)].sort().map((value) => ({ name: name(value), value }));
}

/** Chains from GET /supported-assets, the live list, shown by name (the value stays the API's). */
export async function getChains(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return unique(
		(await supportedAssets(this)).map((a) => String(a.chain)),
		chainDisplayName,
	);
}

/** Asset symbols from GET /supported-assets on the chain chosen in the node; all of them while none is chosen or it is an expression. */
export async function getAssets(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const chain = [this.getCurrentNodeParameter('toChain'), this.getCurrentNodeParameter('deliveredChain'), this.getCurrentNodeParameter('chainForAllRows')].find(
		(value): value is string => typeof value === 'string' && value !== '' && !value.startsWith('='),
	);
	const pairs = await supportedAssets(this);
	return unique(pairs.filter((a) => chain === undefined || a.chain === chain).map((a) => String(a.symbol)));
}
