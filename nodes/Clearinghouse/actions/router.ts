import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as depositAddress from './depositAddress';
import { beginDryRun, dryRunItem, endDryRun } from './dryRun';
import type { Operation } from './operation';
import * as paymentOrder from './paymentOrder';
import * as quote from './quote';
import * as receiveRuleset from './receiveRuleset';
import * as rewardRule from './rewardRule';
import * as supportedAsset from './supportedAsset';
import * as user from './user';
import * as webhookDelivery from './webhookDelivery';
import * as webhookEndpoint from './webhookEndpoint';

interface Resource {
	/** The name in the node's Resource dropdown. */
	displayName: string;
	/** The resource's index: its operation modules and `description` (its Operation field and their fields). */
	operations: Record<string, Operation | unknown> & { description: INodeProperties[] };
}

/**
 * resource → its name and operations. The node's Resource field and properties are built from it
 * (`properties` below), so adding an operation is one file plus its lines in the resource's index.
 */
export const resources: Record<string, Resource> = {
	account: { displayName: 'Account', operations: account },
	depositAddress: { displayName: 'Deposit Address', operations: depositAddress },
	paymentOrder: { displayName: 'Payment Order', operations: paymentOrder },
	quote: { displayName: 'Quote', operations: quote },
	receiveRuleset: { displayName: 'Receive Ruleset', operations: receiveRuleset },
	rewardRule: { displayName: 'Reward Rule', operations: rewardRule },
	supportedAsset: { displayName: 'Supported Asset', operations: supportedAsset },
	user: { displayName: 'User', operations: user },
	webhookDelivery: { displayName: 'Webhook Delivery', operations: webhookDelivery },
	webhookEndpoint: { displayName: 'Webhook Endpoint', operations: webhookEndpoint },
};

/** The node's properties: the Resource field, then each resource's Operation field and fields. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: Object.entries(resources).map(([value, { displayName }]) => ({ name: displayName, value })),
		default: 'paymentOrder',
	},
	...Object.values(resources).flatMap(({ operations }) => operations.description),
];

function findOperation(resource: string, operation: string): Operation | undefined {
	const candidate = resources[resource]?.operations[operation] as Operation | undefined;
	return candidate && typeof candidate.execute === 'function' ? candidate : undefined;
}

type Outcome = { records: IDataObject[] } | { error: NodeApiError | NodeOperationError };

/**
 * Runs the chosen operation once per input item. Per-item concerns live here once: paired items,
 * Continue On Fail, the item index on every error, and bounded concurrency.
 *
 * Concurrency (Options → Concurrency, default 5) starts items in item order, at most N at a time,
 * and assembles the output in item order, so the result equals a one-at-a-time run: the same
 * items, the same pairedItem, the same idempotency keys (they depend on the item index, not on
 * timing). Without Continue On Fail no item starts after a failure and the error of the first
 * failing item (in item order) is thrown once the items already running have finished.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = findOperation(resource, operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const continueOnFail = this.continueOnFail();
	const concurrency = Math.max(1, Math.floor(Number(this.getNodeParameter('options.concurrency', 0, 5)) || 1));

	const outcomes: Outcome[] = new Array(items.length);
	let next = 0;
	let stopped = false;
	const worker = async () => {
		while (!stopped && next < items.length) {
			const itemIndex = next++;
			try {
				const result = await operation.execute.call(this, itemIndex);
				outcomes[itemIndex] = { records: Array.isArray(result) ? result : [result] };
			} catch (error) {
				// Dry run: the write the transport refused to send becomes the item's output.
				const unsent = dryRunItem(this, error, itemIndex, `${resource}.${operationName}`);
				if (unsent) {
					outcomes[itemIndex] = { records: [unsent] };
					continue;
				}
				outcomes[itemIndex] = { error: asNodeError(this, error, itemIndex) };
				if (!continueOnFail) stopped = true;
			}
		}
	};
	// Options → Dry Run (actions/dryRun.ts): no write leaves the transport until endDryRun.
	beginDryRun(this);
	try {
		// Checks over the whole batch (spend limits) before any item starts: a refusal sends nothing.
		let batchError: NodeApiError | NodeOperationError | undefined;
		try {
			await operation.preflight?.call(this, items.length);
		} catch (error) {
			batchError = asNodeError(this, error, 0);
		}
		if (batchError) {
			if (!continueOnFail) throw batchError;
			return [items.map((_, itemIndex) => ({ json: failedItemJson(batchError), pairedItem: { item: itemIndex } }))];
		}
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	} finally {
		endDryRun(this);
	}

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome === undefined) break; // not started because an earlier item failed
		if ('error' in outcome) {
			if (!continueOnFail) {
				const rowName = (index: number) => nameOfRow(this, operation, index, items.length);
				throw withProgress(this, operation, outcome.error, outcomes, items.length, { itemIndex, rowName });
			}
			output.push({ json: failedItemJson(outcome.error), pairedItem: { item: itemIndex } });
			continue;
		}
		for (const json of outcome.records) output.push({ json, pairedItem: { item: itemIndex } });
	}
	return [output];
}

/**
 * The json of a failed item under Continue On Fail: the error text (with the service's explanation)
 * and, for an API answer, `details` with its HTTP status and a hint. Only `json.error` is set, no
 * item-level `error`: on the error output n8n 2.40.7 merges the paired input item's fields in beside
 * it, but replaces the json of any item that carries an item-level `error` with `{error}` alone
 * (`normalizeNodeErrors`), dropping the payee and invoice fields the user needs to act on the
 * failure. n8n routes an item to the error output by `json.error` only while its json has no keys
 * but `error`, `message` and `details`, so nothing else may be added here.
 */
export function failedItemJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error instanceof NodeApiError && error.httpCode) {
		json.details = { httpCode: error.httpCode, description: error.description ?? '' };
	}
	return json;
}

/**
 * A row as a person sees it: its position counted from 1 and its reference (Business Key or memo),
 * e.g. `Row 2 of 3 (INV-1002)`. n8n's error view adds its own zero-based "[item 1]" to a message
 * that does not contain "item 1", so the first row named also says n8n's number for it.
 */
export function nameOfRow(ctx: IExecuteFunctions, operation: Operation, itemIndex: number, total: number): string {
	let reference: string | undefined;
	try {
		reference = operation.rowReference?.call(ctx, itemIndex);
	} catch {
		reference = undefined;
	}
	return `Row ${itemIndex + 1}${total > 1 ? ` of ${total}` : ''}${reference ? ` (${reference})` : ''}`;
}

/** The rows of a list, e.g. `rows 1 and 3 (INV-1001, INV-1003)`: names already say "Row n (ref)". */
function rowList(rows: number[], rowName: (index: number) => string): string {
	const names = rows.map((index) =>
		rowName(index)
			.replace(/^Row /, '')
			.replace(/ of \d+/, ''),
	);
	const numbers = names.map((name) => name.replace(/ \(.*\)$/, ''));
	const references = names.map((name) => /\((.*)\)$/.exec(name)?.[1]).filter((ref): ref is string => ref !== undefined);
	const joined = numbers.length === 1 ? numbers[0] : `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
	return `row${rows.length === 1 ? '' : 's'} ${joined}${references.length === rows.length ? ` (${references.join(', ')})` : ''}`;
}

/**
 * The node error of a failed item, told what the rest of this run already did: a person who reads
 * "row 3 failed" and runs the batch again would otherwise pay rows 1 and 2 a second time. Items
 * that were running when the failure came (Concurrency) are counted too. The failed row is named
 * as a person sees it (`row`: its position from 1, its reference, and n8n's zero-based item number,
 * which n8n's error view would otherwise add on its own).
 */
export function withProgress(
	ctx: IExecuteFunctions,
	operation: Operation,
	error: NodeApiError | NodeOperationError,
	outcomes: Outcome[],
	total: number,
	row?: { itemIndex: number; rowName: (index: number) => string },
) {
	if (row && total > 1 && !/^Row \d/.test(error.message)) {
		error.message = `${row.rowName(row.itemIndex)}, n8n item ${row.itemIndex}: ${error.message}`;
	}
	const succeeded: number[] = [];
	const records: IDataObject[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (outcome && 'records' in outcome) {
			succeeded.push(itemIndex);
			records.push(...outcome.records);
		}
	});
	if (succeeded.length === 0) return error;
	const rowName = row?.rowName ?? ((index: number) => `Row ${index + 1}`);
	// The message counts the rows; the details say which (up to 20), without repeating the count.
	const which = succeeded.length <= 20 ? `${rowList(succeeded, rowName).replace(/^r/, 'R')} succeeded: ` : '';
	const told = operation.succeededRows?.call(ctx, records);
	const summary = `${succeeded.length === 1 ? '1 other row' : `${succeeded.length} other rows`} of this run already succeeded${told ? `: ${told.made}` : ''}`;
	let detail = `${which}${told?.detail ?? 'their results are not in the output because the node failed. Check them (Get or Get Many) before running the rows again, or Retry this execution from the executions list.'}`;
	detail = detail[0].toUpperCase() + detail.slice(1);
	error.message = `${error.message} (${summary})`;
	error.description = error.description ? `${detail}\n\n${error.description}` : detail;
	return error;
}

function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
