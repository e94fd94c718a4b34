import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as replay from './replay.operation';

export { get, getMany, replay };

export const description: INodeProperties[] = [
	operationField('webhookDelivery', 'getMany', [
		{
			name: 'Get',
			value: 'get',
			description: 'Get one delivery with its attempt history',
			action: 'Get a webhook delivery',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List webhook deliveries, newest first',
			action: 'Get many webhook deliveries',
		},
		{
			name: 'Replay',
			value: 'replay',
			description: 'Queue a delivery again with the same payload',
			action: 'Replay a webhook delivery',
		},
	]),
	...get.description,
	...getMany.description,
	...replay.description,
];
