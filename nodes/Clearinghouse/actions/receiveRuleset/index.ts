import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as rename from './rename.operation';

export { create, rename };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['receiveRuleset'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create an immutable ruleset with dedicated deposit addresses',
				action: 'Create a receive ruleset',
			},
			{
				name: 'Rename',
				value: 'rename',
				description: 'Change the name of a ruleset',
				action: 'Rename a receive ruleset',
			},
		],
		default: 'create',
	},
	...create.description,
	...rename.description,
];
