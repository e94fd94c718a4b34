import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as createOrUpdate from './createOrUpdate.operation';

export { createOrUpdate };

export const description: INodeProperties[] = [
	operationField('user', 'createOrUpdate', [
		{
			name: 'Create or Update',
			value: 'createOrUpdate',
			description: 'Register a user and their wallets, or update the user with this label',
			action: 'Create or update a user',
		},
	]),
	...createOrUpdate.description,
];
