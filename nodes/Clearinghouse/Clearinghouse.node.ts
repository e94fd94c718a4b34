import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { properties, resources, router } from './actions/router';
import { listSearch, loadOptions } from './methods';

/** The canvas subtitle of each operation, in the panel's words: "Payment Order: Create". */
const subtitles: Record<string, string> = {};
for (const [resource, { displayName, operations }] of Object.entries(resources)) {
	const field = operations.description.find((p) => p.name === 'operation');
	for (const option of (field?.options ?? []) as Array<{ name: string; value: string }>)
		subtitles[`${resource}.${option.value}`] = `${displayName}: ${option.name}`;
}

export class Clearinghouse implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clearinghouse',
		name: 'clearinghouse',
		icon: { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' },
		group: ['transform'],
		// One version until the first release has saved workflows to keep (a new default then needs a new version).
		version: 1,
		subtitle: `={{ (${JSON.stringify(subtitles)})[$parameter["resource"] + "." + $parameter["operation"]] ?? $parameter["operation"] }}`,
		description: 'Pay, refund and look up stablecoin payment orders; manage users, quotes, receive rulesets and webhook endpoints',
		defaults: { name: 'Clearinghouse' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'clearinghouseApi', required: true }],
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router(this);
	}
}
