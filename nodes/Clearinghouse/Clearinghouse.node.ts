import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import * as account from './actions/account';
import * as depositAddress from './actions/depositAddress';
import * as paymentOrder from './actions/paymentOrder';
import * as quote from './actions/quote';
import * as receiveRuleset from './actions/receiveRuleset';
import * as rewardRule from './actions/rewardRule';
import * as supportedAsset from './actions/supportedAsset';
import * as user from './actions/user';
import * as webhookDelivery from './actions/webhookDelivery';
import * as webhookEndpoint from './actions/webhookEndpoint';
import { listSearch, loadOptions } from './methods';

export class Clearinghouse implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clearinghouse',
		name: 'clearinghouse',
		icon: { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' },
		group: ['transform'],
		version: [1],
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Move dollar stablecoins between assets and chains at par',
		defaults: { name: 'Clearinghouse' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'clearinghouseApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Deposit Address', value: 'depositAddress' },
					{ name: 'Payment Order', value: 'paymentOrder' },
					{ name: 'Quote', value: 'quote' },
					{ name: 'Receive Ruleset', value: 'receiveRuleset' },
					{ name: 'Reward Rule', value: 'rewardRule' },
					{ name: 'Supported Asset', value: 'supportedAsset' },
					{ name: 'User', value: 'user' },
					{ name: 'Webhook Delivery', value: 'webhookDelivery' },
					{ name: 'Webhook Endpoint', value: 'webhookEndpoint' },
				],
				default: 'paymentOrder',
			},
			...account.description,
			...depositAddress.description,
			...paymentOrder.description,
			...quote.description,
			...receiveRuleset.description,
			...rewardRule.description,
			...supportedAsset.description,
			...user.description,
			...webhookDelivery.description,
			...webhookEndpoint.description,
		],
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
