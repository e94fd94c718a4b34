import type { INodeProperties } from 'n8n-workflow';

import * as getMany from './getMany.operation';

export { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['supportedAsset'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the chain/asset pairs the service supports',
				action: 'Get many supported assets',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
