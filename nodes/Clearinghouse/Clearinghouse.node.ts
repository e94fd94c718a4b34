import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { properties, router } from './actions/router';
import { listSearch, loadOptions } from './methods';

export class Clearinghouse implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clearinghouse',
		name: 'clearinghouse',
		icon: { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' },
		group: ['transform'],
		// 2: Idempotency Key defaults to Business Key; Derived keys follow the node's name (see fields.ts, parameters.ts).
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Move dollar stablecoins between assets and chains at par',
		defaults: { name: 'Clearinghouse' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'clearinghouseApi', required: true }],
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
