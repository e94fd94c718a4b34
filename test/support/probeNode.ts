/**
 * A probe node for tests that run a piece of node code (the transport, the keyed send) inside n8n-core's
 * real ExecuteContext (harness/n8nContexts.ts `runNode`): it declares the Clearinghouse credential and the
 * parameters given, and its execute() returns what `call` returns as its one item's json.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, INodeType } from 'n8n-workflow';

export function probeNode(displayName: string, call: (ctx: IExecuteFunctions) => Promise<IDataObject>, properties: INodeProperties[] = []): INodeType {
	return {
		description: {
			displayName,
			name: displayName.replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toLowerCase()),
			group: [],
			version: 1,
			description: '',
			defaults: { name: displayName },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'clearinghouseApi', required: true }],
			properties,
		},
		async execute(this: IExecuteFunctions) {
			return [[{ json: await call(this) }]];
		},
	} as INodeType;
}
