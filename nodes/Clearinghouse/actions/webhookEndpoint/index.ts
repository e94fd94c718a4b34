import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as create from './create.operation';
import * as deleteEndpoint from './delete.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as promoteSecret from './promoteSecret.operation';
import * as recover from './recover.operation';
import * as rotateSecret from './rotateSecret.operation';
import * as sendTestEvent from './sendTestEvent.operation';
import * as update from './update.operation';

export { create, deleteEndpoint as delete, get, getMany, promoteSecret, recover, rotateSecret, sendTestEvent, update };

export const description: INodeProperties[] = [
	operationField('webhookEndpoint', 'create', [
		{
			name: 'Create',
			value: 'create',
			description: 'Register an HTTPS endpoint for payment order events',
			action: 'Create a webhook endpoint',
		},
		{
			name: 'Delete',
			value: 'delete',
			description: 'Stop events to an endpoint, keeping its history',
			action: 'Delete a webhook endpoint',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Get one webhook endpoint',
			action: 'Get a webhook endpoint',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List the webhook endpoints of the account',
			action: 'Get many webhook endpoints',
		},
		{
			name: 'Promote Secret',
			value: 'promoteSecret',
			description: 'Retire the old secret after a graceful rotation',
			action: 'Promote the secret of a webhook endpoint',
		},
		{
			name: 'Recover',
			value: 'recover',
			description: 'Re-enable a disabled endpoint and replay the events that never reached it',
			action: 'Recover a webhook endpoint',
		},
		{
			name: 'Rotate Secret',
			value: 'rotateSecret',
			description: 'Issue a new signing secret',
			action: 'Rotate the secret of a webhook endpoint',
		},
		{
			name: 'Send Test Event',
			value: 'sendTestEvent',
			description: 'Send a signed webhook.ping event to the endpoint now',
			action: 'Send a test event to a webhook endpoint',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Change the URL, description or status of an endpoint',
			action: 'Update a webhook endpoint',
		},
	]),
	...create.description,
	...deleteEndpoint.description,
	...get.description,
	...getMany.description,
	...promoteSecret.description,
	...recover.description,
	...rotateSecret.description,
	...sendTestEvent.description,
	...update.description,
];
