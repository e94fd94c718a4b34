import type { INodeProperties } from 'n8n-workflow';

import * as getMany from './getMany.operation';

export { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['depositAddress'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the custody deposit addresses of the account',
				action: 'Get many deposit addresses',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
