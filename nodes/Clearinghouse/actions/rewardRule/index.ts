import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as create from './create.operation';
import * as getMany from './getMany.operation';
import * as getRuleBlocks from './getRuleBlocks.operation';

export { create, getMany, getRuleBlocks };

export const description: INodeProperties[] = [
	operationField('rewardRule', 'getMany', [
		{
			name: 'Create',
			value: 'create',
			description: 'Create a reward rule at version 1',
			action: 'Create a reward rule',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List reward rules',
			action: 'Get many reward rules',
		},
		{
			name: 'Get Rule Blocks',
			value: 'getRuleBlocks',
			description: 'Get the catalog of measures, conditions, payouts and limits',
			action: 'Get reward rule blocks',
		},
	]),
	...create.description,
	...getMany.description,
	...getRuleBlocks.description,
];
