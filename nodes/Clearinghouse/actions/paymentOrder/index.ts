import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operation';
import * as cancel from './cancel.operation';
import * as create from './create/create.operation';
import * as findByKeys from './findByKeys.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as setReturnDetails from './setReturnDetails.operation';
import * as submitTransactions from './submitTransactions.operation';

export { cancel, create, findByKeys, get, getMany, setReturnDetails, submitTransactions };

export const description: INodeProperties[] = [
	operationField('paymentOrder', 'create', [
		{
			name: 'Cancel',
			value: 'cancel',
			description: 'Cancel an order that is awaiting funds or funded; funds that arrived are returned. A refund is Set Return Details, then Cancel.',
			action: 'Cancel a payment order',
		},
		{
			name: 'Create',
			value: 'create',
			description: 'Create a standard or instant payment order and get its deposit addresses',
			action: 'Create a payment order',
		},
		{
			name: 'Find by Keys',
			value: 'findByKeys',
			description: 'Find the order made with each input item\'s key, with its current status, or "not found" (read-only)',
			action: 'Find payment orders by keys',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Get one payment order with its return details',
			action: 'Get a payment order',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List payment orders sent by the account',
			action: 'Get many payment orders',
		},
		{
			name: 'Set Return Details',
			value: 'setReturnDetails',
			description: 'Register where deposits of this order are returned: the first step of a refund (then Cancel)',
			action: 'Set return details of a payment order',
		},
		{
			name: 'Submit Transactions',
			value: 'submitTransactions',
			description: 'Attribute funding transaction hashes to an order',
			action: 'Submit transactions for a payment order',
		},
	]),
	...create.description,
	...get.description,
	...getMany.description,
	...findByKeys.description,
	...submitTransactions.description,
	...cancel.description,
	...setReturnDetails.description,
];
