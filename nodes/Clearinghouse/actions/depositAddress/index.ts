import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as getMany from './getMany.operation';

export { getMany };

export const description: INodeProperties[] = [
	operationField('depositAddress', 'getMany', [
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List the custody deposit addresses of the account',
			action: 'Get many deposit addresses',
		},
	]),
	...getMany.description,
];
