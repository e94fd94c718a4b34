import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { toPips, type UsdAmount } from '../../../shared/amounts';
import { apiRequest } from '../../../shared/transport';
import { operationError } from '../parameters';

/** One entry of GET /account/limits. */
interface Limit {
	limit?: number;
	used?: number;
	remaining?: number;
}

/** What is left of one limit; undefined when the answer lacks it (daily limits were seen missing). */
function remaining(limits: IDataObject, name: string): number | undefined {
	const entry = limits[name] as Limit | undefined;
	if (!entry || typeof entry !== 'object') return undefined;
	if (typeof entry.remaining === 'number') return entry.remaining;
	if (typeof entry.limit === 'number') return entry.limit - (typeof entry.used === 'number' ? entry.used : 0);
	return undefined;
}

/**
 * The limits of a GET /account/limits answer that an order of `amount` would breach, in words;
 * empty when it fits. Only the limits present are checked.
 */
export function limitBreaches(limits: IDataObject, amount: UsdAmount): string[] {
	const problems: string[] = [];
	for (const [name, label] of [
		['maxTxUsd', 'the per-transaction maximum'],
		['maxValuePerEpochUsd', 'the value left in this netting window'],
		['maxValuePerDayUsd', 'the value left today'],
	]) {
		const left = remaining(limits, name);
		if (left !== undefined && amount.pips > toPips(left)) {
			problems.push(`${amount.text} USD exceeds ${label} (${name} remaining ${left} USD)`);
		}
	}
	for (const [name, label] of [
		['maxCountPerEpoch', 'orders left in this netting window'],
		['maxCountPerDay', 'orders left today'],
	]) {
		const left = remaining(limits, name);
		if (left !== undefined && left < 1) problems.push(`no ${label} (${name} remaining ${left})`);
	}
	return problems;
}

/**
 * Create's pre-flight (Options → Check Account Limits First): GET /account/limits for the order's
 * account (`subaccount`: the subaccountId query, undefined for this account) and refuse, before
 * anything is sent, an order that would not fit.
 */
export async function checkAccountLimits(this: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const limits = await apiRequest.call(this, { method: 'GET', path: '/account/limits', qs: subaccount, itemIndex });
	const problems = limitBreaches(limits, amount);
	if (problems.length > 0) {
		throw operationError(
			this,
			`The payment would breach the account limits: ${problems.join('; ')}`,
			itemIndex,
			'Nothing was sent. Limits belong to the parent account and count every subaccount; lower the amount or wait for the window or day to roll over.',
		);
	}
}
