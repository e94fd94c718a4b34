import type { INodeProperties } from 'n8n-workflow';

import * as getLimits from './getLimits.operation';

export { getLimits };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get Limits',
				value: 'getLimits',
				description: 'Get the account limits with used and remaining values',
				action: 'Get account limits',
			},
		],
		default: 'getLimits',
	},
	...getLimits.description,
];
