import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as create from './create.operation';
import * as rename from './rename.operation';

export { create, rename };

export const description: INodeProperties[] = [
	operationField('receiveRuleset', 'create', [
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
	]),
	...create.description,
	...rename.description,
];
