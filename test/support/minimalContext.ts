/**
 * For unit tests of pure helpers: a node as n8n hands it over, and just enough of an execution
 * context for helpers that only name the node and read parameters (no n8n-core behind it).
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

export const TEST_NODE: INode = {
	id: 'node-1',
	name: 'Clearinghouse',
	type: 'n8n-nodes-clearinghouse.clearinghouse',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** getNode() and getNodeParameter() over `parameters`; `more` adds what a test needs (getInputData, continueOnFail, ...). */
export function minimalContext(parameters: Record<string, unknown> = {}, more: Record<string, unknown> = {}): IExecuteFunctions {
	return {
		getNode: () => TEST_NODE,
		getNodeParameter: (name: string, _itemIndex: number, fallback: unknown) => parameters[name] ?? fallback,
		...more,
	} as unknown as IExecuteFunctions;
}
