import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	operationField('quote', 'create', [
		{
			name: 'Create',
			value: 'create',
			description: 'Price a payment before creating the order',
			action: 'Create a quote',
		},
	]),
	...create.description,
];
