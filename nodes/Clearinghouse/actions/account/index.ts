import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as checkBatch from './checkBatch.operation';
import * as getLimits from './getLimits.operation';

export { checkBatch, getLimits };

export const description: INodeProperties[] = [
	operationField('account', 'getLimits', [
		{
			name: 'Check Batch Against Limits',
			value: 'checkBatch',
			description: 'Check all input items (count, total, largest order) against the account limits before paying them; writes nothing',
			action: 'Check a batch against the account limits',
		},
		{
			name: 'Get Limits',
			value: 'getLimits',
			description: 'Get the account limits with used and remaining values',
			action: 'Get account limits',
		},
	]),
	...checkBatch.description,
	...getLimits.description,
];
