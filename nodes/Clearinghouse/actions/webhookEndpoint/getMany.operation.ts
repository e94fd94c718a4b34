/** GET /webhooks/endpoints (`{endpoints}`, not paginated by the API): one item per endpoint. A read: safe to repeat. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, returnAllFields } from '../fields';
import { listLimit, withoutSecrets } from '../parameters';

const properties: INodeProperties[] = [...returnAllFields(), optionsCollection()];

export const description = updateDisplayOptions({ show: { resource: ['webhookEndpoint'], operation: ['getMany'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body = await apiRequest(ctx, { method: 'GET', path: '/webhooks/endpoints', itemIndex });
	const endpoints = ((body.endpoints as IDataObject[] | undefined) ?? []).map(withoutSecrets);
	const limit = listLimit(ctx, itemIndex);
	return limit === undefined ? endpoints : endpoints.slice(0, limit);
}
