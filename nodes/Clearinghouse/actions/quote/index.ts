import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['quote'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Price a payment before creating the order',
				action: 'Create a quote',
			},
		],
		default: 'create',
	},
	...create.description,
];
