import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DryRunStop, dryRunOutput, findingsOf, startDryRun } from '../../shared/dryRun';
import { switchParameter } from './parameters';
import { fromAiProblem, modelInputProblem } from '../../shared/spendLimits';
import { isToolRun } from './toolDescriptions';

/** Options → Dry Run for the operations and the router; the transport's side, refusing every write of a marked run, is shared/dryRun.ts. */
export { endDryRun, isDryRun, noteFinding } from '../../shared/dryRun';

/** On every operation that writes. */
export const dryRunOption: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to run every check and every read (spend limits, supported assets and chains, account limits) and output the request each item would send, without sending any write. Safe against production: while it is on, the node sends nothing but GET requests. It holds for the whole run: set by an expression, every item must give the same value, or the run is refused before anything is sent.',
};

/**
 * Marks the run as a dry run when Options → Dry Run is on, read fail-closed. A run is dry or real as a
 * whole, so an expression is read for every item and items that disagree stop the run before anything
 * is sent: read from the first item alone, a first row saying false would pay the rows saying true.
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

/** The output of an item whose write a dry run stopped, or undefined when `error` is anything else. */
export function dryRunItem(ctx: IExecuteFunctions, error: unknown, itemIndex: number, operation: string): IDataObject | undefined {
	return error instanceof DryRunStop ? dryRunOutput(operation, error, findingsOf(ctx, itemIndex)) : undefined;
}
