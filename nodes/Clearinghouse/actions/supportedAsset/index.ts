import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as getMany from './getMany.operation';

export { getMany };

export const description: INodeProperties[] = [
	operationField('supportedAsset', 'getMany', [
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List the chain/asset pairs the service supports',
			action: 'Get many supported assets',
		},
	]),
	...getMany.description,
];
