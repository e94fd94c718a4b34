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
	displayName: string;
	/** The resource's index: its operation modules and `description` (its Operation field and their fields). */
	operations: Record<string, Operation | unknown> & { description: INodeProperties[] };
}

/** The node's resources: its Resource field and properties are built from this. */
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

type NodeError = NodeApiError | NodeOperationError;
type Outcome = { records: IDataObject[] } | { error: NodeError };

/**
 * Runs the operation once per input item: paired items, Continue On Fail, the item index on every
 * error, and Concurrency, which starts items in item order and assembles the output in item order, so
 * the result (keys included) equals a one-at-a-time run. Without Continue On Fail no item starts after
 * a failure, and the first failing item's error is thrown once the running ones have finished.
 */
export async function router(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operationName = ctx.getNodeParameter('operation', 0) as string;
	const operation = findOperation(resource, operationName);
	if (!operation) {
		throw new NodeOperationError(ctx.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const continueOnFail = ctx.continueOnFail();
	const concurrency = Math.max(1, Math.floor(Number(ctx.getNodeParameter('options.concurrency', 0, 5)) || 1));

	const outcomes: Outcome[] = new Array(items.length);
	let next = 0;
	let stopped = false;
	const worker = async () => {
		while (!stopped && next < items.length) {
			const itemIndex = next++;
			if (outcomes[itemIndex]) continue; // refused by its own checks (Continue On Fail)
			try {
				const result = await operation.execute(ctx, itemIndex);
				outcomes[itemIndex] = { records: Array.isArray(result) ? result : [result] };
			} catch (error) {
				// Dry run: the write the transport refused to send becomes the item's output.
				const unsent = dryRunItem(ctx, error, itemIndex, `${resource}.${operationName}`);
				if (unsent) {
					outcomes[itemIndex] = { records: [unsent] };
					continue;
				}
				outcomes[itemIndex] = { error: asNodeError(ctx, error, itemIndex) };
				if (!continueOnFail) stopped = true;
			}
		}
	};
	// Options → Dry Run: no write leaves the transport until endDryRun.
	beginDryRun(ctx);
	try {
		let refused: Map<number, NodeError>;
		try {
			refused = await checkBatch(ctx, operation, items.length);
		} catch (error) {
			// checkBatch throws node errors only: the run fails as a whole.
			const runError = error as NodeError;
			if (!continueOnFail) throw runError;
			return [items.map((_, itemIndex) => ({ json: failedItemJson(runError), pairedItem: { item: itemIndex } }))];
		}
		// A batch with bad rows sends nothing and names them all (Continue On Fail: the good rows run).
		if (refused.size > 0 && !continueOnFail) throw batchRefusal(ctx, operation, refused, items.length);
		for (const [itemIndex, error] of refused) outcomes[itemIndex] = { error };
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	} finally {
		endDryRun(ctx);
	}

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome === undefined) break; // not started because an earlier item failed
		if ('error' in outcome) {
			if (!continueOnFail) throw withProgress(ctx, operation, outcome.error, outcomes, items.length, itemIndex);
			output.push({ json: failedItemJson(outcome.error), pairedItem: { item: itemIndex } });
			continue;
		}
		for (const json of outcome.records) output.push({ json, pairedItem: { item: itemIndex } });
	}
	return [output];
}

/**
 * The batch's checks before any item starts: preflight, then every row's checkRow, one at a time. A
 * throw fails the run as a whole (a preflight's refusal, or the service refusing a read the checks
 * need); the rows' own refusals are returned.
 */
async function checkBatch(ctx: IExecuteFunctions, operation: Operation, total: number): Promise<Map<number, NodeError>> {
	try {
		await operation.preflight?.(ctx, total);
	} catch (error) {
		throw asNodeError(ctx, error, 0);
	}
	const refused = new Map<number, NodeError>();
	for (let itemIndex = 0; operation.checkRow && itemIndex < total; itemIndex++) {
		try {
			await operation.checkRow(ctx, itemIndex);
		} catch (error) {
			if (error instanceof NodeApiError) throw asNodeError(ctx, error, itemIndex);
			refused.set(itemIndex, asNodeError(ctx, error, itemIndex));
		}
	}
	return refused;
}

/** At most this many rows are named in the message; the description lists up to ROWS_IN_DETAILS. */
const ROWS_IN_MESSAGE = 3;
const ROWS_IN_DETAILS = 50;

/** The first sentence of a row's fix (its description), without the "nothing was sent" the headline already says. */
function fixOf(description: string | null | undefined): string {
	const sentences = (description ?? '').split(/(?<=[.:]) (?=[A-Z])|\n+/).map((s) => s.trim());
	const fix = sentences.find((s) => s !== '' && !/^Nothing was sent/i.test(s) && !/reads the supported chains/.test(s));
	return fix ? clip(fix, 240) : '';
}

function clip(text: string, length: number): string {
	return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** One error for a batch whose rows failed their own checks: the message names the first rows, the description up to 50. */
export function batchRefusal(ctx: IExecuteFunctions, operation: Operation, refused: Map<number, NodeError>, total: number): NodeError {
	const rows = [...refused.keys()].sort((a, b) => a - b);
	if (rows.length === 1) {
		// One bad row: its own error (its field, its item for n8n), saying that no other row was sent either.
		const [itemIndex] = rows;
		const error = refused.get(itemIndex)!;
		if (total > 1) {
			if (!/^Row \d/.test(error.message)) error.message = `${nameOfRow(ctx, operation, itemIndex, total)}, n8n item ${itemIndex}: ${error.message}`;
			const others = `Nothing was sent for any row: every row is checked before the first is sent, and the other ${total - 1} passed.`;
			error.description = error.description ? `${others}\n\n${error.description}` : others;
		}
		return error;
	}
	const problem = (itemIndex: number) => refused.get(itemIndex)!.message.replace(/^Nothing was sent for this (row|item)[:.]\s*/i, '');
	// Rows with the same problem (a column every row lacks) are said once, with their row numbers.
	const groups = new Map<string, number[]>();
	for (const itemIndex of rows) groups.set(problem(itemIndex), [...(groups.get(problem(itemIndex)) ?? []), itemIndex]);
	const rowName = (index: number) => nameOfRow(ctx, operation, index, total);
	const who = (indexes: number[]) => {
		if (indexes.length === 1) return rowName(indexes[0]).replace(/ of \d+/, '');
		if (indexes.length === total) return `All ${total} rows`;
		return rowList(indexes.slice(0, 20), rowName).replace(/^r/, 'R') + (indexes.length > 20 ? ` and ${indexes.length - 20} more` : '');
	};
	const entries = [...groups.entries()];
	const listed = entries.slice(0, ROWS_IN_MESSAGE).map(([text, indexes]) => `${who(indexes)}: ${clip(text, 200)}`);
	const more = entries.length > ROWS_IN_MESSAGE ? ` (and ${entries.length - ROWS_IN_MESSAGE} more, all in the details)` : '';
	const count = rows.length === total ? `all ${total} rows need` : `${rows.length} of ${total} rows need`;
	const message = `Nothing was sent: ${count} a fix first. ${listed.map((l) => l.replace(/[.;]$/, '')).join('; ')}${more}`;
	const lines = entries.slice(0, ROWS_IN_DETAILS).map(([text, indexes]) => {
		const fix = fixOf(refused.get(indexes[0])!.description);
		const said = clip(text, 300);
		return `${who(indexes)}: ${said}${fix ? `${/[.!?…)]$/.test(said) ? '' : '.'} Fix: ${fix}` : ''}`;
	});
	if (entries.length > ROWS_IN_DETAILS) lines.push(`…and ${entries.length - ROWS_IN_DETAILS} more problems.`);
	const description = `Every row was checked before any was sent (columns, amount, chain and asset, spend limits, keys), and nothing was written. Fix these rows and run the node again; with Settings → On Error → Continue (using error output), the good rows are sent and each bad row becomes its own error item.\n\n${lines.join('\n')}`;
	return new NodeOperationError(ctx.getNode(), message, { description });
}

/**
 * A failed item's json under Continue On Fail. No item-level `error`: n8n 2.40.7 then replaces the json
 * with `{error}` alone, dropping the input fields it otherwise merges in on the error output; and it
 * routes by `json.error` only while the json has no keys but `error`, `message` and `details`.
 */
export function failedItemJson(error: NodeError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error instanceof NodeApiError && error.httpCode) {
		json.details = { httpCode: error.httpCode, description: error.description ?? '' };
	}
	return json;
}

/** A row as a person sees it, e.g. `Row 2 of 3 (INV-1002)`: its position from 1 and its reference (Business Key or memo). */
export function nameOfRow(ctx: IExecuteFunctions, operation: Operation, itemIndex: number, total: number): string {
	let reference: string | undefined;
	try {
		reference = operation.rowReference?.(ctx, itemIndex);
	} catch {
		reference = undefined;
	}
	return `Row ${itemIndex + 1}${total > 1 ? ` of ${total}` : ''}${reference ? ` (${reference})` : ''}`;
}

/** The rows of a list, e.g. `rows 1 and 3 (INV-1001, INV-1003)`. */
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
 * A failed item's error, told what the rest of the run already did: a person who reads "row 3 failed"
 * and runs the batch again would otherwise pay rows 1 and 2 twice. The row also says n8n's zero-based
 * item number, which n8n's error view would otherwise add on its own ("[item 1]").
 */
export function withProgress(ctx: IExecuteFunctions, operation: Operation, error: NodeError, outcomes: Outcome[], total: number, failedIndex: number) {
	const rowName = (index: number) => nameOfRow(ctx, operation, index, total);
	if (total > 1 && !/^Row \d/.test(error.message)) {
		error.message = `${rowName(failedIndex)}, n8n item ${failedIndex}: ${error.message}`;
	}
	const succeeded: number[] = [];
	const records: IDataObject[] = [];
	const failed: number[] = [];
	const notStarted: number[] = [];
	for (let itemIndex = 0; itemIndex < total; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome === undefined) notStarted.push(itemIndex);
		else if ('records' in outcome) {
			succeeded.push(itemIndex);
			records.push(...outcome.records);
		} else if (itemIndex !== failedIndex) failed.push(itemIndex);
	}
	// Every row not paid is named too: a reader of only the rows that succeeded would take the others for paid.
	const notPaid = [
		...failed
			.slice(0, 20)
			.map(
				(index) =>
					`${rowName(index).replace(/ of \d+/, '')} also failed: ${clip(outcomes[index] && 'error' in outcomes[index] ? outcomes[index].error.message : '', 200)}`,
			),
		failed.length > 20 ? `${failed.length - 20} more rows also failed` : '',
		notStarted.length === 0
			? ''
			: `${notStarted.length <= 20 ? rowList(notStarted, rowName).replace(/^r/, 'R') : `${notStarted.length} rows`} ${notStarted.length === 1 ? 'was' : 'were'} not sent (not started after the failure)`,
	].filter(Boolean);
	const others = notPaid.length > 0 ? `${notPaid.join('. ')}.` : '';
	if (succeeded.length === 0) {
		if (others) error.description = error.description ? `${others}\n\n${error.description}` : others;
		return error;
	}
	const which = succeeded.length <= 20 ? `${rowList(succeeded, rowName).replace(/^r/, 'R')} succeeded: ` : '';
	const told = operation.succeededRows?.(ctx, records);
	const summary = `${succeeded.length === 1 ? '1 other row' : `${succeeded.length} other rows`} of this run already succeeded${told ? `: ${told.made}` : ''}`;
	let detail = `${which}${told?.detail ?? 'their results are not in the output because the node failed. Check them (Get or Get Many) before running the rows again, or Retry this execution from the executions list.'}`;
	detail = detail[0].toUpperCase() + detail.slice(1);
	if (others) detail = `${detail}\n\nBesides this row: ${others}`;
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
