import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../shared/amounts';
import { limitBreaches } from '../../shared/limits';
import { apiRequest } from '../../shared/transport';
import { isDryRun } from './dryRun';
import { operationError } from './parameters';

/**
 * GET /account/limits, the one read of the account's limits for the guards that need them (Check
 * Account Limits First, a dry run's account limits, Check Batch Against Limits), always with the
 * order's subaccount query (`subaccount`: undefined for this account; the spec: it changes which
 * account the answer names, not the numbers). Read once per run and query and shared; `anew` reads
 * again: Check Account Limits First before each order sent, so that it sees what the run's earlier
 * orders used.
 */
export async function readAccountLimits(ctx: IExecuteFunctions, itemIndex: number, subaccount: IDataObject | undefined, anew = false): Promise<IDataObject> {
	const read = () => apiRequest.call(ctx, { method: 'GET', path: '/account/limits', qs: subaccount, itemIndex });
	if (anew) return await read();
	const reads = runReads.get(ctx) ?? new Map<string, Promise<IDataObject>>();
	runReads.set(ctx, reads);
	const query = String(subaccount?.subaccountId ?? '');
	let limits = reads.get(query);
	if (!limits) {
		reads.set(query, (limits = read()));
		// A failed read is not kept: the next order reads again.
		limits.catch(() => reads.delete(query));
	}
	return await limits;
}
const runReads = new WeakMap<object, Map<string, Promise<IDataObject>>>();

/**
 * Create's pre-flight (Options → Check Account Limits First): refuse, before anything is sent, an
 * order that would not fit the account's limits (in a dry run, the run's one read: nothing was sent).
 */
export async function checkAccountLimits(ctx: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const limits = await readAccountLimits(ctx, itemIndex, subaccount, !isDryRun(ctx));
	const checked = limitBreaches(limits, { order: amount });
	if ('unreadable' in checked) {
		throw operationError(
			ctx,
			checked.unreadable.message,
			itemIndex,
			'Nothing was sent. Options → Check Account Limits First reads GET /account/limits and sends no order it cannot check against them.',
		);
	}
	const problems = checked.breaches;
	if (problems.length > 0) {
		throw operationError(
			ctx,
			`The payment would breach the account limits: ${problems.join('; ')}`,
			itemIndex,
			'Nothing was sent. Limits belong to the parent account and count every subaccount; lower the amount or wait for the window or day to roll over.',
		);
	}
}
