import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DryRunStop, dryRunOutput, endDryRun as unmark, findingsOf, startDryRun } from '../../shared/dryRun';
import { switchParameter } from './parameters';
import { fromAiProblem, modelInputProblem } from '../../shared/spendLimits';
import { isToolRun } from './toolDescriptions';

/**
 * Options → Dry Run, the one module the operations and the router use: the option, the run's mark
 * (read fail-closed), a finding an operation notes for an item, and the item a stopped write becomes.
 * The transport's side, which refuses every write while the run is marked, is ../../shared/dryRun.ts.
 */
export { isDryRun, noteFinding } from '../../shared/dryRun';

/**
 * Options → Dry Run, on every operation that writes (its Options collection lists it; the read
 * operations have nothing to hold back). Read once per run, from the node's parameters.
 */
export const dryRunOption: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to run every check and every read (spend limits, supported assets and chains, account limits) and output the request each item would send, without sending any write. Safe against production: while it is on, the node sends nothing but GET requests. It holds for the whole run: set by an expression, every item must give the same value, or the run is refused before anything is sent.',
};

/**
 * Marks the run as a dry run when Options → Dry Run is on, read fail-closed: the text "true" or 1 is
 * on, and anything but a real false or on (the text "false", "yes", 0, an expression giving nothing)
 * stops the run before anything is sent. A run is dry or real as a whole (the transport's mark is per
 * run), so an expression is read for every item and items that disagree stop the run before anything
 * is sent: read from the first item alone, a batch whose first row said false paid the rows that said
 * true.
 */
export function beginDryRun(ctx: IExecuteFunctions): void {
	const raw = (ctx.getNode().parameters.options as IDataObject | undefined)?.dryRun;
	const problem = fromAiProblem(raw, 'Dry Run') ?? (isToolRun(ctx) ? modelInputProblem(raw, 'Dry Run') : undefined);
	if (problem) throw new NodeOperationError(ctx.getNode(), problem, { itemIndex: 0 });
	const dry = switchParameter(ctx, 'options.dryRun', 0, false, 'Dry Run', 'guard');
	// A value typed in the node is the same for every item; only an expression can differ.
	const items = typeof raw === 'string' && raw.startsWith('=') ? ctx.getInputData().length : 1;
	for (let itemIndex = 1; itemIndex < items; itemIndex++) {
		if (switchParameter(ctx, 'options.dryRun', itemIndex, false, 'Dry Run', 'guard') === dry) continue;
		const says = (on: boolean) => (on ? 'on (true)' : 'off (false)');
		throw new NodeOperationError(
			ctx.getNode(),
			`Dry Run must be the same for every item of a run: row 1 (n8n item 0) says ${says(dry)}, row ${itemIndex + 1} (n8n item ${itemIndex}) says ${says(!dry)}. Nothing was sent`,
			{
				itemIndex,
				description:
					'A run of this node is either a dry run (nothing written) or a real one, never both: items that disagree are refused before any request, so that a row meant as a dry run is never paid. Send the rows to two nodes instead (an If node on the same expression before them), one with Dry Run on and one with it off.',
			},
		);
	}
	if (dry) startDryRun(ctx);
}

export function endDryRun(ctx: IExecuteFunctions): void {
	unmark(ctx);
}

/** The output of an item whose write a dry run stopped, or undefined when `error` is anything else. */
export function dryRunItem(ctx: IExecuteFunctions, error: unknown, itemIndex: number, operation: string): IDataObject | undefined {
	return error instanceof DryRunStop ? dryRunOutput(operation, error, findingsOf(ctx, itemIndex)) : undefined;
}
