import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Operation } from './operation';
import * as supportedAsset from './supportedAsset';

/** resource → operation → module. Adding an operation is one file plus one line in its index. */
export const resources: Record<string, Record<string, Operation | unknown>> = {
	supportedAsset,
};

export function findOperation(resource: string, operation: string): Operation {
	const candidate = resources[resource]?.[operation] as Operation | undefined;
	if (!candidate || typeof candidate.execute !== 'function') {
		throw new Error(`The operation "${operation}" of "${resource}" is not supported`);
	}
	return candidate;
}

/**
 * Runs the chosen operation once per input item, in order. Per-item concerns live here once:
 * paired items, Continue On Fail, and the item index on every error.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	let operation: Operation;
	try {
		operation = findOperation(resource, operationName);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), error as Error);
	}

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await operation.execute.call(this, itemIndex);
			const records = Array.isArray(result) ? result : [result];
			for (const json of records) output.push({ json, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (this.continueOnFail()) {
				output.push({
					json: { ...items[itemIndex].json, error: (error as Error).message },
					error: asNodeError(this, error, itemIndex),
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			throw asNodeError(this, error, itemIndex);
		}
	}
	return [output];
}

function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
