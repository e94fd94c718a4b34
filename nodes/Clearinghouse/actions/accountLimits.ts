import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';

/**
 * GET /account/limits, the one read of the account's limits for the guards that need them (Check
 * Account Limits First, a dry run's account limits, Check Batch Against Limits), always with the
 * order's subaccount query (`subaccount`: undefined for this account; the spec: it changes which
 * account the answer names, not the numbers). Read once per run and query and shared; `anew` reads
 * again: Check Account Limits First before each order sent, so that it sees what the run's earlier
 * orders used.
 */
export async function readAccountLimits(ctx: IExecuteFunctions, itemIndex: number, subaccount: IDataObject | undefined, anew = false): Promise<IDataObject> {
	const read = () => apiRequest(ctx, { method: 'GET', path: '/account/limits', qs: subaccount, itemIndex });
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
