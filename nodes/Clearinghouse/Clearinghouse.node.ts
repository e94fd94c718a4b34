import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import * as supportedAsset from './actions/supportedAsset';
import { loadOptions } from './methods';

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
				options: [{ name: 'Supported Asset', value: 'supportedAsset' }],
				default: 'supportedAsset',
			},
			...supportedAsset.description,
		],
	};

	methods = { loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
