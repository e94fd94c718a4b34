import type { INodeProperties } from 'n8n-workflow';

import * as createOrUpdate from './createOrUpdate.operation';

export { createOrUpdate };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['user'] } },
		options: [
			{
				name: 'Create or Update',
				value: 'createOrUpdate',
				description: 'Register a user and their wallets, or update the user with this label',
				action: 'Create or update a user',
			},
		],
		default: 'createOrUpdate',
	},
	...createOrUpdate.description,
];
